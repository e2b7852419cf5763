// The command line's conventions, shared by every subcommand: GNU-style help
// (grouped options, "-t, --interval=INTERVAL", defaults), usage errors in one
// line with the nearest valid option ("did you mean --archive-dir?"), hidden aliases for the old underscore spellings, and
// PCP's exit statuses. The parser itself is CLI11 (Debian's libcli11-dev).
#ifndef MMVLOG_CMD_CLI_H_
#define MMVLOG_CMD_CLI_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "CLI/CLI.hpp"

namespace mmvlog::cmd {

// Exit statuses, as PCP's and GNU tools use them.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the work failed at run time (bad file, I/O)
inline constexpr int kExitUsage = 2;    // bad command line; nothing was done

// The version `mmvlog --version` prints.
inline constexpr char kVersion[] = "0.7.0";

// Help text in GNU's layout: "usage: mmvlog SUB ARGS", the description, then
// each option group with "  -t, --interval=INTERVAL  what (default: 1sec)".
class HelpFormatter : public CLI::Formatter {
 public:
  // `usage` follows "usage: " (e.g. "mmvlog record [OPTIONS] [ARCHIVE]").
  explicit HelpFormatter(std::string usage) : usage_(std::move(usage)) {}

  std::string make_usage(const CLI::App* app, std::string name) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_opts(const CLI::Option* opt) const override;
  std::string make_option_desc(const CLI::Option* opt) const override;

 private:
  std::string usage_;
};

// A new CLI11 app for `mmvlog NAME` with mmvlog's help layout, -h/--help,
// and unknown options refused (they are usage errors, not ignored).
std::unique_ptr<CLI::App> NewCommandApp(const std::string& name, const std::string& description,
                                        const std::string& args_usage);

// Adds `--old_name` as a hidden alias storing into `target` (old unit files and
// scripts keep working; help shows only the new spelling).
template <typename T>
void HiddenAlias(CLI::App* app, const std::string& old_name, T& target) {
  app->add_option(old_name, target)->group("");
}
void HiddenFlagAlias(CLI::App* app, const std::string& old_name, bool& target);

// The option names `app` shows in its help ("--archive-dir", "-t"), in order.
std::vector<std::string> VisibleOptionNames(const CLI::App& app);

// The candidate closest to `wrong` (edit distance, "-" and "_" alike), or ""
// when none is close enough to be what was meant.
std::string NearestName(absl::string_view wrong, const std::vector<std::string>& candidates);

// Prints a parse error of `app` for `mmvlog SUB` as one line on stderr
// ("mmvlog SUB: what is wrong (mmvlog SUB --help lists the options)"), or the
// help text to stdout, and returns the exit status to use.
int ReportParseError(const CLI::App& app, const std::string& command, const CLI::ParseError& e);

// Prints "mmvlog SUB: MESSAGE" (one line) to stderr and returns kExitUsage.
int UsageError(const std::string& command, absl::string_view message);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_CLI_H_

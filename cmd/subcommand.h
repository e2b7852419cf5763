// The table of mmvlog subcommands. Each lives in its own file (record.cc,
// inspect.cc, ...) with its own ABSL_FLAGs, and exposes one entry point that
// runs after the flags are parsed.
#ifndef MMVLOG_CMD_SUBCOMMAND_H_
#define MMVLOG_CMD_SUBCOMMAND_H_

#include <string>
#include <vector>

namespace mmvlog::cmd {

// Exit statuses shared by all subcommands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the work failed (bad file, I/O)
inline constexpr int kExitUsage = 2;    // bad command line

struct Subcommand {
  const char* name;
  const char* usage;    // "inspect [--json] FILE"
  const char* summary;  // one line
  // `args`: positional arguments left after flag parsing (not argv[0]).
  int (*run)(const std::vector<std::string>& args);
};

// Entry points, one per file.
int RunInspect(const std::vector<std::string>& args);
int RunDemo(const std::vector<std::string>& args);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_SUBCOMMAND_H_

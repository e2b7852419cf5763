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

// What a subcommand gets after flag parsing.
struct Invocation {
  std::vector<std::string> args;     // positional arguments
  std::vector<std::string> command;  // everything after "--", if any
};

struct Subcommand {
  const char* name;
  const char* usage;    // "inspect [--json] FILE"
  const char* summary;  // one line
  int (*run)(const Invocation& invocation);
  // Besides cmd/<name>.cc, the files (comma separated) whose flags this
  // subcommand also takes.
  const char* shared_flags_file = nullptr;
};

// Entry points, one per file.
int RunInspect(const Invocation& invocation);
int RunDemo(const Invocation& invocation);
int RunCapture(const Invocation& invocation);
int RunRecord(const Invocation& invocation);
int RunReplay(const Invocation& invocation);
int RunCheck(const Invocation& invocation);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_SUBCOMMAND_H_

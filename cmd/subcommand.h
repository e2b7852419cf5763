// The mmvlog subcommands. Each lives in its own file (record.cc, replay.cc,
// ...) and declares its own options on a CLI11 app of its own, so
// `mmvlog SUB --help` lists just those; what it returns runs once they are
// parsed and checked.
#ifndef MMVLOG_CMD_SUBCOMMAND_H_
#define MMVLOG_CMD_SUBCOMMAND_H_

#include <functional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "cmd/cli.h"

namespace mmvlog::cmd {

// What a subcommand gets besides its options.
struct Invocation {
  std::vector<std::string> command;  // everything after "--", if any
};

// Runs the subcommand; returns its exit status.
using Runner = std::function<int(const Invocation& invocation)>;

struct Subcommand {
  const char* name;
  const char* args_usage;  // "[OPTIONS] ARCHIVE..." (after "mmvlog NAME ")
  const char* summary;     // one line
  // Declares the subcommand's options on `app` (their storage is owned by
  // what it returns) and returns the runner.
  Runner (*define)(CLI::App* app);
};

// One per file.
Runner DefineRecord(CLI::App* app);
Runner DefineCapture(CLI::App* app);
Runner DefineReplay(CLI::App* app);
Runner DefineCheck(CLI::App* app);
Runner DefineInspect(CLI::App* app);
Runner DefineDemo(CLI::App* app);
Runner DefinePush(CLI::App* app);

// The table, in the order `mmvlog --help` lists them.
const std::vector<Subcommand>& Subcommands();

// Runs `mmvlog ARGS...` (args[0] is the subcommand) as main() would: the demo
// uses it to show the very commands a user types.
int RunCommandLine(const std::vector<std::string>& args);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_SUBCOMMAND_H_

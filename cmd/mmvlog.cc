// mmvlog: records PCP MMV metrics into PCP archives, with no PCP daemon.
// main() picks the subcommand, parses only that subcommand's options and
// runs it. Exit status: 0 success, 1 failure at run time, 2 usage error.
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cmd/cli.h"
#include "cmd/common.h"
#include "cmd/subcommand.h"

namespace mmvlog::cmd {

const std::vector<Subcommand>& Subcommands() {
  static const std::vector<Subcommand> kSubcommands = {
      {"record", "[OPTIONS] [MMVFILE...] [ARCHIVE]",
       "the recording daemon: MMV files into PCP archives (a new one each day) until stopped",
       DefineRecord},
      {"capture", "[OPTIONS] [MMVFILE...] ARCHIVE [-- COMMAND [ARGS...]]",
       "record MMV metrics into one archive: once, for a while, or while a command runs",
       DefineCapture},
      {"replay", "[OPTIONS] [-a] ARCHIVE... [METRIC...]",
       "read archives (ours or PCP's): summary, dump, CSV, JSON, stats, SVG and HTML plots",
       DefineReplay},
      {"check", "[OPTIONS] ARCHIVE...",
       "validate archives like pmlogcheck; --repair fixes what a crash leaves", DefineCheck},
      {"inspect", "[OPTIONS] MMVFILE",
       "print an MMV file: header, indoms, metrics, help, labels, values", DefineInspect},
      {"push", "[OPTIONS] ARCHIVE",
       "push a finished archive to pmproxy (PCP >= 7), as pmlogpush; goes on after a failure",
       DefinePush},
      {"demo", "[OPTIONS]",
       "a built-in simulated MMV application, recorded and replayed (no PCP needed)",
       DefineDemo},
  };
  return kSubcommands;
}

namespace {

void PrintOverview(FILE* out) {
  std::fprintf(out,
               "usage: mmvlog COMMAND [OPTIONS] [ARGS]\n\n"
               "Record PCP MMV metrics into PCP archives, with no pmcd, MMV PMDA or pmlogger.\n\n"
               "Commands:\n");
  for (const Subcommand& s : Subcommands()) std::fprintf(out, "  %-9s %s\n", s.name, s.summary);
  std::fprintf(out,
               "\nOptions:\n  -h, --help     print this help and exit\n"
               "      --version  print mmvlog's version and exit\n\n"
               "'mmvlog COMMAND --help' lists a command's options; man mmvlog has them all.\n");
}

const Subcommand* Find(const std::string& name) {
  for (const Subcommand& s : Subcommands()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

}  // namespace

int RunCommandLine(const std::vector<std::string>& args) {
  if (args.empty()) {
    PrintOverview(stderr);
    return kExitUsage;
  }
  const std::string& first = args[0];
  if (first == "-h" || first == "--help" || (first == "help" && args.size() == 1)) {
    PrintOverview(stdout);
    return kExitOk;
  }
  if (first == "--version") {
    std::printf("mmvlog version %s\n", kVersion);
    return kExitOk;
  }
  if (first == "help") return RunCommandLine({args[1], "--help"});  // "mmvlog help replay"
  const Subcommand* sub = Find(first);
  if (sub == nullptr) {
    std::vector<std::string> names;
    for (const Subcommand& s : Subcommands()) names.push_back(s.name);
    const std::string near = NearestName(first, names);
    std::fprintf(stderr, "mmvlog: unknown command '%s'%s (mmvlog --help lists them)\n",
                 first.c_str(), near.empty() ? "" : absl::StrCat("; did you mean '", near, "'?").c_str());
    return kExitUsage;
  }
  // Everything after "--" is a command to run (capture), never options.
  Invocation inv;
  std::vector<std::string> options;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--") {
      inv.command.assign(args.begin() + i + 1, args.end());
      break;
    }
    options.push_back(args[i]);
  }
  std::unique_ptr<CLI::App> app = NewCommandApp(sub->name, sub->summary, sub->args_usage);
  Runner run = sub->define(app.get());
  // As getopt in PCP's tools: an option given twice takes its last value
  // (pmrep -s 20 ... -s 80); lists (-a, -i, -e) still gather every one.
  for (CLI::Option* o : app->get_options()) {
    if (o->get_expected_max() <= 1) o->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  // Declared again, so that help lists it after the command's own options
  // (push's -h is pmlogpush's host).
  const CLI::Option* h = app->get_option_no_throw("-h");
  app->set_help_flag(h == nullptr || h == app->get_help_ptr() ? "-h,--help" : "--help",
                     "print this help and exit")
      ->group("Other");
  try {
    // CLI11 takes the arguments reversed (it pops them from the back).
    std::vector<std::string> reversed(options.rbegin(), options.rend());
    app->parse(reversed);
  } catch (const CLI::ParseError& e) {
    return ReportParseError(*app, sub->name, e);
  }
  return run(inv);
}

}  // namespace mmvlog::cmd

int main(int argc, char** argv) {
  // A reader that goes away (mmvlog replay ... | head) is an EPIPE to handle,
  // not a signal that kills mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  const int rc = mmvlog::cmd::RunCommandLine(std::vector<std::string>(argv + 1, argv + argc));
  return mmvlog::cmd::FinishStandardOutput(argc > 1 && argv[1][0] != '-' ? argv[1] : "", rc);
}

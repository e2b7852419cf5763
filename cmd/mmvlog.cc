// mmvlog: records PCP MMV metrics into PCP archives, with no PCP daemon.
// main() picks the subcommand, parses only that subcommand's flags' usage,
// and calls its entry point.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/internal/program_name.h"
#include "absl/flags/internal/usage.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "cmd/subcommand.h"

namespace mmvlog::cmd {
namespace {

const Subcommand kSubcommands[] = {
    {"replay", "replay [FLAGS] ARCHIVE... [METRIC-OR-GLOB...]",
     "analyse archives (ours or PCP's): summary, --dump, --csv, --json, --stats, --plot",
     RunReplay, "cmd/output_flags.cc,cmd/interval_flag.cc"},
    {"check", "check [--repair] ARCHIVE...",
     "validate archives like pmlogcheck; --repair fixes what a crash leaves", RunCheck},
    {"inspect", "inspect [--json] FILE",
     "print an MMV file: header, indoms, metrics, help, labels, values",
     RunInspect, "cmd/output_flags.cc"},
    {"record", "record [FLAGS] [MMVFILE...]",
     "the recording daemon: MMV files into daily PCP archives until stopped",
     RunRecord, "cmd/recording_flags.cc,cmd/interval_flag.cc"},
    {"capture", "capture -o ARCHIVE [FLAGS] [MMVFILE...] [-- COMMAND ARGS...]",
     "record MMV metrics into an archive once, for a while, or while a command runs",
     RunCapture, "cmd/recording_flags.cc,cmd/interval_flag.cc"},
    {"demo", "demo [--dir DIR] [--steps N]",
     "a built-in simulated MMV application, recorded and replayed (no PCP needed)",
     RunDemo},
};

void PrintOverview(FILE* out) {
  std::fprintf(out,
               "mmvlog: record PCP MMV metrics into PCP archives, no pmcd "
               "needed\n\nusage: mmvlog COMMAND [FLAGS] [ARGS]\n\n"
               "commands:\n");
  for (const Subcommand& s : kSubcommands) {
    std::fprintf(out, "  %-10s %s\n", s.name, s.summary);
  }
  std::fprintf(out,
               "\n'mmvlog COMMAND --help' lists a command's flags with "
               "their defaults.\n");
}

}  // namespace
}  // namespace mmvlog::cmd

namespace mmvlog::cmd {
namespace {

int Run(int argc, char** argv) {
  if (argc < 2 || absl::string_view(argv[1]) == "--help" ||
      absl::string_view(argv[1]) == "-h" ||
      absl::string_view(argv[1]) == "help") {
    if (argc >= 3 && absl::string_view(argv[1]) == "help") {
      // "mmvlog help inspect" == "mmvlog inspect --help"
      std::vector<char*> args = {argv[0], argv[2], const_cast<char*>("--help")};
      return Run(3, args.data());
    }
    mmvlog::cmd::PrintOverview(argc < 2 ? stderr : stdout);
    return argc < 2 ? mmvlog::cmd::kExitUsage : mmvlog::cmd::kExitOk;
  }
  const std::string name = argv[1];
  const mmvlog::cmd::Subcommand* sub = nullptr;
  for (const auto& s : kSubcommands) {
    if (name == s.name) sub = &s;
  }
  if (sub == nullptr) {
    std::fprintf(stderr,
                 "mmvlog: unknown command '%s'; run 'mmvlog --help' for the "
                 "list\n",
                 name.c_str());
    return mmvlog::cmd::kExitUsage;
  }
  // --help shows only this subcommand's flags (those defined in its file).
  const std::string file = absl::StrCat("cmd/", sub->name, ".cc");
  const std::string shared = sub->shared_flags_file ? sub->shared_flags_file : "";
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [file, shared](absl::string_view f) {
    if (absl::EndsWith(f, file)) return true;
    for (absl::string_view s : absl::StrSplit(shared, ',', absl::SkipEmpty())) {
      if (absl::EndsWith(f, s)) return true;
    }
    return false;
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  config.normalize_filename = [](absl::string_view f) { return std::string(f); };
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(absl::StrCat(
      "mmvlog ", sub->usage, "\n\n", sub->summary, "\n\nflags (default in parentheses):"));

  // Everything after "--" is a command to run, never flags; "-o X" is the
  // short form of --output.
  std::vector<char*> sub_argv;
  mmvlog::cmd::Invocation inv;
  sub_argv.push_back(argv[0]);
  static char kOutput[] = "--output";
  bool help = false;
  for (int i = 2; i < argc; ++i) {
    if (absl::string_view(argv[i]) == "--") {
      for (int j = i + 1; j < argc; ++j) inv.command.push_back(argv[j]);
      break;
    }
    if (absl::string_view(argv[i]) == "--help" || absl::string_view(argv[i]) == "-h") help = true;
    sub_argv.push_back(absl::string_view(argv[i]) == "-o" ? kOutput : argv[i]);
  }
  if (help) {
    // What absl's --help prints, but with exit status 0 (absl exits 1).
    absl::flags_internal::SetProgramInvocationName(argv[0]);
    absl::flags_internal::SetFlagsHelpMode(absl::flags_internal::HelpMode::kImportant);
    absl::flags_internal::HandleUsageFlags(std::cout, absl::ProgramUsageMessage());
    std::cout.flush();
    return mmvlog::cmd::kExitOk;
  }
  // absl's flags are global to the binary: refuse another subcommand's
  // (they would be accepted and silently ignored). Unknown flags and absl's
  // own are left to ParseCommandLine.
  for (size_t i = 1; i < sub_argv.size(); ++i) {
    absl::string_view name = sub_argv[i];
    if (!absl::ConsumePrefix(&name, "--") && !absl::ConsumePrefix(&name, "-")) continue;
    name = name.substr(0, name.find('='));
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr && absl::StartsWith(name, "no")) {  // --nofoo: --foo=false
      flag = absl::FindCommandLineFlag(name.substr(2));
    }
    if (flag == nullptr || !absl::StartsWith(flag->Filename(), "cmd/") ||
        config.contains_help_flags(flag->Filename())) {
      continue;
    }
    std::fprintf(stderr, "mmvlog %s: --%s is not a flag of '%s'; 'mmvlog %s --help' lists its flags\n",
                 sub->name, std::string(name).c_str(), sub->name, sub->name);
    return mmvlog::cmd::kExitUsage;
  }
  std::vector<char*> rest = absl::ParseCommandLine(
      static_cast<int>(sub_argv.size()), sub_argv.data());
  inv.args.assign(rest.begin() + 1, rest.end());
  return sub->run(inv);
}

}  // namespace
}  // namespace mmvlog::cmd

int main(int argc, char** argv) { return mmvlog::cmd::Run(argc, argv); }

// recover_tool ARCHIVE: runs archiver::RecoverArchive and prints what it did
// (for crash tests that drive the real binary and real pmlogcheck).
#include <cstdio>

#include "archiver/store/recovery.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: recover_tool ARCHIVE\n");
    return 2;
  }
  mmvlog::archiver::RecoveryReport report;
  absl::Status s = mmvlog::archiver::RecoverArchive(argv[1], false, &report);
  for (const auto& a : report.actions) std::printf("%s\n", a.c_str());
  if (!s.ok()) {
    std::fprintf(stderr, "recover_tool: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}

// mmvlog demo: runs a built-in simulated application that writes an MMV file
// with mmvlog's own writer, then shows what mmvlog reads from it. Needs no
// PCP installation.
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cmd/demo_app.h"
#include "cmd/subcommand.h"

ABSL_FLAG(std::string, dir, "",
          "directory for the demo's files (default: a new /tmp/mmvlog-demo-XXXXXX)");
ABSL_FLAG(int, steps, 5, "simulation steps to run before showing the file");

namespace mmvlog::cmd {

int RunDemo(const Invocation& inv) {
  if (!inv.args.empty()) {
    std::fprintf(stderr, "mmvlog demo: takes no arguments (try --dir, --steps)\n");
    return kExitUsage;
  }
  std::string dir = absl::GetFlag(FLAGS_dir);
  if (dir.empty()) {
    char tmpl[] = "/tmp/mmvlog-demo-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) {
      std::perror("mmvlog demo: mkdtemp");
      return kExitFailure;
    }
    dir = tmpl;
  } else if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "mmvlog demo: cannot create %s: %s\n", dir.c_str(),
                 std::strerror(errno));
    return kExitFailure;
  }
  const std::string mmv_dir = absl::StrCat(dir, "/mmv");
  if (::mkdir(mmv_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "mmvlog demo: cannot create %s: %s\n", mmv_dir.c_str(),
                 std::strerror(errno));
    return kExitFailure;
  }
  absl::StatusOr<std::unique_ptr<DemoApp>> app = DemoApp::Start(mmv_dir, "demo");
  if (!app.ok()) {
    std::fprintf(stderr, "mmvlog demo: %s\n", app.status().ToString().c_str());
    return kExitFailure;
  }
  const int steps = absl::GetFlag(FLAGS_steps);
  std::printf("demo: simulated application writing %s (%d steps)\n",
              (*app)->path().c_str(), steps);
  for (int i = 1; i < steps; ++i) {
    absl::SleepFor(absl::Milliseconds(100));
    (*app)->Step();
  }
  std::printf("demo: what mmvlog reads from it (mmvlog inspect %s):\n\n",
              (*app)->path().c_str());
  std::fflush(stdout);
  int rc = RunInspect(Invocation{{(*app)->path()}, {}});
  std::printf("\ndemo: files are in %s\n", dir.c_str());
  return rc;
}

}  // namespace mmvlog::cmd

// mmvlog demo: runs a built-in simulated application that writes an MMV file
// with mmvlog's own writer, then shows what mmvlog reads from it. Needs no
// PCP installation.
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "archiver/session/host_identity.h"
#include "archiver/schedule/record_loop.h"
#include "archiver/record/recorder.h"
#include "cmd/demo_app.h"
#include "cmd/cli.h"
#include "cmd/subcommand.h"

namespace mmvlog::cmd {
namespace {

struct DemoFlags {
  std::string dir;
  int steps = 12;
};

int RunDemo(const DemoFlags& f, const Invocation& inv) {
  if (!inv.command.empty()) return UsageError("demo", "takes no command (try --dir, --steps)");
  std::string dir = f.dir;
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
  const int steps = f.steps;
  std::printf("demo: a simulated application writes %s\n", (*app)->path().c_str());
  std::printf("demo: its MMV file as mmvlog reads it (mmvlog inspect %s):\n\n",
              (*app)->path().c_str());
  std::fflush(stdout);
  if (int rc = RunCommandLine({"inspect", (*app)->path()}); rc != kExitOk) return rc;

  // Record it for a few seconds while the application keeps updating.
  const std::string archive = absl::StrCat(dir, "/archive");
  archiver::RecorderOptions opts;
  opts.mmv_dir = mmv_dir;
  opts.archive_base = archive;
  opts.archive.pid = static_cast<int32_t>(::getpid());
  opts.host = archiver::LocalHostIdentity();
  archiver::Recorder recorder(opts, [](archiver::LogLevel, const std::string&) {});
  archiver::LoopLimits limits;
  limits.interval = absl::Milliseconds(250);
  limits.samples = steps;
  archiver::LoopHooks hooks;
  hooks.now = [] { return absl::Now(); };
  hooks.wait_until = [&](absl::Time deadline) {
    absl::SleepFor(deadline - absl::Now());
    (*app)->Step();
  };
  archiver::LoopStats stats;
  std::printf("\ndemo: recording %d samples every 250 ms into %s ...\n", steps, archive.c_str());
  std::fflush(stdout);
  absl::Status s = archiver::RunRecordLoop(recorder, limits, hooks, &stats);
  if (absl::Status c = recorder.Close(); s.ok()) s = c;
  if (!s.ok()) {
    std::fprintf(stderr, "mmvlog demo: recording failed: %s\n", s.ToString().c_str());
    return kExitFailure;
  }
  std::printf("demo: %llu samples, %llu values, %llu bytes\n\n",
              static_cast<unsigned long long>(recorder.stats().samples),
              static_cast<unsigned long long>(recorder.stats().values),
              static_cast<unsigned long long>(recorder.bytes_written()));
  std::printf("demo: the archive's summary (mmvlog replay %s):\n\n", archive.c_str());
  std::fflush(stdout);
  if (int rc = RunCommandLine({"replay", archive}); rc != kExitOk) return rc;
  std::printf("\ndemo: request rates and CPU as CSV (mmvlog replay --csv %s "
              "mmv.demo.requests.total mmv.demo.cpu.util):\n\n", archive.c_str());
  std::fflush(stdout);
  int rc = RunCommandLine(
      {"replay", "--csv", "-a", archive, "mmv.demo.requests.total", "mmv.demo.cpu.util"});
  if (rc != kExitOk) return rc;
  const std::string svg = absl::StrCat(dir, "/requests.svg");
  const std::string html = absl::StrCat(dir, "/demo.html");
  rc = RunCommandLine({"replay", "--plot", svg, "-a", archive, "mmv.demo.requests.total"});
  if (rc != kExitOk) return rc;
  rc = RunCommandLine({"replay", "--html", html, "-a", archive});
  if (rc != kExitOk) return rc;
  std::printf("\ndemo: files:\n  MMV file: %s\n  archive:  %s.meta, .index, .0 (any PCP tool reads "
              "it: pmdumplog -a %s)\n  plot:     %s\n  charts:   %s (interactive; open either in "
              "a browser)\n",
              (*app)->path().c_str(), archive.c_str(), archive.c_str(), svg.c_str(), html.c_str());
  return kExitOk;
}

}  // namespace

Runner DefineDemo(CLI::App* app) {
  auto f = std::make_shared<DemoFlags>();
  app->add_option("--dir", f->dir,
                  "directory for the demo's files (default: a new /tmp/mmvlog-demo-XXXXXX)")
      ->type_name("DIR")
      ->group("Demo");
  app->add_option("--steps", f->steps, "samples to record, one every 250 ms")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000))
      ->group("Demo");
  return [f](const Invocation& inv) { return RunDemo(*f, inv); };
}

}  // namespace mmvlog::cmd

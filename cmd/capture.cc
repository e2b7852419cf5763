// mmvlog capture -o ARCHIVE: a one-shot capture of MMV metrics into a PCP
// archive: one sample by default, --samples/--interval/--duration, or for as
// long as a command runs (mmvlog capture -o A -- COMMAND ARGS...), in which
// case mmvlog exits with the command's status.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "archiver/recorder.h"
#include "archiver/record_loop.h"
#include "cmd/common.h"
#include "cmd/subcommand.h"

ABSL_FLAG(std::string, output, "",
          "archive to write (base name: creates BASE.meta, BASE.index, BASE.0); "
          "also -o");
ABSL_FLAG(std::string, mmv_dir, "",
          "directory of MMV files to record (default: $PCP_TMP_DIR/mmv, as PCP)");
ABSL_FLAG(bool, no_dir, false, "record only the MMV files named as arguments");
ABSL_FLAG(int64_t, samples, 0,
          "samples to take (default: 1, or until the command exits, or for --duration)");
ABSL_FLAG(std::string, interval, "1sec", "time between samples, PCP syntax (10sec, 250msec, 1 min)");
ABSL_FLAG(std::string, duration, "", "record for this long (PCP interval syntax)");
ABSL_FLAG(int, archive_version, 3, "PCP archive version, 3 (PCP >= 6.2 default) or 2 (older readers)");
ABSL_FLAG(std::string, prefix, "mmv", "first component of metric names (pmdammv's prefix)");
ABSL_FLAG(bool, progress, true, "show a progress line when stderr is a terminal");

namespace mmvlog::cmd {
namespace {

int Fail(const std::string& what) {
  std::fprintf(stderr, "mmvlog capture: %s\n", what.c_str());
  return kExitFailure;
}

}  // namespace

int RunCapture(const Invocation& inv) {
  const std::string output = absl::GetFlag(FLAGS_output);
  if (output.empty()) {
    std::fprintf(stderr, "mmvlog capture: say where to write: -o ARCHIVE (e.g. -o /tmp/run1)\n");
    return kExitUsage;
  }
  absl::StatusOr<absl::Duration> interval = ParsePcpInterval(absl::GetFlag(FLAGS_interval));
  if (!interval.ok()) {
    std::fprintf(stderr, "mmvlog capture: --interval: %s\n",
                 std::string(interval.status().message()).c_str());
    return kExitUsage;
  }
  absl::Duration duration = absl::InfiniteDuration();
  if (!absl::GetFlag(FLAGS_duration).empty()) {
    absl::StatusOr<absl::Duration> d = ParsePcpInterval(absl::GetFlag(FLAGS_duration));
    if (!d.ok()) {
      std::fprintf(stderr, "mmvlog capture: --duration: %s\n", std::string(d.status().message()).c_str());
      return kExitUsage;
    }
    duration = *d;
  }
  const int version = absl::GetFlag(FLAGS_archive_version);
  if (version != 2 && version != 3) {
    std::fprintf(stderr, "mmvlog capture: --archive_version must be 2 or 3\n");
    return kExitUsage;
  }
  int64_t samples = absl::GetFlag(FLAGS_samples);
  if (samples < 0) {
    std::fprintf(stderr, "mmvlog capture: --samples must be positive\n");
    return kExitUsage;
  }
  const bool has_command = !inv.command.empty();
  if (samples == 0 && !has_command && duration == absl::InfiniteDuration()) samples = 1;

  archiver::RecorderOptions opts;
  if (!absl::GetFlag(FLAGS_no_dir)) {
    opts.mmv_dir = absl::GetFlag(FLAGS_mmv_dir).empty() ? DefaultMmvDir() : absl::GetFlag(FLAGS_mmv_dir);
  }
  opts.files = inv.args;
  opts.mapping.prefix = absl::GetFlag(FLAGS_prefix);
  opts.archive_base = output;
  opts.archive.version = version;
  opts.archive.pid = static_cast<int32_t>(::getpid());
  opts.host = archiver::LocalHostIdentity();
  archiver::Recorder recorder(opts, LogLine);
  InstallStopSignals();

  pid_t child = -1;
  if (has_command) {
    child = ::fork();
    if (child < 0) return Fail(absl::StrCat("fork: ", std::strerror(errno)));
    if (child == 0) {
      std::vector<char*> argv;
      for (const std::string& a : inv.command) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      std::fprintf(stderr, "mmvlog capture: cannot run %s: %s\n", argv[0], std::strerror(errno));
      ::_exit(127);
    }
  }
  const bool progress = absl::GetFlag(FLAGS_progress) && ::isatty(2);
  const absl::Time start = absl::Now();
  int child_status = -1;
  archiver::LoopHooks hooks;
  hooks.now = [] { return absl::Now(); };
  hooks.wait_until = [&](absl::Time deadline) {
    // With a command running, wake often enough to notice it exit.
    if (child > 0 && child_status < 0) {
      deadline = std::min(deadline, absl::Now() + absl::Milliseconds(20));
    }
    (void)SleepUntil(deadline);
  };
  hooks.poll = [&] {
    if (g_stop.load()) return archiver::LoopEvent::kStop;
    if (g_new_volume.exchange(false)) return archiver::LoopEvent::kNewVolume;
    if (child > 0 && child_status < 0) {
      int st;
      if (::waitpid(child, &st, WNOHANG) == child) {
        child_status = st;
        return archiver::LoopEvent::kFinalSample;
      }
    }
    return archiver::LoopEvent::kNone;
  };
  hooks.on_sample = [&] {
    if (!progress) return;
    std::fprintf(stderr, "\rcapturing %s: %llu samples, %llu values, %s   ", output.c_str(),
                 static_cast<unsigned long long>(recorder.stats().samples),
                 static_cast<unsigned long long>(recorder.stats().values),
                 absl::FormatDuration(absl::Trunc(absl::Now() - start, absl::Seconds(1))).c_str());
  };
  archiver::LoopLimits limits;
  limits.interval = *interval;
  limits.samples = samples;
  limits.duration = duration;
  archiver::LoopStats loop_stats;
  absl::Status status = archiver::RunRecordLoop(recorder, limits, hooks, &loop_stats);
  if (progress) std::fputc('\n', stderr);
  absl::Status closed = recorder.Close();
  if (status.ok()) status = closed;
  if (child > 0 && child_status < 0) {
    // Stopped by a signal or an error: wait for the command to finish.
    (void)::waitpid(child, &child_status, 0);
  }
  if (!status.ok()) return Fail(status.ToString());
  const auto& st = recorder.stats();
  std::printf("archive %s: %llu samples, %zu metrics, %llu values, %llu marks, %llu bytes\n",
              recorder.archives().empty() ? output.c_str() : recorder.archives().back().c_str(),
              static_cast<unsigned long long>(st.samples), recorder.metrics(),
              static_cast<unsigned long long>(st.values), static_cast<unsigned long long>(st.marks),
              static_cast<unsigned long long>(recorder.bytes_written()));
  if (child > 0) {
    if (WIFEXITED(child_status)) return WEXITSTATUS(child_status);
    if (WIFSIGNALED(child_status)) return 128 + WTERMSIG(child_status);
  }
  return kExitOk;
}

}  // namespace mmvlog::cmd

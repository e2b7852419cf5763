// mmvlog capture ARCHIVE: a one-shot capture of MMV metrics into a PCP
// archive: one sample by default, pmlogger's -t/-s/-T limits, or for as long
// as a command runs (mmvlog capture A -- COMMAND ARGS...), in which case
// mmvlog exits with the command's status.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "archiver/record/mmv_source.h"
#include "archiver/record/recorder.h"
#include "archiver/record/recording.h"
#include "archiver/record/record_loop.h"
#include "cmd/cli.h"
#include "cmd/common.h"
#include "cmd/recording_options.h"
#include "cmd/subcommand.h"

namespace mmvlog::cmd {
namespace {

int Fail(const std::string& what) {
  std::fprintf(stderr, "mmvlog capture: %s\n", what.c_str());
  return kExitFailure;
}

struct CaptureFlags {
  RecordingFlags common;
  std::string output;  // -o: the archive, when not given as the last argument
};

int RunCapture(CaptureFlags& f, const Invocation& inv) {
  absl::StatusOr<RecordingSetup> setup = RecordingFromFlags(f.common, absl::Now());
  if (!setup.ok()) return UsageError("capture", setup.status().message());
  if (setup->check_only) return CheckConfiguration(*setup);
  std::string output = f.output;
  if (!setup->archive.empty()) {
    if (!output.empty()) {
      // With -o, every argument is an MMV file: this one does not exist.
      return UsageError("capture", absl::StrCat("cannot read MMV file ", setup->archive,
                                                ": no such file (the archive is -o ", output,
                                                ")"));
    }
    output = setup->archive;
  }
  if (output.empty()) {
    return UsageError("capture",
                      "say where to write: the archive as the last argument (mmvlog capture "
                      "/tmp/run1) or -o ARCHIVE");
  }
  if (!f.common.log_file.empty()) {
    if (absl::Status s = SetLogFile(f.common.log_file); !s.ok()) return Fail(std::string(s.message()));
  }
  // Refuse before writing anything: an existing archive (or any file of
  // one) is never overwritten, and a named MMV file must be readable as one.
  for (const char* ext : {".meta", ".index", ".0", ".0.zst"}) {
    struct stat st;
    const std::string path = absl::StrCat(output, ext);
    if (::lstat(path.c_str(), &st) == 0) {
      return Fail(absl::StrCat("archive ", output, " already exists (", path,
                               "); capture never overwrites: choose another -o or remove it"));
    }
  }
  for (const std::string& file : setup->recorder.files) {
    absl::StatusOr<archiver::MmvSnapshot> snap = archiver::MmvSource(file).Snapshot();
    if (!snap.ok()) {
      return Fail(absl::StrCat("cannot read MMV file ", snap.status().message()));
    }
  }
  const bool has_command = !inv.command.empty();
  if (setup->limits.samples == 0 && !has_command && setup->watch_pid == 0 &&
      setup->limits.max_bytes == 0 && setup->limits.until == absl::InfiniteFuture() &&
      setup->limits.duration == absl::InfiniteDuration()) {
    setup->limits.ticks = 1;  // one-shot by default: every group once
  }
  archiver::RecorderOptions opts = setup->recorder;
  opts.archive_base = output;
  // The first error the recorder logged (a write that failed): what lost
  // samples are put down to in the last words.
  std::string first_error;
  // The MMV directory watched, the waits on it: as record records
  // (archiver/record/recording.h).
  archiver::Recording recording(opts, [&first_error](archiver::LogLevel level,
                                                     const std::string& line) {
    if (level == archiver::LogLevel::kError && first_error.empty()) first_error = line;
    LogLine(level, line);
  });
  archiver::Recorder& recorder = recording.recorder();
  if (absl::Status s = BecomeUser(*setup, recorder); !s.ok()) return Fail(std::string(s.message()));
  InstallStopSignals();

  pid_t child = -1;
  if (has_command) {
    child = ::fork();
    if (child < 0) return Fail(absl::StrCat("fork: ", std::strerror(errno)));
    if (child == 0) {
      ::signal(SIGPIPE, SIG_DFL);  // mmvlog ignores it; the command should not
      std::vector<char*> argv;
      for (const std::string& a : inv.command) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      std::fprintf(stderr, "mmvlog capture: cannot run %s: %s\n", argv[0], std::strerror(errno));
      ::_exit(127);
    }
  }
  const bool progress = setup->progress;
  const absl::Time start = absl::Now();
  int child_status = -1;
  archiver::LoopHooks hooks;
  hooks.now = [] { return absl::Now(); };
  // With a command running, wake often enough to notice it exit.
  recording.SetWaits(
      &hooks, setup->limits, [](absl::Time deadline) { (void)SleepUntil(deadline); },
      [&] {
        return child > 0 && child_status < 0 ? absl::Milliseconds(20) : absl::InfiniteDuration();
      });
  hooks.poll = [&] {
    if (g_stop.load()) return archiver::LoopEvent::kStop;
    if (g_new_volume.exchange(false)) return archiver::LoopEvent::kNewVolume;
    if (setup->watch_pid > 0 && ProcessGone(setup->watch_pid)) {
      return archiver::LoopEvent::kFinalSample;  // -p: its last values, then stop
    }
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
  archiver::LoopLimits limits = setup->limits;
  archiver::LoopStats loop_stats;
  absl::Status status = archiver::RunRecordLoop(recorder, limits, hooks, &loop_stats);
  if (progress) std::fputc('\n', stderr);
  absl::Status closed = recorder.Close();
  if (status.ok()) status = closed;
  if (child > 0 && child_status < 0) {
    // Stopped by a signal or an error: wait for the command to finish.
    (void)::waitpid(child, &child_status, 0);
  }
  // With a command, its exit status is ours, whatever was recorded.
  auto command_status = [&](int otherwise) {
    if (child > 0 && WIFEXITED(child_status)) return WEXITSTATUS(child_status);
    if (child > 0 && WIFSIGNALED(child_status)) return 128 + WTERMSIG(child_status);
    return otherwise;
  };
  const auto& st = recorder.stats();
  const std::string archive =
      recorder.archives().empty() ? output : recorder.archives().back();
  // Samples the archive could not take (a full disk, EDQUOT, EFBIG, EIO:
  // the recorder drops them and tries again each tick). A one-shot job must
  // know its capture is incomplete: exit 1 (or the command's failure), and
  // say how many of how many, and why.
  const uint64_t lost = st.dropped;
  auto lost_words = [&] {
    std::string why = first_error;
    if (const size_t cut = why.find("; samples are dropped"); cut != std::string::npos) {
      why.resize(cut);
    }
    return absl::StrCat("lost ", lost, " of ", lost + st.samples, " samples",
                        why.empty() ? "" : absl::StrCat(" (", why, ")"));
  };
  // With a command, its failure is kept; its success does not hide a loss.
  auto lost_status = [&] {
    const int command = command_status(kExitFailure);
    return command == kExitOk ? kExitFailure : command;
  };
  if (!status.ok() || st.samples == 0) {
    // Nothing recorded: leave no empty or partial archive behind (the
    // check above showed none of these files existed before). An archive
    // with no result is one PCP's tools refuse to open.
    if (st.samples == 0) {
      for (const char* ext : {".meta", ".index", ".0"}) ::unlink(absl::StrCat(output, ext).c_str());
    }
    if (!status.ok()) {
      Fail(absl::StrCat(status.message(), "; ",
                        st.samples == 0 ? "no archive written"
                                        : absl::StrCat(archive, " holds ", st.samples, " samples"),
                        lost > 0 ? absl::StrCat(", ", lost_words()) : ""));
      return kExitFailure;
    }
    if (lost > 0) {
      Fail(absl::StrCat(lost_words(), "; no archive written"));
      return lost_status();
    }
    Fail(absl::StrCat("nothing recorded: no MMV metrics in ",
                      opts.mmv_dir.empty() ? "the files named" : opts.mmv_dir,
                      opts.mmv_dir.empty() || opts.files.empty() ? "" : " or the files named",
                      "; no archive written"));
    return command_status(kExitFailure);
  }
  std::printf("archive %s: %llu samples, %zu metrics, %llu values, %llu marks, %llu bytes\n",
              archive.c_str(), static_cast<unsigned long long>(st.samples), recorder.metrics(),
              static_cast<unsigned long long>(st.values), static_cast<unsigned long long>(st.marks),
              static_cast<unsigned long long>(recorder.bytes_written()));
  // How well the schedule held (stdout keeps the one summary line).
  LogLine(archiver::LogLevel::kInfo, absl::StrCat("schedule: ", loop_stats.Summary()));
  if (lost > 0) {
    std::fflush(stdout);
    Fail(absl::StrCat(lost_words(), "; ", archive, " holds the other ", st.samples));
    return lost_status();
  }
  return command_status(kExitOk);
}

}  // namespace

Runner DefineCapture(CLI::App* app) {
  auto f = std::make_shared<CaptureFlags>();
  AddRecordingOptions(app, &f->common);
  app->add_option("-o,--output", f->output,
                  "the archive to write (base name: BASE.meta, BASE.index, BASE.0), when not "
                  "given as the last argument; then every argument is an MMV file")
      ->type_name("ARCHIVE")
      ->group("Archive");
  return [f](const Invocation& inv) { return RunCapture(*f, inv); };
}

}  // namespace mmvlog::cmd

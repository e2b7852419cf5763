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
#include "archiver/file/posix_file.h"
#include "archiver/mmv/mmv_source.h"
#include "archiver/record/recorder.h"
#include "archiver/record/recording.h"
#include "archiver/schedule/record_loop.h"
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

// The archive to write: -o's or the last argument. Errors are usage errors
// (InvalidArgument) except an archive that exists already (AlreadyExists):
// capture never overwrites.
absl::StatusOr<std::string> OutputOf(const CaptureFlags& f, const RecordingSetup& setup) {
  std::string output = f.output;
  if (!setup.archive.empty()) {
    if (!output.empty()) {
      // With -o, every argument is an MMV file: this one does not exist.
      return absl::InvalidArgumentError(absl::StrCat("cannot read MMV file ", setup.archive,
                                                     ": no such file (the archive is -o ", output,
                                                     ")"));
    }
    output = setup.archive;
  }
  if (output.empty()) {
    return absl::InvalidArgumentError(
        "say where to write: the archive as the last argument (mmvlog capture /tmp/run1) or -o "
        "ARCHIVE");
  }
  for (const char* ext : {".meta", ".index", ".0", ".0.zst", ".0.xz"}) {
    struct stat st;
    const std::string path = absl::StrCat(output, ext);
    if (::lstat(path.c_str(), &st) == 0) {
      return absl::AlreadyExistsError(absl::StrCat(
          "archive ", output, " already exists (", path,
          "); capture never overwrites: choose another -o or remove it"));
    }
  }
  return output;
}

// Runs `command` (the child's SIGPIPE back to its default); its pid.
absl::StatusOr<pid_t> StartCommand(const std::vector<std::string>& command) {
  const pid_t child = ::fork();
  if (child < 0) return absl::ErrnoToStatus(errno, "fork");
  if (child == 0) {
    ::signal(SIGPIPE, SIG_DFL);  // mmvlog ignores it; the command should not
    archiver::RestoreOpenFileLimit();  // as the command would have had it
    std::vector<char*> argv;
    for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "mmvlog capture: cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  return child;
}

// One capture's run: the recording, the command it runs beside, and what
// its exit status says.
class Capture {
 public:
  Capture(RecordingSetup& setup, std::string output, bool has_command)
      : setup_(setup), output_(std::move(output)), has_command_(has_command) {}

  int Run(const std::vector<std::string>& command);

 private:
  void SetHooks(archiver::LoopHooks* hooks, archiver::Recording& recording);
  int CommandStatus(int otherwise) const;
  int LastWords(const absl::Status& status, const archiver::Recorder& recorder,
                const archiver::LoopStats& loop_stats);

  RecordingSetup& setup_;
  const std::string output_;
  const bool has_command_;
  pid_t child_ = -1;
  int child_status_ = -1;
  // The first error the recorder logged (a write that failed): what lost
  // samples are put down to in the last words.
  std::string first_error_;
};

int Capture::Run(const std::vector<std::string>& command) {
  if (setup_.limits.samples == 0 && !has_command_ && setup_.watch_pid == 0 &&
      setup_.limits.max_bytes == 0 && setup_.limits.until == absl::InfiniteFuture() &&
      setup_.limits.duration == absl::InfiniteDuration()) {
    setup_.limits.ticks = 1;  // one-shot by default: every group once
  }
  archiver::RecorderOptions opts = setup_.recorder;
  opts.archive_base = output_;
  // The MMV directory watched, the waits on it: as record records
  // (archiver/record/recording.h).
  archiver::Recording recording(opts, [this](archiver::LogLevel level, const std::string& line) {
    if (level == archiver::LogLevel::kError && first_error_.empty()) first_error_ = line;
    LogLine(level, line);
  });
  archiver::Recorder& recorder = recording.recorder();
  if (absl::Status s = BecomeUser(setup_, recorder); !s.ok()) return Fail(std::string(s.message()));
  InstallStopSignals();
  if (has_command_) {
    absl::StatusOr<pid_t> child = StartCommand(command);
    if (!child.ok()) return Fail(std::string(child.status().message()));
    child_ = *child;
  }
  archiver::LoopHooks hooks;
  SetHooks(&hooks, recording);
  archiver::LoopStats loop_stats;
  absl::Status status = archiver::RunRecordLoop(recorder, setup_.limits, hooks, &loop_stats);
  if (setup_.progress) std::fputc('\n', stderr);
  absl::Status closed = recorder.Close();
  if (status.ok()) status = closed;
  if (child_ > 0 && child_status_ < 0) {
    // Stopped by a signal or an error: wait for the command to finish.
    (void)::waitpid(child_, &child_status_, 0);
  }
  return LastWords(status, recorder, loop_stats);
}

void Capture::SetHooks(archiver::LoopHooks* hooks, archiver::Recording& recording) {
  hooks->now = [] { return absl::Now(); };
  // With a command running, wake often enough to notice it exit.
  recording.SetWaits(
      hooks, setup_.limits, [](absl::Time deadline) { (void)SleepUntil(deadline); },
      [this] {
        return child_ > 0 && child_status_ < 0 ? absl::Milliseconds(20) : absl::InfiniteDuration();
      });
  hooks->poll = [this] {
    if (g_stop.load()) return archiver::LoopEvent::kStop;
    if (g_new_volume.exchange(false)) return archiver::LoopEvent::kNewVolume;
    if (setup_.watch_pid > 0 && ProcessGone(setup_.watch_pid)) {
      return archiver::LoopEvent::kFinalSample;  // -p: its last values, then stop
    }
    if (child_ > 0 && child_status_ < 0) {
      int st;
      if (::waitpid(child_, &st, WNOHANG) == child_) {
        child_status_ = st;
        return archiver::LoopEvent::kFinalSample;
      }
    }
    return archiver::LoopEvent::kNone;
  };
  if (!setup_.progress) return;
  const absl::Time start = absl::Now();
  archiver::Recorder* recorder = &recording.recorder();
  hooks->on_sample = [this, start, recorder] {
    std::fprintf(stderr, "\rcapturing %s: %llu samples, %llu values, %s   ", output_.c_str(),
                 static_cast<unsigned long long>(recorder->stats().samples),
                 static_cast<unsigned long long>(recorder->stats().values),
                 absl::FormatDuration(absl::Trunc(absl::Now() - start, absl::Seconds(1))).c_str());
  };
}

// With a command, its exit status is ours, whatever was recorded.
int Capture::CommandStatus(int otherwise) const {
  if (child_ > 0 && WIFEXITED(child_status_)) return WEXITSTATUS(child_status_);
  if (child_ > 0 && WIFSIGNALED(child_status_)) return 128 + WTERMSIG(child_status_);
  return otherwise;
}

int Capture::LastWords(const absl::Status& status, const archiver::Recorder& recorder,
                       const archiver::LoopStats& loop_stats) {
  const auto& st = recorder.stats();
  const std::string archive = recorder.archives().empty() ? output_ : recorder.archives().back();
  // Samples the archive could not take (a full disk, EDQUOT, EFBIG, EIO:
  // the recorder drops them and tries again each tick). A one-shot job must
  // know its capture is incomplete: exit 1 (or the command's failure), and
  // say how many of how many, and why.
  const uint64_t lost = st.dropped;
  std::string why = first_error_;
  if (const size_t cut = why.find("; samples are dropped"); cut != std::string::npos) why.resize(cut);
  const std::string lost_words = absl::StrCat("lost ", lost, " of ", lost + st.samples, " samples",
                                              why.empty() ? "" : absl::StrCat(" (", why, ")"));
  // With a command, its failure is kept; its success does not hide a loss.
  const int command = CommandStatus(kExitFailure);
  const int lost_status = command == kExitOk ? kExitFailure : command;
  if (!status.ok() || st.samples == 0) {
    // Nothing recorded: leave no empty or partial archive behind (none of
    // these files existed before). PCP's tools refuse an archive with no
    // result.
    if (st.samples == 0) {
      for (const char* ext : {".meta", ".index", ".0"}) ::unlink(absl::StrCat(output_, ext).c_str());
    }
    if (!status.ok()) {
      Fail(absl::StrCat(status.message(), "; ",
                        st.samples == 0 ? "no archive written"
                                        : absl::StrCat(archive, " holds ", st.samples, " samples"),
                        lost > 0 ? absl::StrCat(", ", lost_words) : ""));
      return kExitFailure;
    }
    if (lost > 0) {
      Fail(absl::StrCat(lost_words, "; no archive written"));
      return lost_status;
    }
    const archiver::RecorderOptions& o = setup_.recorder;
    Fail(absl::StrCat("nothing recorded: no MMV metrics in ",
                      o.mmv_dir.empty() ? "the files named" : o.mmv_dir,
                      o.mmv_dir.empty() || o.files.empty() ? "" : " or the files named",
                      "; no archive written"));
    return CommandStatus(kExitFailure);
  }
  std::printf("archive %s: %llu samples, %zu metrics, %llu values, %llu marks, %llu bytes\n",
              archive.c_str(), static_cast<unsigned long long>(st.samples), recorder.metrics(),
              static_cast<unsigned long long>(st.values), static_cast<unsigned long long>(st.marks),
              static_cast<unsigned long long>(recorder.bytes_written()));
  // How well the schedule held (stdout keeps the one summary line).
  LogLine(archiver::LogLevel::kInfo, absl::StrCat("schedule: ", loop_stats.Summary()));
  if (lost > 0) {
    std::fflush(stdout);
    Fail(absl::StrCat(lost_words, "; ", archive, " holds the other ", st.samples));
    return lost_status;
  }
  return CommandStatus(kExitOk);
}

int RunCapture(CaptureFlags& f, const Invocation& inv) {
  absl::StatusOr<RecordingSetup> setup = RecordingFromFlags(f.common, absl::Now());
  if (!setup.ok()) return UsageError("capture", setup.status().message());
  if (setup->check_only) return CheckConfiguration(*setup);
  absl::StatusOr<std::string> output = OutputOf(f, *setup);
  if (absl::IsInvalidArgument(output.status())) return UsageError("capture", output.status().message());
  if (!f.common.log_file.empty()) {
    if (absl::Status s = SetLogFile(f.common.log_file); !s.ok()) return Fail(std::string(s.message()));
  }
  if (!output.ok()) return Fail(std::string(output.status().message()));
  // A named MMV file must be readable as one before anything is written.
  for (const std::string& file : setup->recorder.files) {
    absl::StatusOr<archiver::MmvSnapshot> snap = archiver::MmvSource(file).Snapshot();
    if (!snap.ok()) return Fail(absl::StrCat("cannot read MMV file ", snap.status().message()));
  }
  return Capture(*setup, *output, !inv.command.empty()).Run(inv.command);
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

#include "archiver/daemon/recording_daemon.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "archiver/push/live_pusher.h"
#include "archiver/record/recording.h"
#include "archiver/store/archive_naming.h"
#include "archiver/store/compressor.h"
#include "archiver/store/rotation_policy.h"

namespace mmvlog::archiver {
namespace {

// One daemon run: the parts made at the start, and each step of its life.
class RecordingDaemon {
 public:
  RecordingDaemon(const DaemonOptions& options, const DaemonHooks& hooks, LogFunction log)
      : o_(options), hooks_(hooks), log_(std::move(log)) {}

  // *started: whether recording began.
  absl::Status Run(bool* started);

 private:
  std::string BaseFor(absl::Time t) const {
    return absl::StrCat(o_.dir, "/", ArchiveNameFromTemplate(o_.name_template, t, o_.utc));
  }
  bool Culls() const {
    return o_.retention.max_age != absl::InfiniteDuration() || o_.retention.max_total_bytes > 0;
  }
  void Notify(const absl::Status& s) {
    if (!s.ok()) log_(LogLevel::kWarning, std::string(s.message()));
  }
  absl::Status StartPusher();
  void SetHooks(LoopHooks* hooks);
  LoopEvent Poll();
  void OnSample();
  void Ping(absl::Time t);
  void NewPeriod(absl::Time t);
  LoopEvent Reload();
  void Housekeeping();
  absl::Status Finish(absl::Status status, const LoopStats& stats);

  const DaemonOptions& o_;
  const DaemonHooks& hooks_;
  LogFunction log_;
  std::unique_ptr<Recording> recording_;
  std::unique_ptr<BackgroundCompressor> compressor_;
  std::unique_ptr<LivePusher> pusher_;
  absl::Time next_period_ = absl::InfiniteFuture();
  absl::Time next_ping_ = absl::InfinitePast();
  absl::Time next_status_ = absl::InfinitePast();
};

absl::Status RecordingDaemon::Run(bool* started) {
  absl::StatusOr<ArchiveDirLock> lock = ArchiveDirLock::Acquire(o_.dir, o_.owner);
  if (!lock.ok()) return lock.status();
  if (!o_.pidfile.empty()) {
    if (absl::Status s = WritePidfile(o_.pidfile); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("--pidfile: ", s.message()));
    }
  }
  const absl::Time start = hooks_.now();
  RecorderOptions opts = o_.recorder;
  opts.archive_base = BaseFor(start);
  // A recording is followed as it grows (pmproxy's discovery): its new
  // archives are written so that no result is missed (Recorder::LiveStep);
  // a pushed one is not discovered.
  opts.live = !o_.push.has_value();
  opts.resume = true;  // recovery runs when recording resumes into the same archive
  // The MMV directory watched, the waits on it: as capture records.
  recording_ = std::make_unique<Recording>(opts, log_);
  if (o_.codec != Codec::kNone) {
    compressor_ = std::make_unique<BackgroundCompressor>(o_.codec, o_.compress_level, log_);
  }
  log_(LogLevel::kInfo,
       absl::StrCat("mmvlog record (pid ", ::getpid(), ") every ",
                    absl::FormatDuration(o_.limits.interval), ", MMV files in ",
                    opts.mmv_dir.empty() ? "(none)" : opts.mmv_dir, ", archives in ", o_.dir,
                    o_.note.empty() ? "" : absl::StrCat("; note: ", o_.note)));
  if (absl::Status s = hooks_.become_user(recording_->recorder()); !s.ok()) return s;
  if (o_.period > absl::ZeroDuration() && HasTimeConversions(o_.name_template)) {
    next_period_ = NextPeriodStart(start, o_.period, o_.utc);
  }
  if (absl::Status s = StartPusher(); !s.ok()) return s;
  LoopHooks hooks;
  SetHooks(&hooks);
  if (Culls()) (void)ApplyRetention(o_.dir, o_.retention, start, opts.archive_base, log_);
  Notify(o_.notify.Ready(absl::StrCat("watching ", opts.mmv_dir.empty() ? "(none)" : opts.mmv_dir,
                                      ", recording into ", opts.archive_base)));
  LoopStats stats;
  *started = true;
  absl::Status status = RunRecordLoop(recording_->recorder(), o_.limits, hooks, &stats);
  Notify(o_.notify.Stopping());
  return Finish(std::move(status), stats);
}

absl::Status RecordingDaemon::StartPusher() {
  if (!o_.push) return absl::OkStatus();
  pusher_ = std::make_unique<LivePusher>(*o_.push, log_);
  // The push thread inherits this mask: the signals reach the recording
  // thread's waits, not it.
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  absl::Status s = pusher_->Start();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat("push: ", s.message()));
  log_(LogLevel::kInfo,
       absl::StrCat("pushing to ", o_.push->endpoint.ToString(), " (spool ", o_.push->state_path,
                    ", limit ", o_.push->push.spool_limit, " bytes)"));
  return absl::OkStatus();
}

void RecordingDaemon::SetHooks(LoopHooks* hooks) {
  hooks->now = hooks_.now;
  // The waits end at the next watchdog ping (when there is a watchdog).
  const absl::Duration ping_every = o_.notify.watchdog_every();
  recording_->SetWaits(hooks, o_.limits, hooks_.sleep_until, [this, ping_every] {
    if (ping_every <= absl::ZeroDuration()) return absl::InfiniteDuration();
    return std::max(next_ping_ - hooks_.now(), absl::Milliseconds(1));
  });
  hooks->poll = [this] { return Poll(); };
  hooks->on_sample = [this] { OnSample(); };
}

void RecordingDaemon::Ping(absl::Time t) {
  // Sent from the sampling loop, so a loop that hangs stops it; a wake-up a
  // millisecond early for its ping still pings.
  const absl::Duration every = o_.notify.watchdog_every();
  if (every <= absl::ZeroDuration() || t + absl::Milliseconds(1) < next_ping_) return;
  Notify(o_.notify.Watchdog());
  next_ping_ = t + every;
}

LoopEvent RecordingDaemon::Poll() {
  const absl::Time t = hooks_.now();
  Ping(t);
  if (hooks_.stop_requested()) return LoopEvent::kStop;
  if (o_.watch_pid > 0 && hooks_.process_gone(o_.watch_pid)) {
    log_(LogLevel::kInfo, absl::StrCat("process ", o_.watch_pid, " has exited"));
    return LoopEvent::kFinalSample;
  }
  RotationState period;
  period.now = t;
  period.next_period = next_period_;
  if (DecideRotation(RotationPolicy{}, period) == Rotation::kNewArchive) NewPeriod(t);
  // A reload is a new volume (the loop starts it); after a new archive too.
  if (hooks_.take_reload()) return Reload();
  return LoopEvent::kNone;
}

void RecordingDaemon::NewPeriod(absl::Time t) {
  Recorder& recorder = recording_->recorder();
  const std::string base = BaseFor(t);
  log_(LogLevel::kInfo, absl::StrCat("new period: next archive ", base));
  if (absl::Status s = recorder.StartNewArchive(base); !s.ok()) {
    log_(LogLevel::kError, s.ToString());
  }
  next_period_ = NextPeriodStart(t, o_.period, o_.utc);
  Housekeeping();
  if (Culls()) (void)ApplyRetention(o_.dir, o_.retention, t, base, log_);
}

LoopEvent RecordingDaemon::Reload() {
  Notify(o_.notify.Reloading());
  if (hooks_.reload_plan) {
    // Read the configuration again; a broken one keeps what runs.
    absl::StatusOr<std::shared_ptr<LogPlan>> plan = hooks_.reload_plan();
    if (plan.ok()) {
      recording_->recorder().SetPlan(*plan);
      log_(LogLevel::kInfo, absl::StrCat("SIGHUP: configuration ", o_.config, " read again"));
    } else {
      log_(LogLevel::kError, absl::StrCat("SIGHUP: ", plan.status().message(),
                                          "; the configuration read before stays in force"));
    }
  }
  log_(LogLevel::kInfo, "SIGHUP: new volume");
  Notify(o_.notify.Ready(absl::StrCat("recording into ", recording_->recorder().current_archive())));
  return LoopEvent::kNewVolume;
}

void RecordingDaemon::OnSample() {
  Recorder& recorder = recording_->recorder();
  Housekeeping();
  if (pusher_) pusher_->Follow(recorder.current_archive());
  if (!o_.notify.enabled()) return;
  const absl::Time t = hooks_.now();
  Ping(t);
  if (t < next_status_) return;
  Notify(o_.notify.Status(
      recorder.current_archive().empty()
          ? absl::StrCat("waiting for MMV files in ", o_.recorder.mmv_dir)
          : absl::StrCat(recorder.stats().samples, " samples into ", recorder.current_archive())));
  next_status_ = t + absl::Seconds(1);
}

void RecordingDaemon::Housekeeping() {
  if (!compressor_) return;
  for (std::string& v : recording_->recorder().TakeFinishedVolumes()) {
    compressor_->Enqueue(std::move(v));
  }
}

absl::Status RecordingDaemon::Finish(absl::Status status, const LoopStats& stats) {
  Recorder& recorder = recording_->recorder();
  absl::Status closed = recorder.Close();
  if (status.ok()) status = closed;
  recorder.FinishLive();
  Housekeeping();
  if (pusher_) {
    bool all_sent = false;
    const Pusher::Totals t = pusher_->Stop(absl::Seconds(10), &all_sent);
    log_(all_sent ? LogLevel::kInfo : LogLevel::kWarning,
         absl::StrCat("push: ", t.records, " records sent (", t.bytes, " bytes, ", t.remote_archives,
                      " remote archives, ", t.dropped_records, " given up)",
                      all_sent ? "" : "; the rest waits in the spool for the next run"));
  }
  if (compressor_) compressor_->Drain();
  if (!o_.pidfile.empty()) ::unlink(o_.pidfile.c_str());
  const auto& st = recorder.stats();
  log_(LogLevel::kInfo, absl::StrCat("schedule: ", stats.Summary()));
  log_(status.ok() ? LogLevel::kInfo : LogLevel::kError,
       absl::StrCat(status.ok() ? "stopped: " : absl::StrCat("stopped on error: ", status.message(), ": "),
                    st.samples, " samples, ", st.values, " values, ", st.marks, " marks, ",
                    stats.skipped_ticks, " missed ticks, ", st.dropped, " dropped; last archive ",
                    recorder.current_archive()));
  return status;
}

}  // namespace

absl::Status RunRecordingDaemon(const DaemonOptions& options, const DaemonHooks& hooks,
                                LogFunction log, bool* started) {
  bool began = false;
  absl::Status s = RecordingDaemon(options, hooks, std::move(log)).Run(&began);
  if (started != nullptr) *started = began;
  return s;
}

}  // namespace mmvlog::archiver

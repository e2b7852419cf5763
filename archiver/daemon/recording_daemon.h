// The recording daemon's life (mmvlog record): what runs around the
// Recorder and its loop from start to stop.
//
//   - the archive directory: made with its parents, given to the recording
//     user, locked (one recorder a directory), and the pidfile;
//   - archives named from a strftime(3) template (pmlogger_daily's
//     %Y%m%d.%H.%M by default), a new one each period (at local midnight for
//     a day);
//   - finished volumes compressed on a thread of their own (xz or zstd),
//     old archives culled by age and by the directory's total size;
//   - SIGHUP (a reload): a new volume, the configuration read again;
//   - systemd: READY once the MMV directory is watched, STATUS as samples
//     go, WATCHDOG from the sampling loop at half of WATCHDOG_USEC whatever
//     the interval, RELOADING and STOPPING (archiver/daemon/sd_notify.h);
//   - a push to pmproxy following the archive as it grows;
//   - stop (SIGTERM, -T, -s, -p's process gone): the archive closed, the
//     queue of volumes to compress drained, the pidfile removed.
//
// Signals, sleeping and dropping privileges come in through DaemonHooks,
// so that nothing here reads flags, the environment or argv.
#ifndef MMVLOG_ARCHIVER_DAEMON_RECORDING_DAEMON_H_
#define MMVLOG_ARCHIVER_DAEMON_RECORDING_DAEMON_H_

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "archiver/daemon/archive_dir.h"
#include "archiver/daemon/sd_notify.h"
#include "archiver/push/pusher.h"
#include "archiver/schedule/log_plan.h"
#include "archiver/schedule/record_loop.h"
#include "archiver/record/recorder.h"
#include "archiver/store/compress.h"
#include "archiver/store/log.h"
#include "archiver/store/retention.h"

namespace mmvlog::archiver {

struct DaemonOptions {
  RecorderOptions recorder;  // archive_base is the daemon's to set
  LoopLimits limits;
  std::string dir;            // the archive directory
  std::string name_template;  // strftime(3) conversions: a new archive each period
  absl::Duration period = absl::Hours(24);  // zero: never a new one
  bool utc = false;                         // names and periods in UTC
  Codec codec = Codec::kNone;
  int compress_level = 0;  // 0: the codec's default
  RetentionPolicy retention;
  std::string pidfile;  // "" for none
  std::optional<DirOwner> owner;
  pid_t watch_pid = 0;  // -p: stop once it has exited
  std::string note;     // -m, logged at the start
  std::string config;   // -c's file, named when a reload reads it again
  std::optional<PusherOptions> push;
  SdNotifier notify{"", absl::ZeroDuration()};
};

struct DaemonHooks {
  std::function<absl::Time()> now = [] { return absl::Now(); };
  // Waits until `deadline` or until a signal; returns early freely.
  std::function<void(absl::Time deadline)> sleep_until;
  std::function<bool()> stop_requested = [] { return false; };   // SIGTERM
  std::function<bool()> take_reload = [] { return false; };      // SIGHUP, taken once
  std::function<bool(pid_t)> process_gone = [](pid_t) { return false; };
  // Once the files that need root are open: drop privileges (-U).
  std::function<absl::Status(Recorder&)> become_user = [](Recorder&) { return absl::OkStatus(); };
  // The configuration read again on a reload (null: none to read).
  std::function<absl::StatusOr<std::shared_ptr<LogPlan>>()> reload_plan;
};

// Runs the daemon until it stops. Errors: the directory, its lock, the
// pidfile, dropping privileges or starting the push (before recording
// began: *started false, nothing logged), or the recorder's first error
// (logged with the last words).
absl::Status RunRecordingDaemon(const DaemonOptions& options, const DaemonHooks& hooks,
                                LogFunction log, bool* started = nullptr);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_DAEMON_RECORDING_DAEMON_H_

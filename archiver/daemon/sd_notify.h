// systemd's service notification protocol (sd_notify(3)), spoken directly:
// datagrams of "KEY=VALUE\n" lines to the AF_UNIX socket named by
// $NOTIFY_SOCKET (a path, or "@name" for the abstract namespace). Written
// here rather than linked from libsystemd: the protocol is one sendmsg, and
// a daemon that starts in a few milliseconds should not load another shared
// library (bench/README.md, footprint) for it.
//
// The watchdog: $WATCHDOG_USEC (and $WATCHDOG_PID, when set, naming this
// process) says systemd restarts the service unless WATCHDOG=1 arrives
// within that time; sd_watchdog_enabled(3) advises pinging at half of it.
#ifndef MMVLOG_ARCHIVER_DAEMON_SD_NOTIFY_H_
#define MMVLOG_ARCHIVER_DAEMON_SD_NOTIFY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace mmvlog::archiver {

class SdNotifier {
 public:
  // From the environment as systemd sets it: $NOTIFY_SOCKET, $WATCHDOG_USEC,
  // $WATCHDOG_PID. Without $NOTIFY_SOCKET every call does nothing.
  static SdNotifier FromEnvironment();
  // To `socket_path` ("" for none), with a watchdog of `watchdog` (zero for
  // none). For tests.
  SdNotifier(std::string socket_path, absl::Duration watchdog);

  bool enabled() const { return !socket_.empty(); }
  // The watchdog's timeout (WATCHDOG_USEC), zero when there is none.
  absl::Duration watchdog() const { return watchdog_; }
  // How often WATCHDOG=1 must be sent: half the timeout, zero for never.
  absl::Duration watchdog_every() const { return watchdog_ / 2; }

  // Sends `state` ("READY=1\nSTATUS=..."); OK without a socket. Errors
  // (the socket gone) are the caller's to log, never fatal to recording.
  absl::Status Notify(absl::string_view state) const;
  absl::Status Ready(absl::string_view status) const;
  absl::Status Status(absl::string_view status) const;
  absl::Status Watchdog() const;
  absl::Status Stopping() const;
  absl::Status Reloading() const;

 private:
  std::string socket_;
  absl::Duration watchdog_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_DAEMON_SD_NOTIFY_H_

#include "archiver/daemon/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {

SdNotifier SdNotifier::FromEnvironment() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  absl::Duration watchdog = absl::ZeroDuration();
  uint64_t usec = 0;
  const char* usec_text = std::getenv("WATCHDOG_USEC");
  const char* pid_text = std::getenv("WATCHDOG_PID");
  int64_t pid = 0;
  // WATCHDOG_PID, when set, must name this process (sd_watchdog_enabled(3)).
  const bool ours = pid_text == nullptr || (absl::SimpleAtoi(pid_text, &pid) && pid == ::getpid());
  if (usec_text != nullptr && absl::SimpleAtoi(usec_text, &usec) && usec > 0 && ours) {
    watchdog = absl::Microseconds(usec);
  }
  return SdNotifier(socket != nullptr ? socket : "", watchdog);
}

SdNotifier::SdNotifier(std::string socket_path, absl::Duration watchdog)
    : socket_(std::move(socket_path)), watchdog_(watchdog) {}

absl::Status SdNotifier::Notify(absl::string_view state) const {
  if (socket_.empty()) return absl::OkStatus();
  struct sockaddr_un addr {};
  addr.sun_family = AF_UNIX;
  if (socket_.size() >= sizeof(addr.sun_path) || (socket_[0] != '/' && socket_[0] != '@')) {
    return absl::InvalidArgumentError(absl::StrCat("NOTIFY_SOCKET ", socket_, ": not a socket name"));
  }
  std::memcpy(addr.sun_path, socket_.data(), socket_.size());
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';  // the abstract namespace
  const socklen_t len = static_cast<socklen_t>(offsetof(struct sockaddr_un, sun_path) + socket_.size());
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "notify: socket");
  // Never blocks: a reader that does not read (a full queue) costs a
  // notification, not the recorder's sampling.
  const ssize_t sent = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL | MSG_DONTWAIT,
                                reinterpret_cast<const struct sockaddr*>(&addr), len);
  const int err = errno;
  ::close(fd);
  if (sent != static_cast<ssize_t>(state.size())) {
    return absl::ErrnoToStatus(err, absl::StrCat("notify ", socket_));
  }
  return absl::OkStatus();
}

absl::Status SdNotifier::Ready(absl::string_view status) const {
  return Notify(absl::StrCat("READY=1\nSTATUS=", status, "\nMAINPID=", ::getpid(), "\n"));
}

absl::Status SdNotifier::Status(absl::string_view status) const {
  return Notify(absl::StrCat("STATUS=", status, "\n"));
}

absl::Status SdNotifier::Watchdog() const {
  return watchdog_ > absl::ZeroDuration() ? Notify("WATCHDOG=1\n") : absl::OkStatus();
}

absl::Status SdNotifier::Stopping() const { return Notify("STOPPING=1\n"); }

absl::Status SdNotifier::Reloading() const { return Notify("RELOADING=1\n"); }

}  // namespace mmvlog::archiver

#include "archiver/dir_watch.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace mmvlog::archiver {

absl::StatusOr<DirWatch> DirWatch::Open(const std::string& dir) {
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, "inotify_init1");
  if (::inotify_add_watch(fd, dir.c_str(),
                          IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) < 0) {
    const int err = errno;
    ::close(fd);
    return absl::ErrnoToStatus(err, absl::StrCat("watch ", dir));
  }
  return DirWatch(fd);
}

DirWatch::~DirWatch() {
  if (fd_ >= 0) ::close(fd_);
}

DirWatch::Woken DirWatch::Wait(absl::Time deadline) {
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return Woken::kDeadline;
  struct pollfd p = {fd_, POLLIN, 0};
  const timespec ts = absl::ToTimespec(left);
  const int rc = ::ppoll(&p, 1, deadline == absl::InfiniteFuture() ? nullptr : &ts, nullptr);
  if (rc < 0) return errno == EINTR ? Woken::kInterrupted : Woken::kChanged;
  if (rc == 0) return Woken::kDeadline;
  alignas(struct inotify_event) char buf[4096];
  while (::read(fd_, buf, sizeof buf) > 0) {
  }
  return Woken::kChanged;
}

}  // namespace mmvlog::archiver

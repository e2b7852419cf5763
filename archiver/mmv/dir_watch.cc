#include "archiver/mmv/dir_watch.h"

#include <poll.h>
#include <sys/inotify.h>
#include <time.h>
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
                          IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |
                              IN_MOVE_SELF | IN_ONLYDIR) < 0) {
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
  if (rc < 0) {
    if (errno == EINTR) return Woken::kInterrupted;
    // Never seen; still a wait, not a spin, and callers look every tick.
    lost_ = true;
    absl::SleepFor(left);
    return Woken::kChanged;
  }
  waited_ = true;
  if (rc == 0) return Woken::kDeadline;
  Drain();
  return Woken::kChanged;
}

void DirWatch::Drain() {
  alignas(struct inotify_event) char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n <= 0) {
      if (n < 0 && errno != EAGAIN && errno != EINTR) lost_ = true;
      return;
    }
    changed_ = true;
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const struct inotify_event*>(buf + at);
      if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_Q_OVERFLOW | IN_UNMOUNT)) {
        lost_ = true;
      }
      at += static_cast<ssize_t>(sizeof(struct inotify_event) + e->len);
    }
  }
}

bool DirWatch::TakeChanged() {
  if (!waited_) Drain();
  waited_ = false;
  struct timespec now;
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  const int64_t now_ns = int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
  const bool changed = changed_ || lost_ || now_ns - last_look_ns_ >= 1'000'000'000;
  changed_ = false;
  if (changed) last_look_ns_ = now_ns;
  return changed;
}

}  // namespace mmvlog::archiver

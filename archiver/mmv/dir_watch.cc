#include "archiver/mmv/dir_watch.h"

#include <poll.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace mmvlog::archiver {
namespace {

// Reads one inotify descriptor's queued events, calling fn(event) for each;
// false when the descriptor failed.
template <typename Fn>
bool ReadEvents(int fd, Fn&& fn) {
  alignas(struct inotify_event) char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return n == 0 || errno == EAGAIN || errno == EINTR;
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const struct inotify_event*>(buf + at);
      fn(*e);
      at += static_cast<ssize_t>(sizeof(struct inotify_event) + e->len);
    }
  }
}

absl::string_view EventName(const struct inotify_event& e) {
  // The name is NUL-padded to its length.
  return e.len > 0 ? absl::string_view(e.name) : absl::string_view();
}

}  // namespace

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
  // Without the files' watch (inotify refused a second instance) every
  // file is looked at every tick, as before it.
  int files_fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (files_fd >= 0 && ::inotify_add_watch(files_fd, dir.c_str(), IN_MODIFY | IN_ONLYDIR) < 0) {
    ::close(files_fd);
    files_fd = -1;
  }
  return DirWatch(fd, files_fd);
}

DirWatch::DirWatch(DirWatch&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      files_fd_(std::exchange(o.files_fd_, -1)),
      changed_(o.changed_),
      waited_(o.waited_),
      lost_(o.lost_),
      last_look_ns_(o.last_look_ns_),
      touched_(std::move(o.touched_)),
      touched_before_(std::move(o.touched_before_)),
      overflow_(o.overflow_),
      overflow_before_(o.overflow_before_) {}

DirWatch::~DirWatch() {
  if (fd_ >= 0) ::close(fd_);
  if (files_fd_ >= 0) ::close(files_fd_);
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
  const bool ok = ReadEvents(fd_, [&](const struct inotify_event& e) {
    changed_ = true;
    if (e.mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_Q_OVERFLOW | IN_UNMOUNT)) {
      lost_ = true;
    }
    // A name created, removed or renamed over is another file now.
    if (absl::string_view name = EventName(e); !name.empty()) touched_.emplace(name);
  });
  if (!ok) lost_ = true;
}

void DirWatch::DrainFiles() {
  if (files_fd_ < 0) return;
  const bool ok = ReadEvents(files_fd_, [&](const struct inotify_event& e) {
    if (e.mask & IN_Q_OVERFLOW) overflow_ = true;
    if (absl::string_view name = EventName(e); !name.empty()) touched_.emplace(name);
  });
  if (!ok) {
    ::close(files_fd_);
    files_fd_ = -1;
  }
}

void DirWatch::Poll() {
  DrainFiles();
  polled_ = true;
}

bool DirWatch::TakeChanged() {
  if (!waited_) Drain();
  waited_ = false;
  // A tick that did not Poll (its results were not read in place) leaves
  // the files' queue to this one: read, so it never overflows.
  if (!polled_) DrainFiles();
  polled_ = false;
  // A new round: what happened before it is what this scan looks at.
  touched_before_.clear();
  std::swap(touched_, touched_before_);
  overflow_before_ = std::exchange(overflow_, false);
  struct timespec now;
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  const int64_t now_ns = int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
  const bool changed = changed_ || lost_ || now_ns - last_look_ns_ >= 1'000'000'000;
  only_looking_ = changed && !changed_ && !lost_;
  changed_ = false;
  if (changed) last_look_ns_ = now_ns;
  return changed;
}

bool DirWatch::Quiet(absl::string_view name) const {
  if (lost_ || files_fd_ < 0 || overflow_ || overflow_before_) return false;
  if (touched_.empty() && touched_before_.empty()) return true;  // a steady tick: no hashing
  return !touched_.contains(name) && !touched_before_.contains(name);
}

}  // namespace mmvlog::archiver

#include "archiver/mmv/process_watch.h"

#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

namespace mmvlog::archiver {
namespace {

bool KillSaysAlive(int32_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

int PidfdOpen(int32_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  errno = ENOSYS;
  return -1;
#endif
}

}  // namespace

ProcessWatch::~ProcessWatch() {
  for (const auto& [pid, fd] : fds_) ::close(fd);
  if (epoll_ >= 0) ::close(epoll_);
}

bool ProcessWatch::Alive(int32_t pid) {
  if (pid <= 0) return false;
  asked_.insert(pid);
  if (fds_.contains(pid)) return true;  // no exit read since it was opened
  if (exited_.contains(pid)) return false;
  if (epoll_ < 0) epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
  const int fd = epoll_ >= 0 ? PidfdOpen(pid) : -1;
  if (fd < 0) {
    if (errno != ESRCH) return KillSaysAlive(pid);
    exited_.insert(pid);
    return false;
  }
  struct epoll_event e = {};
  e.events = EPOLLIN;
  e.data.u64 = static_cast<uint32_t>(pid);
  if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &e) != 0) {
    ::close(fd);
    return KillSaysAlive(pid);
  }
  fds_[pid] = fd;
  // It may have exited before the pidfd was opened (a zombie still has
  // one): readable at once, so read at once.
  Poll();
  return fds_.contains(pid);
}

bool ProcessWatch::Poll() {
  if (fds_.empty()) return false;
  bool any = false;
  struct epoll_event events[64];
  for (;;) {
    const int n = ::epoll_wait(epoll_, events, 64, 0);
    if (n <= 0) break;
    for (int i = 0; i < n; ++i) {
      const auto pid = static_cast<int32_t>(events[i].data.u64);
      auto it = fds_.find(pid);
      if (it == fds_.end()) continue;
      ::epoll_ctl(epoll_, EPOLL_CTL_DEL, it->second, nullptr);
      ::close(it->second);
      fds_.erase(it);
      exited_.insert(pid);
      any = true;
    }
    if (n < 64) break;
  }
  return any;
}

void ProcessWatch::Sweep() {
  std::vector<int32_t> unused;
  for (const auto& [pid, fd] : fds_) {
    if (!asked_.contains(pid)) unused.push_back(pid);
  }
  for (int32_t pid : unused) {
    ::epoll_ctl(epoll_, EPOLL_CTL_DEL, fds_[pid], nullptr);
    ::close(fds_[pid]);
    fds_.erase(pid);
  }
  absl::erase_if(exited_, [&](int32_t pid) { return !asked_.contains(pid); });
  asked_.clear();
}

}  // namespace mmvlog::archiver

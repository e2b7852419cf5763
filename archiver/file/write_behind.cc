#include "archiver/file/write_behind.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {

namespace {

// A descriptor of fd's file with a file description of its own (see the
// header), or a dup where /proc is not mounted. -1 on failure.
int OwnDescriptor(int fd) {
  const std::string proc = absl::StrCat("/proc/self/fd/", fd);
  const int own = ::open(proc.c_str(), O_RDONLY | O_CLOEXEC);
  return own >= 0 ? own : ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

// Starts `fn` on a thread with every signal blocked: the recorder's main
// thread waits for SIGINT/SIGTERM/SIGHUP in its sleep, and they must reach
// it there, not the worker.
std::thread StartWithSignalsBlocked(std::function<void()> fn) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  std::thread t(std::move(fn));
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return t;
}

}  // namespace

WriteBehind::WriteBehind(RangeFn fn, size_t max_queued)
    : fn_(std::move(fn)),
      max_queued_(max_queued),
      worker_(StartWithSignalsBlocked([this] { Run(); })) {}

WriteBehind::~WriteBehind() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  worker_.join();
}

WriteBehind& WriteBehind::Global() {
  static WriteBehind* const global = new WriteBehind([](int fd, off_t offset, off_t length) {
    constexpr unsigned kWriteAndWait =
        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
    if (::sync_file_range(fd, offset, length, kWriteAndWait) != 0) return errno;
    // Only clean pages are dropped: the wait above made these clean.
    return ::posix_fadvise(fd, offset, length, POSIX_FADV_DONTNEED);
  });
  return *global;
}

bool WriteBehind::Submit(int fd, off_t offset, off_t length,
                         std::shared_ptr<std::atomic<int>> error) {
  std::unique_lock<std::mutex> lock(mu_);
  if (stop_ || queue_.size() >= max_queued_) {
    ++stats_.dropped;
    return false;
  }
  const int own = OwnDescriptor(fd);
  if (own < 0) {
    ++stats_.dropped;
    return false;
  }
  queue_.push_back(Range{own, offset, length, std::move(error)});
  lock.unlock();
  wake_.notify_one();
  return true;
}

void WriteBehind::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

WriteBehind::Stats WriteBehind::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void WriteBehind::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    const Range r = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    const int err = fn_(r.fd, r.offset, r.length);
    ::close(r.fd);
    if (err != 0 && r.error != nullptr) {
      int none = 0;
      r.error->compare_exchange_strong(none, err);
    }
    lock.lock();
    busy_ = false;
    ++stats_.ranges;
    stats_.bytes += static_cast<uint64_t>(r.length);
    if (err != 0) ++stats_.errors;
    if (queue_.empty()) idle_.notify_all();
  }
}

}  // namespace mmvlog::archiver

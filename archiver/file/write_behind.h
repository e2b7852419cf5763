// WriteBehind: writes a file's freshly appended bytes back to disk and drops
// them from the page cache, on a background thread, so the appending thread
// never waits for either.
//
// Why drop them: a recording is written once and read later, if ever. Kept
// cached, 200 MB/s of it (100k values every 10 ms) takes a fresh page for
// every append, and copying into never-used pages was most of the recorder's
// CPU (a 2 MB write(2) took 4-5 ms); given back, the same pages are reused
// and the write takes 0.3 ms (bench/README.md, "schedule"). It also keeps
// a recording from evicting other programs' cached files.
//
// Why a thread: sync_file_range blocks while the device's request queue is
// full, for milliseconds at 200 MB/s; on the sampler's thread it made the
// schedule worse than doing nothing.
//
// Advisory: a request the worker cannot take (queue full, no descriptor) is
// dropped, and the kernel writes those pages back on its own schedule. A
// range that fails to reach the disk is reported back to its file (see
// Submit), which makes it the file's error.
//
// The worker uses a file description of its own (opened through
// /proc/self/fd), not a dup of the caller's: the kernel reports a writeback
// error once per file description, and the worker's wait must not consume
// the error the writer's fdatasync is owed.
#ifndef MMVLOG_ARCHIVER_FILE_WRITE_BEHIND_H_
#define MMVLOG_ARCHIVER_FILE_WRITE_BEHIND_H_

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace mmvlog::archiver {

class WriteBehind {
 public:
  // Does the work for one range of an fd; returns 0 or an errno.
  using RangeFn = std::function<int(int fd, off_t offset, off_t length)>;

  // `fn` runs on the worker thread, one range at a time, in submission order.
  explicit WriteBehind(RangeFn fn, size_t max_queued = 16);
  // Finishes the queued ranges, then joins the worker.
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  // The process's instance: sync_file_range (write, and wait for it), then
  // posix_fadvise(DONTNEED). Never destroyed: joining its thread at exit
  // would make exit wait for disk I/O that the kernel finishes anyway.
  static WriteBehind& Global();

  // Queues [offset, offset + length) of `fd`. The worker opens its own
  // descriptor of the file now and keeps it until the range is done, so the
  // caller may close fd at once. If the range fails, its errno is stored in
  // `*error` (when given and still 0). Never blocks on I/O. Returns false if
  // the request was dropped.
  bool Submit(int fd, off_t offset, off_t length,
              std::shared_ptr<std::atomic<int>> error = nullptr);

  // Waits until the queue is empty and the worker idle (tests, benchmarks).
  void Drain();

  struct Stats {
    uint64_t ranges = 0;   // done
    uint64_t bytes = 0;    // in the ranges done
    uint64_t errors = 0;   // ranges whose RangeFn returned an errno
    uint64_t dropped = 0;  // requests not queued
  };
  Stats stats() const;

 private:
  struct Range {
    int fd;
    off_t offset;
    off_t length;
    std::shared_ptr<std::atomic<int>> error;
  };
  void Run();

  const RangeFn fn_;
  const size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable wake_;  // worker: work or stop
  std::condition_variable idle_;  // Drain: queue empty, nothing running
  std::deque<Range> queue_;
  bool busy_ = false;
  bool stop_ = false;
  Stats stats_;
  std::thread worker_;  // last: starts after the members it uses
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_FILE_WRITE_BEHIND_H_

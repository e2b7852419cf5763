// ReaderWatch: whether some process opened or read given files since the
// last look (inotify IN_OPEN and IN_ACCESS), for the live feed
// (archiver/session/live_feed.h) to learn when pmproxy has taken a new
// archive's end instead of guessing it from a fixed delay.
//
// Every process's opens and reads count, this one's too: the recorder
// neither opens nor reads the files it writes after creating them.
#ifndef MMVLOG_ARCHIVER_FILE_READER_WATCH_H_
#define MMVLOG_ARCHIVER_FILE_READER_WATCH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace mmvlog::archiver {

class ReaderWatch {
 public:
  // Watches each of `paths` (each must exist).
  static absl::StatusOr<ReaderWatch> Open(const std::vector<std::string>& paths);
  ReaderWatch(ReaderWatch&& other) noexcept;
  ReaderWatch& operator=(ReaderWatch&& other) noexcept;
  ~ReaderWatch();

  // Whether any of the files was opened or read since the last call (or
  // since Open), draining what was queued: one non-blocking read.
  bool TakeSeen();

 private:
  explicit ReaderWatch(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_FILE_READER_WATCH_H_

// DirWatch: waits for a directory to gain an entry (inotify), so that a
// recorder with nothing to read sleeps until an MMV file appears instead of
// waking every interval to look (an idle recorder's whole cost).
#ifndef MMVLOG_ARCHIVER_DIR_WATCH_H_
#define MMVLOG_ARCHIVER_DIR_WATCH_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace mmvlog::archiver {

class DirWatch {
 public:
  // Watches `dir` for entries created or moved in, and for its own removal.
  static absl::StatusOr<DirWatch> Open(const std::string& dir);
  DirWatch(DirWatch&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  DirWatch& operator=(DirWatch&&) = delete;
  ~DirWatch();

  enum class Woken { kChanged, kDeadline, kInterrupted };
  // Waits until the directory changes (events are drained), `deadline`
  // passes, or a signal arrives. Changes since the last Wait count: a
  // file created between a look at the directory and this call wakes it
  // at once.
  Woken Wait(absl::Time deadline);

 private:
  explicit DirWatch(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_DIR_WATCH_H_

// DirWatch: waits for a directory to gain an entry (inotify), so that a
// recorder with nothing to read sleeps until an MMV file appears instead of
// waking every interval to look (an idle recorder's whole cost); and, used
// as the wait between ticks, tells the recorder when the directory's entries
// have not changed, so that it looks at neither the directory nor its files'
// names (three stat calls a tick; issue 15's footprint).
#ifndef MMVLOG_ARCHIVER_MMV_DIR_WATCH_H_
#define MMVLOG_ARCHIVER_MMV_DIR_WATCH_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace mmvlog::archiver {

class DirWatch {
 public:
  // Watches `dir` for entries created, removed or renamed, and for its own
  // removal or renaming.
  static absl::StatusOr<DirWatch> Open(const std::string& dir);
  DirWatch(DirWatch&& other) noexcept
      : fd_(other.fd_),
        changed_(other.changed_),
        waited_(other.waited_),
        lost_(other.lost_),
        last_look_ns_(other.last_look_ns_) {
    other.fd_ = -1;
  }
  DirWatch& operator=(DirWatch&&) = delete;
  ~DirWatch();

  enum class Woken { kChanged, kDeadline, kInterrupted };
  // Waits until the directory changes (events are drained), `deadline`
  // passes, or a signal arrives. Changes since the last Wait count: a
  // file created between a look at the directory and this call wakes it
  // at once.
  Woken Wait(absl::Time deadline);

  // Whether the entries may have changed since the last call (true the
  // first time): events drained by Wait, or, when no Wait has looked since,
  // events queued now (one non-blocking read). An event that comes after a
  // Wait ended and before this call is reported by the next call: a change
  // is noticed at most one tick late, as one made just after a look would
  // be. Always true once the watch is lost (the directory removed or
  // renamed, the event queue overflowed): callers look every time. Also
  // true once a second whatever the events: inotify watches the directory
  // it opened, and a path that comes to name another directory (renamed
  // and made again, a symbolic link or a mount changed, a network file
  // system) sends it nothing.
  bool TakeChanged();

 private:
  explicit DirWatch(int fd) : fd_(fd) {}
  // Reads every queued event; notes a lost watch.
  void Drain();
  int fd_ = -1;
  bool changed_ = true;
  bool waited_ = false;  // a Wait looked at the queue since TakeChanged
  bool lost_ = false;
  int64_t last_look_ns_ = 0;  // CLOCK_MONOTONIC when TakeChanged last said true
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_MMV_DIR_WATCH_H_

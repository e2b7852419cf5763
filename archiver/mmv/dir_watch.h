// DirWatch: what changed in the MMV directory, from inotify, so that a tick
// costs the same system calls whatever the number of files in it.
//
// - Entries (created, removed, renamed; the directory itself removed or
//   renamed): the wait between ticks is on them, so that a recorder with
//   nothing to read sleeps until an MMV file appears instead of waking every
//   interval to look (an idle recorder's whole cost), and a tick whose
//   entries did not change does not read the directory (TakeChanged).
// - Files written or cut short (IN_MODIFY: write(2), truncate(2), O_TRUNC),
//   on a second inotify descriptor that is never waited on, only read: MMV
//   values change through a mapping, which sends nothing, so a file's size
//   and entry are known unchanged while no event names it (Quiet), and the
//   recorder stats only the files named by an event instead of every file
//   every tick (issue 32: 21,625 newfstatat a 100-sample capture of 200
//   files). A writer that updates with write(2) is stat'ed every tick, as
//   before, and never wakes the wait.
#ifndef MMVLOG_ARCHIVER_MMV_DIR_WATCH_H_
#define MMVLOG_ARCHIVER_MMV_DIR_WATCH_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace mmvlog::archiver {

class DirWatch {
 public:
  // Watches `dir`'s entries and the files in it (see above).
  static absl::StatusOr<DirWatch> Open(const std::string& dir);
  DirWatch(DirWatch&& other) noexcept;
  DirWatch& operator=(DirWatch&&) = delete;
  ~DirWatch();

  enum class Woken { kChanged, kDeadline, kInterrupted };
  // Waits until the directory's entries change (events are drained),
  // `deadline` passes, or a signal arrives. Changes since the last Wait
  // count: a file created between a look at the directory and this call
  // wakes it at once.
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
  // Each call also starts a new round for Quiet: the files named by events
  // before it are the ones a scan must look at.
  bool TakeChanged();
  // Whether the last TakeChanged said true only for its look once a second:
  // the watch is whole and no entry changed, so only whether the path
  // still names the watched directory is in question, not its entries.
  bool OnlyLooking() const { return only_looking_; }

  // Reads the files' events queued now (one non-blocking read): after a
  // tick has read its files' values, so that Quiet tells whether one was
  // written or cut short meanwhile. A round without a Poll has its queue
  // read by the next TakeChanged.
  void Poll();

  // Whether the file `name` in the directory is known to have kept its
  // entry and its size since the round before the last TakeChanged: no
  // event named it since then (up to the last read of the queue), and the
  // watch is whole. False for every name once the watch is lost, and for
  // one round after the files' queue overflowed.
  bool Quiet(absl::string_view name) const;
  // Quiet for every name: no event at all in this round or the one before.
  bool AllQuiet() const {
    return !lost_ && files_fd_ >= 0 && !overflow_ && !overflow_before_ && touched_.empty() &&
           touched_before_.empty();
  }

  // The directory's path came to name another directory (DirListing saw a
  // new one): this watch is of the old one, so it is lost.
  void Lose() { lost_ = true; }

 private:
  DirWatch(int fd, int files_fd) : fd_(fd), files_fd_(files_fd) {}
  // Reads every queued event of the entries; notes a lost watch.
  void Drain();
  // Reads every queued event of the files into touched_.
  void DrainFiles();
  int fd_ = -1;        // entries
  int files_fd_ = -1;  // files' writes and truncations; -1: not watched
  bool changed_ = true;
  bool waited_ = false;  // a Wait looked at the queue since TakeChanged
  bool lost_ = false;
  bool only_looking_ = false;
  bool polled_ = false;  // Poll read the files' queue since TakeChanged
  int64_t last_look_ns_ = 0;  // CLOCK_MONOTONIC when TakeChanged last said true
  // Names with an event this round, and in the round before the last
  // TakeChanged; an overflow of the files' queue in either.
  absl::flat_hash_set<std::string> touched_, touched_before_;
  bool overflow_ = false, overflow_before_ = true;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_MMV_DIR_WATCH_H_

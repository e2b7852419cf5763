// LiveFeed: how a new archive is written for those who follow it as it
// grows (RecorderOptions::live): pmproxy's discovery.
//
// pmproxy (libpcp_web discover.c, PCP 6) follows a directory by inotify,
// handling at most one change of it per wall-clock second (the rest of that
// second's are dropped), and opens an archive it has just found at its end:
// results written before it looked are never read, except the last one
// (libpcp returns the record at the position's time), and it reads .meta
// once when it opens the archive, the records after it later: a record
// whose descriptors were written between the two is read without them and
// dropped. So a new archive's records are held from its prologue on, and
// the prologue and the first tick's results go out in one write, after all
// the metadata they need (an archive that pmproxy can open is described up
// to its last record). After that first tick, results are held; in the
// next second, once the files' own changes are behind pmproxy, .meta is
// touched (a change it handles, finding the archive ending with that first
// result), and the held results are written once a reader has opened or
// read .meta since the touch and had 100 ms (no sooner than 200 ms after
// the touch), or 2 s after the touch when none came (a busy pmproxy took
// longer than a fixed 200 ms, and lost the first result); at once when they
// pass 2 MB (memory and the tick's time stay bounded).
//
// Invariants it keeps:
// - one state: kNone (nothing to do: not live, no new archive, or done),
//   kCreated (a fresh archive, its records held since its prologue
//   (ArchiveSessionOptions::hold_new_archive), waiting for its first
//   results), kPoke (results
//   held; .meta is touched at `at`), kRelease (readers are looked for, and
//   the held results written, at `at`); next() is InfiniteFuture in kNone, else `at`;
// - results are held only while the session's writer is open, never past
//   kMaxHeld bytes, and never kMostHold past the touch;
// - Stop (the archive closes, which writes what is held) returns to kNone.
#ifndef MMVLOG_ARCHIVER_SESSION_LIVE_FEED_H_
#define MMVLOG_ARCHIVER_SESSION_LIVE_FEED_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "archiver/file/reader_watch.h"
#include "archiver/session/archive_session.h"
#include "archiver/store/log.h"

namespace mmvlog::archiver {

class LiveFeed {
 public:
  // The most a live archive holds.
  static constexpr size_t kMaxHeld = 2 << 20;
  // After the touch: the least and the most results are held, how often
  // the readers are looked for, and a reader's moment to take the end.
  static constexpr absl::Duration kLeastHold = absl::Milliseconds(200);
  static constexpr absl::Duration kMostHold = absl::Seconds(2);
  static constexpr absl::Duration kLookEvery = absl::Milliseconds(50);
  static constexpr absl::Duration kAfterReader = absl::Milliseconds(100);

  // `live`: false makes every call a no-op.
  LiveFeed(bool live, LogFunction log) : live_(live), log_(std::move(log)) {}

  // A fresh archive was created (its prologue written).
  void Start() {
    if (live_) state_ = State::kCreated;
  }
  // The archive closes.
  void Stop() {
    state_ = State::kNone;
    at_ = absl::InfiniteFuture();
    readers_.reset();
  }
  // The time of the next step (InfiniteFuture: none).
  absl::Time next() const { return state_ == State::kNone ? absl::InfiniteFuture() : at_; }
  // Takes the steps due at `now` on `session`'s archive.
  void Step(absl::Time now, ArchiveSession& session);
  // A tick wrote its results at `now`: a fresh archive's first ones are
  // released with its prologue.
  void Wrote(absl::Time now, ArchiveSession& session);
  // At the end of a run, after the archive `base` was closed: waits for the
  // next wall-clock second and touches its .meta, so that pmproxy reads the
  // last results (a change in the same second as the one it handled is
  // dropped, and none would follow).
  void Finish(const std::string& base);

 private:
  enum class State { kNone, kCreated, kPoke, kRelease };

  void Release(ArchiveSession& session);
  void FirstResults(absl::Time now, ArchiveSession& session);

  const bool live_;
  LogFunction log_;
  State state_ = State::kNone;
  absl::Time at_ = absl::InfiniteFuture();  // of kPoke and kRelease
  // kRelease: when .meta was touched, its watch (none: inotify refused),
  // and whether a reader came.
  absl::Time touched_;
  std::optional<ReaderWatch> readers_;
  bool seen_ = false;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SESSION_LIVE_FEED_H_

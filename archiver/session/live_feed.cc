#include "archiver/session/live_feed.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"

namespace mmvlog::archiver {

void LiveFeed::Release(ArchiveSession& session) {
  Stop();
  session.ReleaseRecords();
}

void LiveFeed::FirstResults(absl::Time now, ArchiveSession& session) {
  // The prologue and the first results, with every descriptor they need
  // already in .meta, in one write: as the archive's last record the first
  // result is read even by a context opened at the end. The next ones wait.
  session.ReleaseRecords();
  if (!session.open()) {  // the write failed: the archive broke
    Stop();
    return;
  }
  session.HoldRecords();
  // The second after the one in which pmproxy may still be handling the
  // files' creation and first writes (50 ms for its own delay).
  const absl::Time second =
      absl::FromUnixSeconds(absl::ToUnixSeconds(now + absl::Milliseconds(50)));
  at_ = second + absl::Seconds(1) + absl::Milliseconds(20);
  state_ = State::kPoke;
}

void LiveFeed::Wrote(absl::Time now, ArchiveSession& session) {
  if (state_ != State::kCreated || !session.open() || !session.has_result()) return;
  FirstResults(now, session);
}

void LiveFeed::Step(absl::Time now, ArchiveSession& session) {
  if (!session.open() || state_ == State::kNone) {
    state_ = State::kNone;
    return;
  }
  // A fast, wide recording is not held long: no more than 2 MB (writing
  // more at once can make a 10 ms tick late; pmproxy could not take such a
  // rate anyway).
  if (session.holding_records() && session.held_bytes() > kMaxHeld) {
    Release(session);
    return;
  }
  if (state_ == State::kCreated) {
    if (!session.has_result()) return;
    FirstResults(now, session);
    if (state_ == State::kNone) return;
  }
  if (state_ == State::kPoke && now >= at_) {
    // Watched before the touch, so that a reader moved by it is seen.
    absl::StatusOr<ReaderWatch> watch = ReaderWatch::Open({session.current_archive() + ".meta"});
    readers_ = watch.ok() ? std::optional<ReaderWatch>(std::move(*watch)) : std::nullopt;
    if (absl::Status s = session.TouchMeta(); !s.ok()) {
      log_(LogLevel::kWarning, std::string(s.message()));
    }
    touched_ = now;
    seen_ = false;
    at_ = now + kLeastHold;
    state_ = State::kRelease;
  }
  if (state_ == State::kRelease && now >= at_) {
    if (readers_.has_value() && !seen_ && readers_->TakeSeen()) {
      // pmproxy opens .meta first, then the volume to take the archive's
      // end: a moment for the rest.
      seen_ = true;
      at_ = std::max(touched_ + kLeastHold, now + kAfterReader);
    }
    // Without a watch, or once a reader was seen and had its moment, or
    // when none came (no pmproxy follows this directory, or it is too busy
    // to matter), the held results go.
    if (!readers_.has_value() || (seen_ && now >= at_) || now >= touched_ + kMostHold) {
      Release(session);
    } else if (!seen_) {
      at_ = std::min(now + kLookEvery, touched_ + kMostHold);
    }
  }
}

void LiveFeed::Finish(const std::string& base) {
  if (!live_ || base.empty()) return;
  const absl::Time now = absl::Now();
  absl::SleepFor(absl::FromUnixSeconds(absl::ToUnixSeconds(now)) + absl::Seconds(1) +
                 absl::Milliseconds(20) - now);
  (void)TouchArchive(base);
}

}  // namespace mmvlog::archiver

#include "archiver/session/live_feed.h"

#include "absl/time/clock.h"

namespace mmvlog::archiver {

void LiveFeed::Release(ArchiveSession& session) {
  state_ = State::kNone;
  at_ = absl::InfiniteFuture();
  session.ReleaseRecords();
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
    // The first result stays written: as the archive's last record it is
    // read even by a context opened at the end. The next ones wait.
    session.HoldRecords();
    // The second after the one in which pmproxy may still be handling the
    // files' creation and first writes (50 ms for its own delay).
    const absl::Time second =
        absl::FromUnixSeconds(absl::ToUnixSeconds(now + absl::Milliseconds(50)));
    at_ = second + absl::Seconds(1) + absl::Milliseconds(20);
    state_ = State::kPoke;
  }
  if (state_ == State::kPoke && now >= at_) {
    if (absl::Status s = session.TouchMeta(); !s.ok()) {
      log_(LogLevel::kWarning, std::string(s.message()));
    }
    at_ = now + absl::Milliseconds(200);
    state_ = State::kRelease;
  }
  if (state_ == State::kRelease && now >= at_) Release(session);
}

void LiveFeed::Finish(const std::string& base) {
  if (!live_ || base.empty()) return;
  const absl::Time now = absl::Now();
  absl::SleepFor(absl::FromUnixSeconds(absl::ToUnixSeconds(now)) + absl::Seconds(1) +
                 absl::Milliseconds(20) - now);
  (void)TouchArchive(base);
}

}  // namespace mmvlog::archiver

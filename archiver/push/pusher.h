// Pusher: archives pushed in order to one pmproxy (ArchivePush each): the
// one a recorder is writing, followed as it grows, and those it finished
// before; or one finished archive (mmvlog push).
//
// Failing is part of the job. A failed POST is retried after a backoff
// (doubling from backoff_min to backoff_max), with the records waiting in
// the local archive (the spool) and the spool limit applied meanwhile;
// nothing makes the Pusher stop unless `keep_trying` is off. What the log
// says, once per change and once per `report_every` while it lasts:
//   push: ... remote archive N                  (a label was accepted)
//   push: <failure>; keeping records, retrying  (the first failure)
//   push: not connected to X for 2m (...): behind by N records / S s,
//         spool B bytes (limit L)
//   push: connected again to X after 2m; was behind by N records / S s,
//         spool B bytes, now sent
//   push: spool full ... / gave up N records ... (ArchivePush)
//
// The state of the archive being pushed is saved every `save_every` and by
// SaveState (PushState, in `state_path`), so that the next run goes on
// from it (Resume).
//
// Not thread-safe: one thread steps it (archiver/push/live_pusher.h runs it
// beside a recorder).
#ifndef MMVLOG_ARCHIVER_PUSH_PUSHER_H_
#define MMVLOG_ARCHIVER_PUSH_PUSHER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "archiver/push/archive_push.h"
#include "archiver/push/http_client.h"
#include "archiver/push/logger_client.h"
#include "archiver/store/log.h"

namespace mmvlog::archiver {

struct PusherOptions {
  HttpEndpoint endpoint;
  HttpClientOptions http;
  PushOptions push;
  std::string client_id;  // ?client= with each label ("" for none)
  int poll_timeout = 0;   // seconds pmproxy keeps an idle LOGID (0: its default)
  std::string state_path;  // "" for none
  // Delete each archive once pushed entirely: the local archives are only
  // the spool.
  bool remove_pushed = false;
  // Off: the first failure stops the push (error() says which).
  bool keep_trying = true;
  absl::Duration backoff_min = absl::Milliseconds(250);
  absl::Duration backoff_max = absl::Seconds(10);
  absl::Duration report_every = absl::Seconds(30);
  absl::Duration save_every = absl::Seconds(5);
};

class Pusher {
 public:
  Pusher(PusherOptions options, LogFunction log);

  // Goes on with the archive the state file names, if it was not pushed
  // entirely: before anything Follow or Add names. Errors: the file cannot
  // be read (a missing one is not an error).
  absl::Status Resume();
  // The archive being written now; naming another one says that the one
  // before is finished. "" is ignored.
  void Follow(const std::string& base);
  // A finished archive, pushed after those before it (unless it is the
  // last one queued already: the one Resume goes on with).
  void Add(const std::string& base);
  // Nothing grows any more: once all is pushed, done().
  void FinishAll() { finished_all_ = true; }

  // Does what can be done now; returns when it wants to step again
  // (InfiniteFuture once done or stopped). `now_or_never`: try at once,
  // whatever the backoff says (the last try before stopping).
  absl::Time Step(absl::Time now, bool now_or_never = false);
  bool done() const { return finished_all_ && queue_.empty(); }
  // What stopped the push (keep_trying off), else OK.
  const absl::Status& error() const { return error_; }
  bool connected() const { return failing_since_ == absl::InfiniteFuture(); }

  // Saves the state of the archive being pushed (`clean`: at a point where
  // nothing is in flight, so its LOGID may be used again); removes the file
  // when all is pushed.
  absl::Status SaveState(bool clean);
  // The archive being pushed, or null.
  const ArchivePush* current() const { return queue_.empty() ? nullptr : queue_.front().get(); }
  // Totals over every archive: records and bytes acknowledged, records
  // given up, remote archives (labels), archives pushed entirely.
  struct Totals {
    uint64_t records = 0, bytes = 0, dropped_records = 0, remote_archives = 0, archives = 0;
  };
  Totals totals() const;
  // "behind by N records / S s, spool B bytes (limit L)".
  std::string Behind(absl::Time now);

 private:
  void Enqueue(const std::string& base, PushState state);
  void Failure(const absl::Status& s, absl::Time now);
  // Where the push stood before a step that may catch up.
  struct Catching {
    std::string archive;
    uint64_t records = 0;
    uint64_t bytes = 0;
    std::optional<format::Timestamp> oldest;
  };
  void Progress(absl::Time now, const Catching& before);
  void Finished(absl::Time now);

  PusherOptions options_;
  LogFunction log_;
  HttpClient http_;
  LoggerClient client_;
  std::deque<std::unique_ptr<ArchivePush>> queue_;
  bool finished_all_ = false;
  absl::Status error_;
  Totals done_totals_;  // of the archives no longer queued
  // Failing since (InfiniteFuture: not failing); consecutive failures.
  absl::Time failing_since_ = absl::InfiniteFuture();
  int failures_ = 0;
  std::string last_failure_;
  absl::Time retry_at_ = absl::InfinitePast();
  absl::Time next_report_ = absl::InfiniteFuture();
  absl::Time next_save_ = absl::InfinitePast();
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_PUSHER_H_

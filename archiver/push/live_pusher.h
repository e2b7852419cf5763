// LivePusher: a Pusher on a thread of its own beside a recorder, so that no
// network wait (a connect timeout, a slow pmproxy, a backoff) ever delays a
// sample. The recorder's thread only tells it which archive it writes and
// that records were written (Follow: a lock and a wake-up); the push thread
// reads the archive's files and posts what is new, at once after each
// sample, or at its retry time while pmproxy is away.
//
// The thread blocks no signals itself: a caller that wants signals on its
// own thread blocks them before Start (the thread inherits the mask).
#ifndef MMVLOG_ARCHIVER_PUSH_LIVE_PUSHER_H_
#define MMVLOG_ARCHIVER_PUSH_LIVE_PUSHER_H_

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "archiver/push/pusher.h"

namespace mmvlog::archiver {

class LivePusher {
 public:
  LivePusher(PusherOptions options, LogFunction log);
  ~LivePusher();  // Stop(ZeroDuration()) if still running

  // Resumes the state file's archive (Pusher::Resume) and starts the
  // thread. Errors: Resume's.
  absl::Status Start();
  // The archive being written (Pusher::Follow), which has new records.
  void Follow(const std::string& base);
  // The recording ended: tries once more at once, pushes what is left
  // while pmproxy takes it, for at most `grace`, saves the state and stops
  // the thread. Returns the totals; `*all_sent` says whether everything was
  // pushed.
  Pusher::Totals Stop(absl::Duration grace, bool* all_sent = nullptr);

 private:
  void Run();

  LogFunction log_;
  Pusher pusher_;  // only the thread touches it once started
  std::mutex mu_;
  std::condition_variable wake_;
  std::string follow_;       // guarded by mu_
  bool poked_ = false;       // guarded by mu_
  bool stopping_ = false;    // guarded by mu_
  absl::Time stop_by_;       // guarded by mu_
  std::thread thread_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_LIVE_PUSHER_H_

#include "archiver/push/live_pusher.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {

LivePusher::LivePusher(PusherOptions options, LogFunction log)
    : log_(log), pusher_(std::move(options), std::move(log)) {}

LivePusher::~LivePusher() {
  if (thread_.joinable()) Stop(absl::ZeroDuration());
}

absl::Status LivePusher::Start() {
  if (absl::Status s = pusher_.Resume(); !s.ok()) return s;
  thread_ = std::thread([this] { Run(); });
  return absl::OkStatus();
}

void LivePusher::Follow(const std::string& base) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    follow_ = base;
    poked_ = true;
  }
  wake_.notify_one();
}

void LivePusher::Run() {
  absl::Time next = absl::InfinitePast();
  bool stopping = false;  // seen stopping_
  for (;;) {
    std::string follow;
    absl::Time stop_by;
    {
      std::unique_lock<std::mutex> lock(mu_);
      while (!poked_ && stopping_ == stopping && absl::Now() < next) {
        const absl::Duration left = next - absl::Now();
        wake_.wait_for(lock, std::chrono::microseconds(
                                 absl::ToInt64Microseconds(std::min(left, absl::Seconds(60)))));
      }
      poked_ = false;
      follow = follow_;
      stopping = stopping_;
      stop_by = stop_by_;
    }
    pusher_.Follow(follow);
    if (stopping) pusher_.FinishAll();
    const absl::Time now = absl::Now();
    // Stopping: one more try at once; then on only while pmproxy takes
    // what is left, and not past the deadline (a pmproxy that is away is
    // not waited for: the spool keeps the rest for the next run).
    next = pusher_.Step(now, stopping);
    if (stopping && (pusher_.done() || !pusher_.connected() || absl::Now() >= stop_by)) break;
  }
  (void)pusher_.SaveState(true);
}

Pusher::Totals LivePusher::Stop(absl::Duration grace, bool* all_sent) {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      stop_by_ = absl::Now() + grace;
    }
    wake_.notify_one();
    thread_.join();
  }
  if (all_sent != nullptr) *all_sent = pusher_.done();
  return pusher_.totals();
}

}  // namespace mmvlog::archiver

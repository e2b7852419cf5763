#include "archiver/replay/sample_read_ahead.h"

#include <algorithm>
#include <bit>

namespace mmvlog::archiver {

namespace {

uint32_t Depth(size_t columns, size_t most_bytes) {
  const size_t bytes = std::max<size_t>(columns, 1) * sizeof(SampleValue);
  return std::bit_floor(static_cast<uint32_t>(
      std::clamp<size_t>(most_bytes / bytes, 2, SampleReadAhead::kDepth)));
}

}  // namespace

SampleReadAhead::SampleReadAhead(SampleStream& stream, size_t columns, size_t most_bytes,
                                 bool resume_points)
    : stream_(stream),
      depth_(Depth(columns, most_bytes)),
      resume_points_(resume_points),
      slots_(depth_) {
  thread_ = std::thread([this] { Run(); });
}

SampleReadAhead::~SampleReadAhead() { Stop(); }

void SampleReadAhead::Stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  // A change of the value the thread may be waiting on wakes it.
  released_.fetch_add(1);
  released_.notify_all();
  thread_.join();
}

// Each side sleeps for a batch, not a sample, and is woken once for it:
// a wake a record cost a futex call each way (25,000 a second of replay).
// The waiter says what it waits for (`*_wants_`) before it says it waits
// (`*_waiting_`) and looks again; the other side publishes its count
// before it asks whether anyone waits (sequentially consistent both ways:
// one of the two sees the other, so no wake is missed).
void SampleReadAhead::Run() {
  const uint32_t depth = depth_;
  uint32_t p = 0;
  size_t warned = 0;
  for (;;) {
    if (static_cast<uint32_t>(p - released_.load()) >= depth) {
      // Full: on again once half of it is free.
      const uint32_t want = p - depth / 2;
      producer_wants_.store(want, std::memory_order_relaxed);
      producer_waiting_.store(true);
      for (;;) {
        const uint32_t r = released_.load();
        if (stop_.load() || static_cast<int32_t>(r - want) >= 0) break;
        released_.wait(r);
      }
      producer_waiting_.store(false, std::memory_order_relaxed);
    }
    if (stop_.load()) return;
    Slot& slot = slots_[p % depth];
    const Sample* s = stream_.Next();
    slot.end = s == nullptr;
    // The stream's buffer for the slot's (read by the caller already):
    // no copy of the values.
    if (s != nullptr) stream_.TradeSample(&slot.sample, &slot.values_of);
    slot.restarts = stream_.restarts();
    const std::vector<std::string>& w = stream_.warnings();
    slot.warnings.assign(w.begin() + static_cast<std::ptrdiff_t>(warned), w.end());
    warned = w.size();
    slot.problems = stream_.problems().size();
    slot.damaged = stream_.damaged().size();
    slot.read = stream_.read_archives().size();
    if (resume_points_) stream_.PointAfterLast(&slot.point);
    produced_.store(++p);
    // The caller waits for a batch; it is woken early when no more can
    // come for now (the ring full, or the end).
    if (consumer_waiting_.load() &&
        (slot.end || static_cast<int32_t>(p - consumer_wants_.load(std::memory_order_relaxed)) >= 0 ||
         static_cast<uint32_t>(p - released_.load()) >= depth)) {
      produced_.notify_one();
    }
    if (slot.end) return;
  }
}

const Sample* SampleReadAhead::Next() {
  if (ended_ || !thread_.joinable()) return nullptr;
  if (taken_ > 0) {
    // The slot given last is free again.
    released_.store(taken_);
    if (producer_waiting_.load() &&
        static_cast<int32_t>(taken_ - producer_wants_.load(std::memory_order_relaxed)) >= 0) {
      released_.notify_one();
    }
  }
  uint32_t p = produced_.load();
  if (p == taken_) {
    consumer_wants_.store(taken_ + depth_ / 2, std::memory_order_relaxed);
    consumer_waiting_.store(true);
    p = produced_.load();
    while (p == taken_) {
      produced_.wait(p);
      p = produced_.load();
    }
    consumer_waiting_.store(false, std::memory_order_relaxed);
  }
  Slot& slot = slots_[taken_ % depth_];
  ++taken_;
  warnings_.insert(warnings_.end(), slot.warnings.begin(), slot.warnings.end());
  restarts_ = slot.restarts;
  problems_ = slot.problems;
  damaged_ = slot.damaged;
  read_ = slot.read;
  if (slot.end) {
    ended_ = true;
    Stop();
    return nullptr;
  }
  return &slot.sample;
}

}  // namespace mmvlog::archiver

#include "archiver/replay/sample_read_ahead.h"

#include <algorithm>

namespace mmvlog::archiver {

SampleReadAhead::SampleReadAhead(SampleStream& stream) : stream_(stream), slots_(kDepth) {
  thread_ = std::thread([this] { Run(); });
}

SampleReadAhead::~SampleReadAhead() { Stop(); }

void SampleReadAhead::Stop() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  // A change of the value the thread may be waiting on wakes it.
  released_.fetch_add(1, std::memory_order_acq_rel);
  released_.notify_all();
  thread_.join();
}

void SampleReadAhead::Run() {
  uint32_t p = 0;
  uint32_t depth = kDepth;
  size_t warned = 0;
  for (;;) {
    uint32_t r = released_.load(std::memory_order_acquire);
    while (static_cast<uint32_t>(p - r) >= depth) {
      if (stop_.load(std::memory_order_acquire)) return;
      released_.wait(r, std::memory_order_acquire);
      r = released_.load(std::memory_order_acquire);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    Slot& slot = slots_[p % kDepth];
    const Sample* s = stream_.Next();
    slot.end = s == nullptr;
    // The stream's buffer for the slot's (read by the caller already):
    // no copy of the values.
    if (s != nullptr) {
      stream_.TradeSample(&slot.sample, &slot.values_of);
      const Sample& x = slot.sample;
      size_t bytes = x.values.size() * sizeof(SampleValue) +
                     x.unnamed_values.size() * sizeof(UnnamedValue) +
                     x.sets.size() * sizeof(SampleSet);
      for (const std::string& text : x.strings) bytes += text.size();
      depth = static_cast<uint32_t>(
          std::clamp<size_t>(kMostBytes / std::max<size_t>(bytes, 1), 2, kDepth));
    }
    slot.restarts = stream_.restarts();
    const std::vector<std::string>& w = stream_.warnings();
    slot.warnings.assign(w.begin() + static_cast<std::ptrdiff_t>(warned), w.end());
    warned = w.size();
    slot.problems = stream_.problems().size();
    slot.damaged = stream_.damaged().size();
    slot.read = stream_.read_archives().size();
    produced_.store(++p, std::memory_order_release);
    produced_.notify_one();
    if (slot.end) return;
  }
}

const Sample* SampleReadAhead::Next() {
  if (ended_ || !thread_.joinable()) return nullptr;
  if (taken_ > 0) {
    // The slot given last is free again.
    released_.store(taken_, std::memory_order_release);
    released_.notify_one();
  }
  uint32_t p = produced_.load(std::memory_order_acquire);
  while (p == taken_) {
    produced_.wait(p, std::memory_order_acquire);
    p = produced_.load(std::memory_order_acquire);
  }
  Slot& slot = slots_[taken_ % kDepth];
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

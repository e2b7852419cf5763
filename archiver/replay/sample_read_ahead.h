// SampleReadAhead: a SampleStream read on a thread of its own, up to a few
// samples ahead of the caller, so that the reading, comparing and decoding
// of records (half of a replay at the records) runs on the second core
// beside the evaluation and output of the samples before them.
//
// It gives what the stream gives, in the same order, and what the stream
// had said (warnings, restarts, problems, damage, archives read) when it
// gave each sample: a caller that stops early sees no more than one that
// read the stream itself.
//
// Invariants it keeps:
// - the stream is read by the thread alone, from construction until Stop()
//   (or the end, or the destructor) joins it; the caller reads it after;
// - the ring holds at most kDepth samples, fewer when they are wide
//   (kMostBytes), so memory follows the width;
// - the slot given by Next() is not written until the next call.
#ifndef MMVLOG_ARCHIVER_REPLAY_SAMPLE_READ_AHEAD_H_
#define MMVLOG_ARCHIVER_REPLAY_SAMPLE_READ_AHEAD_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "archiver/replay/sample_stream.h"

namespace mmvlog::archiver {

class SampleReadAhead {
 public:
  static constexpr uint32_t kDepth = 16;  // the most; a power of two
  // A ring of wide samples holds fewer (two at least, a power of two), at
  // most this many bytes of values: a replay's memory stays that of its
  // columns.
  static constexpr size_t kMostBytes = 4 << 20;

  // `stream`, set up (SeekBefore) and not yet read, must outlive this; it
  // must not keep records (Sample::record), follow, or be resumed from.
  // `columns`: how many the stream's samples can hold values of (its
  // ColumnSet's size), for the ring's depth; `most_bytes`: kMostBytes but
  // in tests; `resume_points`: keep, with each sample, where a stream
  // resuming after it starts (resume_point(); an interpolator's look ahead).
  SampleReadAhead(SampleStream& stream, size_t columns, size_t most_bytes = kMostBytes,
                  bool resume_points = false);
  ~SampleReadAhead();
  SampleReadAhead(const SampleReadAhead&) = delete;
  SampleReadAhead& operator=(const SampleReadAhead&) = delete;

  // The next sample, valid until the next call; nullptr at the end.
  const Sample* Next();
  // As the stream's, when it gave the last sample taken.
  const std::vector<std::string>& warnings() const { return warnings_; }
  uint64_t restarts() const { return restarts_; }
  // Where a stream resuming after the sample taken last starts
  // (SampleStream::ResumeAt); valid until the next call of Next. Only
  // with `resume_points`.
  const SampleStream::ResumePoint& resume_point() const {
    return slots_[(taken_ - 1) % depth_].point;
  }

  // Stops the thread (it finishes the record it is reading). Afterwards:
  // the stream's problems, damage and archives read when it gave the last
  // sample taken (the stream's own say what it read ahead too).
  void Stop();
  std::vector<std::string> problems() const { return Head(stream_.problems(), problems_); }
  std::vector<std::string> damaged() const { return Head(stream_.damaged(), damaged_); }
  std::vector<std::string> read_archives() const { return Head(stream_.read_archives(), read_); }

 private:
  struct Slot {
    Sample sample;
    uint64_t values_of = 0;  // SampleStream::TradeSample's
    bool end = false;
    uint64_t restarts = 0;
    std::vector<std::string> warnings;  // new since the slot before
    size_t problems = 0, damaged = 0, read = 0;
    SampleStream::ResumePoint point;
  };

  static std::vector<std::string> Head(const std::vector<std::string>& v, size_t n) {
    return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(n, v.size()))};
  }
  void Run();

  SampleStream& stream_;
  const uint32_t depth_;  // the ring's size
  const bool resume_points_;
  std::vector<Slot> slots_;
  // Counts of slots filled by the thread and released by the caller (mod
  // 2^32, 32 bits: futex waits).
  std::atomic<uint32_t> produced_{0};
  std::atomic<uint32_t> released_{0};
  std::atomic<bool> stop_{false};
  // Who sleeps, and for what count of the other's (Run's comment).
  std::atomic<bool> producer_waiting_{false}, consumer_waiting_{false};
  std::atomic<uint32_t> producer_wants_{0}, consumer_wants_{0};
  std::thread thread_;
  // The caller's.
  uint32_t taken_ = 0;
  bool ended_ = false;
  std::vector<std::string> warnings_;
  uint64_t restarts_ = 0;
  size_t problems_ = 0, damaged_ = 0, read_ = 0;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_SAMPLE_READ_AHEAD_H_

// LatenessHistogram: how late samples were against their schedule, kept in
// fixed memory however long a recording runs (no list of samples), with
// percentiles good to 1/16 of the value: 16 linear buckets per power of two
// of microseconds, exact below 16 us (the HdrHistogram layout, simplified).
#ifndef MMVLOG_ARCHIVER_SCHEDULE_LATENESS_H_
#define MMVLOG_ARCHIVER_SCHEDULE_LATENESS_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/time/time.h"

namespace mmvlog::archiver {

class LatenessHistogram {
 public:
  // A negative lateness (early) counts as 0.
  void Add(absl::Duration lateness);

  int64_t count() const { return count_; }
  absl::Duration max() const { return absl::Microseconds(max_us_); }
  // The smallest bucket bound at or below which a fraction `p` (0..1] of
  // the values lie, capped at max(): an upper bound on the true percentile
  // within 1/16 of it. Zero when empty.
  absl::Duration Percentile(double p) const;

 private:
  static constexpr int kSubBits = 4;  // 16 sub-buckets per power of two
  static constexpr int kBuckets = (64 - kSubBits + 1) << kSubBits;
  static int Bucket(uint64_t us);
  static uint64_t UpperBound(int bucket);

  std::array<int64_t, kBuckets> counts_{};
  int64_t count_ = 0;
  uint64_t max_us_ = 0;
};

// One line for logs and summaries, e.g. "6000 ticks, 99.98% on time (1
// missed, 0 late), lateness p50 62us p99 410us p99.9 1.2ms max 3.1ms".
// A tick is on time when its sample was taken before the next tick was due.
std::string ScheduleSummary(const LatenessHistogram& h, int64_t on_time, int64_t missed);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SCHEDULE_LATENESS_H_

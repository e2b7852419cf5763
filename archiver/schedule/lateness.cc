#include "archiver/schedule/lateness.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace mmvlog::archiver {

int LatenessHistogram::Bucket(uint64_t us) {
  if (us < (uint64_t{1} << kSubBits)) return static_cast<int>(us);
  const int msb = 63 - std::countl_zero(us);  // >= kSubBits
  const uint64_t sub = (us >> (msb - kSubBits)) & ((1 << kSubBits) - 1);
  return ((msb - kSubBits + 1) << kSubBits) + static_cast<int>(sub);
}

uint64_t LatenessHistogram::UpperBound(int bucket) {
  if (bucket < (1 << kSubBits)) return static_cast<uint64_t>(bucket);
  const int msb = (bucket >> kSubBits) + kSubBits - 1;
  const uint64_t sub = bucket & ((1 << kSubBits) - 1);
  const uint64_t lower = ((uint64_t{1} << kSubBits) + sub) << (msb - kSubBits);
  return lower + (uint64_t{1} << (msb - kSubBits)) - 1;
}

void LatenessHistogram::Add(absl::Duration lateness) {
  const int64_t us = std::max<int64_t>(0, absl::ToInt64Microseconds(lateness));
  ++counts_[Bucket(static_cast<uint64_t>(us))];
  ++count_;
  max_us_ = std::max(max_us_, static_cast<uint64_t>(us));
}

absl::Duration LatenessHistogram::Percentile(double p) const {
  if (count_ == 0) return absl::ZeroDuration();
  const int64_t want = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(p * count_)));
  int64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += counts_[b];
    if (seen >= want) {
      return absl::Microseconds(static_cast<int64_t>(std::min(UpperBound(b), max_us_)));
    }
  }
  return max();
}

namespace {

std::string Short(absl::Duration d) {
  if (d < absl::Milliseconds(1)) return absl::StrCat(absl::ToInt64Microseconds(d), "us");
  if (d < absl::Seconds(1)) return absl::StrFormat("%.3gms", absl::ToDoubleMilliseconds(d));
  return absl::StrFormat("%.3gs", absl::ToDoubleSeconds(d));
}

}  // namespace

std::string ScheduleSummary(const LatenessHistogram& h, int64_t on_time, int64_t missed) {
  const int64_t ticks = h.count() + missed;
  const double pct = ticks == 0 ? 100.0 : 100.0 * static_cast<double>(on_time) / ticks;
  return absl::StrCat(ticks, " ticks, ", absl::StrFormat("%.2f", pct), "% on time (", missed,
                      " missed, ", h.count() - on_time, " late), lateness p50 ",
                      Short(h.Percentile(0.5)), " p99 ", Short(h.Percentile(0.99)), " p99.9 ",
                      Short(h.Percentile(0.999)), " max ", Short(h.max()));
}

}  // namespace mmvlog::archiver

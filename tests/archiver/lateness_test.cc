// LatenessHistogram against exact percentiles of the same values (sorted),
// and the summary line's counts.
#include "archiver/schedule/lateness.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace mmvlog::archiver {
namespace {

using ::testing::HasSubstr;

TEST(LatenessHistogramTest, EmptyIsZero) {
  LatenessHistogram h;
  EXPECT_EQ(h.count(), 0);
  EXPECT_EQ(h.Percentile(0.99), absl::ZeroDuration());
  EXPECT_EQ(h.max(), absl::ZeroDuration());
}

TEST(LatenessHistogramTest, SmallValuesAreExactAndEarlyCountsAsZero) {
  LatenessHistogram h;
  for (int us = 0; us < 16; ++us) h.Add(absl::Microseconds(us));
  h.Add(absl::Microseconds(-50));
  EXPECT_EQ(h.count(), 17);
  EXPECT_EQ(h.Percentile(1.0 / 17), absl::ZeroDuration());
  EXPECT_EQ(h.Percentile(0.5), absl::Microseconds(7));
  EXPECT_EQ(h.Percentile(1.0), absl::Microseconds(15));
}

// Percentile is an upper bound within 1/16 of the exact value, for values
// spread over nine orders of magnitude.
TEST(LatenessHistogramTest, PercentilesWithinOneSixteenthOfExact) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(5.0, 2.5);  // us: median ~150 us
  for (int round = 0; round < 20; ++round) {
    LatenessHistogram h;
    std::vector<int64_t> exact;
    const int n = 1000 + round * 997;
    for (int i = 0; i < n; ++i) {
      const int64_t us = std::min<int64_t>(static_cast<int64_t>(dist(rng)), int64_t{1} << 40);
      h.Add(absl::Microseconds(us));
      exact.push_back(us);
    }
    std::sort(exact.begin(), exact.end());
    EXPECT_EQ(h.max(), absl::Microseconds(exact.back()));
    for (double p : {0.01, 0.5, 0.9, 0.99, 0.999, 1.0}) {
      const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(p * n)));
      const int64_t want = exact[rank - 1];
      const int64_t got = absl::ToInt64Microseconds(h.Percentile(p));
      EXPECT_GE(got, want) << "p " << p << " n " << n;
      EXPECT_LE(got, want + want / 16 + 1) << "p " << p << " n " << n;
    }
  }
}

TEST(LatenessHistogramTest, SummaryCountsTicksMissedAndLate) {
  LatenessHistogram h;
  for (int i = 0; i < 998; ++i) h.Add(absl::Microseconds(100));
  h.Add(absl::Milliseconds(15));  // late: after the next tick
  h.Add(absl::Milliseconds(3));
  // 1000 samples, 999 on time, 2 ticks missed: 999 / 1002.
  const std::string s = ScheduleSummary(h, 999, 2);
  EXPECT_THAT(s, HasSubstr("1002 ticks, 99.70% on time (2 missed, 1 late)"));
  EXPECT_THAT(s, HasSubstr("p50 103us"));  // the bound of the bucket 96..103 us
  EXPECT_THAT(s, HasSubstr("max 15ms"));
}

}  // namespace
}  // namespace mmvlog::archiver

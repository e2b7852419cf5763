// Tests of //format/derive:integer_reduce: each vectorized reduction equals
// the plain one over random arrays of every length from 1 to 100 (every
// remainder of a vector's width), with the extremes of both signs mixed in.
#include "format/derive/integer_reduce.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace mmvlog::format {
namespace {

TEST(IntegerReduceTest, EqualsThePlainLoopAtEveryLength) {
  std::mt19937_64 rng(20261129);
  const uint64_t extremes[] = {0, 1, std::numeric_limits<uint64_t>::max(), uint64_t{1} << 63,
                               (uint64_t{1} << 63) - 1};
  for (int round = 0; round < 20; ++round) {
    for (size_t n = 1; n <= 100; ++n) {
      std::vector<uint64_t> v(n);
      for (uint64_t& x : v) x = rng() % 4 == 0 ? extremes[rng() % 5] : rng() >> (rng() % 64);
      std::vector<int64_t> s(v.begin(), v.end());
      EXPECT_EQ(SumBits(v), std::accumulate(v.begin(), v.end(), uint64_t{0})) << n;
      EXPECT_EQ(MinUnsigned(v), *std::min_element(v.begin(), v.end())) << n;
      EXPECT_EQ(MaxUnsigned(v), *std::max_element(v.begin(), v.end())) << n;
      EXPECT_EQ(MinSigned(v), *std::min_element(s.begin(), s.end())) << n;
      EXPECT_EQ(MaxSigned(v), *std::max_element(s.begin(), s.end())) << n;
    }
  }
}

}  // namespace
}  // namespace mmvlog::format

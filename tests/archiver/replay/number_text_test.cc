// number_text: WriteNumber/AppendNumber must give exactly the bytes printf
// gives for the rule in number_text.h ("%.3f" with trailing zeros and point
// removed; every digit of |v| >= 1e15 that way too, as pmrep prints it;
// "%.6g" for 0 < |v| < 1e-3) for every kind of double, exact ties included;
// AppendCsvField quotes only what needs it.
#include "archiver/replay/output/number_text.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_format.h"

namespace mmvlog::archiver {
namespace {

// The rule, through printf.
std::string PrintfNumber(double v) {
  if (v != 0 && std::fabs(v) < 1e-3) return absl::StrFormat("%.6g", v);
  std::string s = absl::StrFormat("%.3f", v);
  if (!std::isfinite(v)) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

void ExpectLikePrintf(double v) {
  ASSERT_EQ(NumberText(v), PrintfNumber(v))
      << absl::StrFormat("%.17g (bits %016x)", v, std::bit_cast<uint64_t>(v));
}

TEST(AppendNumber, SpecialValues) {
  for (double v : {0.0, -0.0, 1.0, -1.0, 0.001, -0.001, 0.0009999999, 0.0005, 0.0015, 0.0025,
                   1e15, 1e15 - 0.125, 999999999999999.9, 1e-300, 5e-324, 1e300,
                   std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN(),
                   -std::numeric_limits<double>::quiet_NaN(), 12.5, 3.0, 100.0, 1234.5678,
                   4503599627370495.5, 9007199254740993.0, 2251799813685248.0, 0.1, 0.2, 0.3,
                   1e17 + 0.5, 18446744073709551615.0, 1.5e15 + 0.25}) {
    ExpectLikePrintf(v);
    ExpectLikePrintf(-v);
  }
}

// pmrep prints every digit of a large number ("%.3f"), not an exponent.
TEST(AppendNumber, LargeNumbersHaveEveryDigit) {
  EXPECT_EQ(NumberText(1e15), "1000000000000000");
  EXPECT_EQ(NumberText(-1234567890123456.75), "-1234567890123456.75");
  EXPECT_EQ(NumberText(18446744073709551615.0), "18446744073709551616");
  const std::string max = NumberText(-std::numeric_limits<double>::max());
  EXPECT_EQ(max.size(), 310u);  // a sign and 309 digits
  EXPECT_LE(max.size(), kMaxNumberText);
  EXPECT_EQ(max.substr(0, 8), "-1797693");
  // Small ones as "%.6g".
  EXPECT_EQ(NumberText(0.000123456789), "0.000123457");
  EXPECT_EQ(NumberText(2.5e-10), "2.5e-10");
}

TEST(AppendNumber, ExactTiesRoundAsPrintfDoes) {
  // Values whose exact binary value ends in 5 at the fourth decimal (k /
  // 2^n): printf rounds them half to even; so must we.
  for (int n = 1; n <= 12; ++n) {
    const double step = std::ldexp(1.0, -n);
    for (int k = 0; k < 5000; ++k) ExpectLikePrintf(k * step + 0.001 * (k % 3));
    for (int k = 0; k < 5000; ++k) ExpectLikePrintf(1e6 + k * step);
    for (int k = 0; k < 200; ++k) ExpectLikePrintf(1e12 + k * step);
    for (int k = 0; k < 200; ++k) ExpectLikePrintf(1e15 + k * step * 1024);
  }
  for (int64_t k = 0; k < 200000; ++k) {
    ExpectLikePrintf(static_cast<double>(k) / 8000);  // k * 0.000125: many exact ties
    ExpectLikePrintf(static_cast<double>(k) / 1000 + 0.0005);
  }
}

TEST(AppendNumber, RatesAsCountersGiveThem) {
  // delta / seconds, as replay computes rates, for many deltas and
  // intervals (also sub-second ones recorded with microseconds).
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1'000'000; ++i) {
    const double delta = static_cast<double>(rng() % 10'000'000);
    const double dt = static_cast<double>(rng() % 100'000'000 + 1) / 1e6;
    ExpectLikePrintf(delta / dt);
  }
}

TEST(AppendNumber, RandomDoublesOfEveryMagnitude) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> exponent(-8, 20);
  for (int i = 0; i < 1'000'000; ++i) {
    const double v = std::pow(10.0, exponent(rng)) * (rng() % 2 ? 1 : -1);
    ExpectLikePrintf(v);
    // Near boundaries: the neighbours of the value.
    ExpectLikePrintf(std::nextafter(v, 0.0));
  }
  for (int i = 0; i < 200'000; ++i) {
    ExpectLikePrintf(std::bit_cast<double>(rng()));  // any bit pattern
  }
}

TEST(AppendNumber, AppendsAndWritesTheSameText) {
  std::string out = "x,";
  AppendNumber(12.5, &out);
  EXPECT_EQ(out, "x,12.5");
  char buf[kMaxNumberText];
  char* end = WriteNumber(-0.25, buf);
  EXPECT_EQ(std::string(buf, end), "-0.25");
}

TEST(AppendCsvField, QuotesOnlyWhatNeedsIt) {
  auto field = [](absl::string_view s) {
    std::string out;
    AppendCsvField(s, &out);
    return out;
  };
  EXPECT_EQ(field("plain text"), "plain text");
  EXPECT_EQ(field(""), "");
  EXPECT_EQ(field("a,b"), "\"a,b\"");
  EXPECT_EQ(field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(field("\""), "\"\"\"\"");
  // Appends: what was there stays.
  std::string out = "a,";
  AppendCsvField("b,c", &out);
  EXPECT_EQ(out, "a,\"b,c\"");
}

}  // namespace
}  // namespace mmvlog::archiver

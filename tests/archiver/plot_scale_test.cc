// archiver/plot_scale: value ticks on 1-2-5 steps, time ticks on round times,
// tick labels, names shortened in the middle; as tables.
#include "archiver/replay/plot/plot_scale.h"

#include <cmath>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace mmvlog::archiver {
namespace {

using ::testing::ElementsAreArray;

// A step is 1, 2 or 5 times a power of ten.
bool IsOneTwoFive(double step) {
  const double m = step / std::pow(10, std::floor(std::log10(step)));
  return std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 5) < 1e-9;
}

TEST(NiceValueTicksTest, Table) {
  struct Case {
    double lo, hi;
    std::vector<double> ticks;
  } cases[] = {
      {0, 79.003, {0, 20, 40, 60, 80}},
      {3.1, 153.724, {0, 50, 100, 150, 200}},
      {-7, 7, {-10, -5, 0, 5, 10}},
      {0.1, 0.9, {0.0, 0.2, 0.4, 0.6, 0.8, 1.0}},
      {1e-9, 3e-9, {1e-9, 1.5e-9, 2e-9, 2.5e-9, 3e-9}},
      {499660, 500350, {499600, 499800, 500000, 500200, 500400}},
      {5, 5, {4.4, 4.6, 4.8, 5, 5.2, 5.4, 5.6}},  // one value: a range around it
      {0, 0, {0, 0.2, 0.4, 0.6, 0.8, 1.0}},
      {9, 1, {0, 2, 4, 6, 8, 10}},  // swapped
      {0, 1.8e12, {0, 5e11, 1e12, 1.5e12, 2e12}},
  };
  for (const Case& c : cases) {
    ValueTicks t = NiceValueTicks(c.lo, c.hi, 5);
    ASSERT_EQ(t.ticks.size(), c.ticks.size()) << c.lo << ".." << c.hi;
    for (size_t i = 0; i < t.ticks.size(); ++i) {
      EXPECT_NEAR(t.ticks[i], c.ticks[i], std::abs(t.step) * 1e-9) << c.lo << ".." << c.hi;
    }
    EXPECT_TRUE(IsOneTwoFive(t.step)) << t.step;
    EXPECT_LE(t.lo, std::min(c.lo, c.hi));
    EXPECT_GE(t.hi, std::max(c.lo, c.hi));
  }
  // Non-finite input: a usable axis all the same.
  ValueTicks t = NiceValueTicks(NAN, INFINITY);
  EXPECT_EQ(t.lo, 0);
  EXPECT_EQ(t.hi, 1);
}

TEST(ValueTickLabelTest, Table) {
  struct Case {
    double value, step;
    const char* text;
  } cases[] = {
      {40, 20, "40"},        {0.25, 0.05, "0.25"},  {1.5, 0.5, "1.5"},
      {-0.0, 1, "0"},        {1e-17, 0.2, "0.0"},   {500000, 200, "500000"},
      {2e9, 5e8, "2e+09"},   {3e-9, 5e-10, "3e-09"}, {0.2, 0.2, "0.2"},
  };
  for (const Case& c : cases) EXPECT_EQ(ValueTickLabel(c.value, c.step), c.text) << c.value;
}

TEST(NiceTimeTicksTest, RoundTimesForEverySpan) {
  const absl::TimeZone utc = absl::UTCTimeZone();
  // 10:04:53.4 UTC on 2026-11-24.
  const absl::Time t0 =
      absl::FromCivil(absl::CivilSecond(2026, 11, 24, 10, 4, 53), utc) + absl::Milliseconds(400);
  struct Case {
    absl::Duration span;
    absl::Duration step;
    const char* first;  // label of the first tick
    const char* format;
  } cases[] = {
      {absl::Seconds(3), absl::Milliseconds(500), "10:04:53.5", "%H:%M:%E1S"},
      {absl::Seconds(90), absl::Seconds(15), "10:05:00", "%H:%M:%S"},
      {absl::Minutes(20), absl::Minutes(5), "10:05", "%H:%M"},
      {absl::Hours(5), absl::Hours(1), "11:00", "%H:%M"},
      {absl::Hours(72), absl::Hours(12), "Nov 24 12:00", "%b %d %H:%M"},
      {absl::Hours(24 * 30), absl::Hours(24 * 7), "Dec 01", "%b %d"},
  };
  for (const Case& c : cases) {
    TimeTicks t = NiceTimeTicks(t0, t0 + c.span, utc, 7);
    EXPECT_EQ(t.step, c.step) << c.span;
    EXPECT_EQ(t.format, c.format) << c.span;
    ASSERT_FALSE(t.ticks.empty()) << c.span;
    EXPECT_LE(t.ticks.size(), 8u);
    EXPECT_EQ(absl::FormatTime(t.format, t.ticks[0], utc), c.first) << c.span;
    for (size_t i = 0; i < t.ticks.size(); ++i) {
      EXPECT_GE(t.ticks[i], t0);
      EXPECT_LE(t.ticks[i], t0 + c.span);
      if (i > 0) EXPECT_EQ(t.ticks[i] - t.ticks[i - 1], c.step);
    }
  }
  // Round in the zone shown: 10:05:30 in Kolkata (UTC+5:30) is 04:35:30 UTC.
  const absl::TimeZone kolkata = absl::FixedTimeZone(5 * 3600 + 1800);
  TimeTicks k = NiceTimeTicks(t0, t0 + absl::Minutes(3), kolkata, 7);
  EXPECT_EQ(k.step, absl::Seconds(30));
  for (absl::Time x : k.ticks) EXPECT_EQ(kolkata.At(x).cs.second() % 30, 0);
}

TEST(ShortenMiddleTest, Table) {
  struct Case {
    const char* in;
    size_t max;
    const char* out;
  } cases[] = {
      {"mmv.app.requests", 40, "mmv.app.requests"},
      {"mmv.app.very.long.metric.name[/api/users]", 20, "mmv.app.ve…pi/users]"},
      {"abcdef", 5, "ab…ef"},
      {"abcdef", 1, "…"},
      {"héllo wörld", 7, "hél…rld"},  // never inside a UTF-8 character
  };
  for (const Case& c : cases) {
    const std::string got = ShortenMiddle(c.in, c.max);
    EXPECT_EQ(got, c.out) << c.in;
    EXPECT_LE(Utf8Length(got), c.max);
  }
}

}  // namespace
}  // namespace mmvlog::archiver

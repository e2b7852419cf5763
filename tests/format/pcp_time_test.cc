// format/pcp_time: PCP's time window syntax (PCPIntro(1), pmParseTimeWindow(3)),
// as tables over the man page's own example: an archive that starts at
// Mon Mar 4 13:07:47 1996 (US Eastern time) and ends two days later.
#include "format/text/pcp_time.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace mmvlog::format {
namespace {

using ::testing::HasSubstr;

absl::TimeZone Eastern() {
  absl::TimeZone tz;
  // tzdata is on every machine that runs PCP; a fixed EST otherwise.
  if (!absl::LoadTimeZone("America/New_York", &tz)) tz = absl::FixedTimeZone(-5 * 3600);
  return tz;
}

absl::Time At(int y, int mo, int d, int h, int mi, int s, absl::TimeZone tz = Eastern()) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), tz);
}

const absl::Time kStart = At(1996, 3, 4, 13, 7, 47);
const absl::Time kEnd = kStart + absl::Hours(48);

TEST(ParsePcpTimeTest, Table) {
  const absl::Duration min = absl::Minutes(1);
  struct Case {
    const char* text;
    absl::Time want;
    const char* error;  // nullptr when ok
  } cases[] = {
      // The man page's examples.
      {"@13:10", At(1996, 3, 4, 13, 10, 0), nullptr},
      {"@10:00", At(1996, 3, 5, 10, 0, 0), nullptr},  // the next day
      {"@ Mar 1996", At(1996, 3, 1, 0, 0, 0), nullptr},
      {"@ Mar 1 00:00:00 1996", At(1996, 3, 1, 0, 0, 0), nullptr},
      {"30min", kStart + 30 * min, nullptr},
      {"+30min", kStart + 30 * min, nullptr},
      {"-1hour", kEnd - 60 * min, nullptr},
      {"2h30m", kStart + 150 * min, nullptr},
      // ctime forms, high-order fields from the start, advanced to match.
      {"@Mon Mar  4 13:07:47 1996", kStart, nullptr},
      {"@Mar 4 1996", At(1996, 3, 4, 0, 0, 0), nullptr},
      {"@Mar 4", At(1996, 3, 4, 0, 0, 0), nullptr},
      {"@Apr", At(1996, 4, 1, 0, 0, 0), nullptr},
      {"@Feb", At(1997, 2, 1, 0, 0, 0), nullptr},          // February is past: next year's
      {"@March 6 09:30", At(1996, 3, 6, 9, 30, 0), nullptr},  // full month names too
      {"@5 10:00", At(1996, 3, 5, 10, 0, 0), nullptr},
      {"@3 10:00", At(1996, 4, 3, 10, 0, 0), nullptr},      // day 3 is past: next month's
      {"@13:08", At(1996, 3, 4, 13, 8, 0), nullptr},
      {"@13:07", At(1996, 3, 4, 13, 7, 0), nullptr},        // same hour: same day (libpcp)
      {"@4:30pm", At(1996, 3, 4, 16, 30, 0), nullptr},
      {"@12:15am", At(1996, 3, 5, 0, 15, 0), nullptr},
      {"@10:00:30.25", At(1996, 3, 5, 10, 0, 30) + absl::Milliseconds(250), nullptr},
      // ISO dates, with or without '@'.
      {"@1996-03-05 14:07:47", At(1996, 3, 5, 14, 7, 47), nullptr},
      {"1996-03-05 14:07:47.5", At(1996, 3, 5, 14, 7, 47) + absl::Milliseconds(500), nullptr},
      {"@1996-03-05T14:07", At(1996, 3, 5, 14, 7, 0), nullptr},
      {"@1996-03-06", At(1996, 3, 6, 0, 0, 0), nullptr},
      {"13:10", At(1996, 3, 4, 13, 10, 0), nullptr},        // a datetime without '@'
      // Errors, naming what was typed.
      {"@4pm", {}, "bad time '@4pm'"},                      // an hour alone: too little
      {"@25:00", At(1996, 3, 25, 0, 0, 0), nullptr},  // as libpcp: day 25, 00:00
      {"@24:61", {}, "bad time '@24:61'"},
      {"@13:61", {}, "bad time"},
      {"@Mon", {}, "bad time"},
      {"yesterday-ish", {}, "bad time 'yesterday-ish'"},
      {"", {}, "bad time ''"},
      {"@", {}, "bad time '@'"},
      {"-", {}, "bad time '-'"},
      {"@infinite-future", {}, "bad time"},
      {"@1996-13-01", {}, "bad time"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<absl::Time> got = ParsePcpTime(c.text, kStart, kEnd, Eastern());
    if (c.error != nullptr) {
      ASSERT_FALSE(got.ok()) << c.text << " gave " << *got;
      EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(got.status().message()), HasSubstr(c.error)) << c.text;
    } else {
      ASSERT_TRUE(got.ok()) << c.text << ": " << got.status();
      EXPECT_EQ(*got, c.want) << c.text << ": got "
                              << absl::FormatTime("%c %E3S", *got, Eastern());
    }
  }
  // Live (no end yet): "-interval" has nothing to count back from.
  EXPECT_FALSE(ParsePcpTime("-1hour", kStart, absl::InfiniteFuture(), Eastern()).ok());
  EXPECT_EQ(*ParsePcpTime("10mins", kStart, absl::InfiniteFuture(), Eastern()),
            kStart + absl::Minutes(10));
  // A partial date needs a finite origin.
  EXPECT_FALSE(ParsePcpTime("@10:00", absl::InfiniteFuture(), absl::InfiniteFuture(), Eastern()).ok());
}

TEST(ResolveTimeWindowTest, Table) {
  const absl::Duration min = absl::Minutes(1);
  struct Case {
    TimeWindowSpec spec;  // -S, -T, -A, -O
    absl::Time start, end, origin;
    const char* error;    // nullptr when ok
    const char* warning;  // nullptr for none
  } cases[] = {
      {{}, kStart, kEnd, kStart, nullptr, nullptr},
      {{"10min", "30min", "", ""}, kStart + 10 * min, kStart + 40 * min, kStart + 10 * min,
       nullptr, nullptr},  // -T counts from -S
      {{"-1hour", "", "", ""}, kEnd - 60 * min, kEnd, kEnd - 60 * min, nullptr, nullptr},
      {{"@Mar 1 1996", "", "", ""}, kStart, kEnd, kStart, nullptr, nullptr},  // moved up
      {{"", "@Mar 9 1996", "", ""}, kStart, kEnd, kStart, nullptr, nullptr},  // trimmed
      {{"", "-30min", "", ""}, kStart, kEnd - 30 * min, kStart, nullptr, nullptr},
      {{"", "", "10min", ""}, At(1996, 3, 4, 13, 10, 0), kEnd, At(1996, 3, 4, 13, 10, 0),
       nullptr, nullptr},
      {{"", "", "", "+5min"}, kStart, kEnd, kStart + 5 * min, nullptr, nullptr},
      {{"", "", "", "-1min"}, kStart, kEnd, kEnd - min, nullptr, nullptr},
      {{"", "", "", "@Mar 9 1996"}, kStart, kEnd, kEnd, nullptr, nullptr},  // clamped
      {{"", "", "15min", "+1min"}, At(1996, 3, 4, 13, 15, 0), kEnd, At(1996, 3, 4, 13, 30, 0),
       nullptr, nullptr},  // -O aligned by -A
      {{"", "", "100days", ""}, kStart, kEnd, kStart, nullptr, "outside the archive"},
      {{"", "-3days", "", ""}, {}, {}, {}, "-T -3days", nullptr},
      {{"3days", "", "", ""}, {}, {}, {}, "-S 3days", nullptr},
      {{"+1hour", "@Mar 4 13:00 1996", "", ""}, {}, {}, {}, "before the start of the window",
       nullptr},
      {{"+1hour", "@13:00", "", ""}, kStart + 60 * min, At(1996, 3, 5, 13, 0, 0),
       kStart + 60 * min, nullptr, nullptr},  // 13:00 after 14:07 is the next day's
      {{"bogus", "", "", ""}, {}, {}, {}, "-S bogus: bad time 'bogus'", nullptr},
      {{"", "bogus", "", ""}, {}, {}, {}, "-T bogus", nullptr},
      {{"", "", "0", ""}, {}, {}, {}, "-A 0", nullptr},
      {{"", "", "", "bogus"}, {}, {}, {}, "-O bogus", nullptr},
  };
  for (const Case& c : cases) {
    const std::string what = c.spec.start + "|" + c.spec.end + "|" + c.spec.align + "|" + c.spec.origin;
    absl::StatusOr<TimeWindow> w = ResolveTimeWindow(c.spec, kStart, kEnd, Eastern());
    if (c.error != nullptr) {
      ASSERT_FALSE(w.ok()) << what;
      EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(w.status().message()), HasSubstr(c.error)) << what;
      continue;
    }
    ASSERT_TRUE(w.ok()) << what << ": " << w.status();
    EXPECT_EQ(w->start, c.start) << what;
    EXPECT_EQ(w->end, c.end) << what;
    EXPECT_EQ(w->origin, c.origin) << what;
    if (c.warning == nullptr) {
      EXPECT_EQ(w->warning, "") << what;
    } else {
      EXPECT_THAT(w->warning, HasSubstr(c.warning)) << what;
    }
  }
}

TEST(PcpTimeTest, NeverCrashesOnAnyPrefix) {
  const std::string text = "@Mon Mar  4 13:07:47.25 1996 +1h30m -2days 2026-11-24T10:05:30";
  for (size_t n = 0; n <= text.size(); ++n) {
    (void)ParsePcpTime(text.substr(0, n), kStart, kEnd, Eastern());
    (void)ParsePcpTime(text.substr(n), kStart, absl::InfiniteFuture(), Eastern());
  }
}

}  // namespace
}  // namespace mmvlog::format

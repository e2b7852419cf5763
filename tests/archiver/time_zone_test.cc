// archiver/store/time_zone: every zone form PCP's tools take, each instant's
// wall-clock time and offset equal to glibc's localtime_r under that $TZ (the
// engine libpcp uses), across daylight-saving transitions.
#include "archiver/store/time_zone.h"

#include <time.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace mmvlog::archiver {
namespace {

// What glibc says of each of `times` under `tz`: "YYYY-MM-DD HH:MM:SS offset".
std::vector<std::string> Glibc(const std::string& tz, const std::vector<int64_t>& times) {
  std::optional<std::string> saved;
  if (const char* old = std::getenv("TZ")) saved = old;
  ::setenv("TZ", tz.c_str(), 1);
  ::tzset();
  std::vector<std::string> out;
  for (int64_t t : times) {
    const time_t secs = static_cast<time_t>(t);
    struct tm tm {};
    ::localtime_r(&secs, &tm);
    char text[64];
    ::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &tm);
    out.push_back(absl::StrCat(text, " ", tm.tm_gmtoff));
  }
  if (saved) {
    ::setenv("TZ", saved->c_str(), 1);
  } else {
    ::unsetenv("TZ");
  }
  ::tzset();
  return out;
}

std::string Ours(const absl::TimeZone& zone, int64_t t) {
  const absl::Time at = absl::FromUnixSeconds(t);
  return absl::StrCat(absl::FormatTime("%Y-%m-%d %H:%M:%S", at, zone), " ", zone.At(at).offset);
}

// The zones PCP's QA archives carry in their labels, zoneinfo names, and
// POSIX strings of every rule form (Mm.w.d, Jn, n, with and without /time,
// negative and quoted names, daylight saving without rules).
const char* const kZones[] = {
    "UTC",
    ":Australia/Melbourne",
    "Europe/London",
    "America/New_York",
    "PST8PDT",
    "EST5EDT",
    "AEST-10",
    "AEDT-11",
    "EDT+4",
    "IST-5:30",
    "<+0530>-5:30",
    "GMT0BST-1,M3.5.0/2,M10.5.0/2",
    "AEST-10AEDT-11,M10.5.0/3,M3.5.0/2",
    "EST-11EST-10,89/2:00,299/2:00",
    "EST-11EST-10,87/2:00,304/3:00",
    "EST-11EST-10,86/2:00,303/2:00",
    "CET-1CEST,M3.5.0,M10.5.0/3",
    "NZST-12NZDT,J270/2,J96/3",
    "XYZ+3:30ABC+2:30,M4.1.0/-1,M10.1.0/26",
    "AEST-10AEDT",  // daylight saving named, rules from glibc's defaults
};

// Compares the zone with glibc at `times`.
void ExpectAsGlibc(const char* tz, const std::vector<int64_t>& times) {
  absl::StatusOr<absl::TimeZone> zone = LoadPcpTimeZone(tz);
  ASSERT_TRUE(zone.ok()) << tz << ": " << zone.status();
  const std::vector<std::string> want = Glibc(tz, times);
  for (size_t i = 0; i < times.size(); ++i) {
    ASSERT_EQ(Ours(*zone, times[i]), want[i]) << tz << " at " << times[i];
  }
}

TEST(TimeZoneTest, EveryInstantAsGlibc) {
  // Every 6 hours 17 minutes 1 second (so every hour of the day is hit)
  // over the years of PCP's collection and past 2038.
  std::vector<int64_t> times;
  for (int64_t t = 631152000; t < 2240611200; t += 6 * 3600 + 17 * 60 + 1) times.push_back(t);
  for (const char* tz : kZones) ExpectAsGlibc(tz, times);
}

TEST(TimeZoneTest, TransitionsToTheSecond) {
  for (const char* tz : kZones) {
    absl::StatusOr<absl::TimeZone> zone = LoadPcpTimeZone(tz);
    ASSERT_TRUE(zone.ok()) << tz;
    // Around each transition cctz knows (from zoneinfo or compiled): one
    // second before, at, and after it.
    std::vector<int64_t> times;
    absl::TimeZone::CivilTransition trans;
    absl::Time t = absl::FromUnixSeconds(631152000);
    while (zone->NextTransition(t, &trans) && times.size() < 600) {
      t = zone->At(trans.to).trans;
      if (t > absl::FromUnixSeconds(2240611200)) break;
      for (int64_t d : {-1, 0, 1}) times.push_back(absl::ToUnixSeconds(t) + d);
    }
    ExpectAsGlibc(tz, times);
  }
}

TEST(TimeZoneTest, DayOfYearRulesPlaceSummerTime) {
  // An archive label of the 1990s from PCP's QA collection: UTC+11 in
  // summer ("EST-11", standard by name), UTC+10 from day 89 to day 299.
  absl::StatusOr<absl::TimeZone> zone = LoadPcpTimeZone("EST-11EST-10,89/2:00,299/2:00");
  ASSERT_TRUE(zone.ok());
  EXPECT_EQ(zone->At(absl::FromUnixSeconds(868262400)).offset, 10 * 3600);  // 1997-07-07
  EXPECT_EQ(zone->At(absl::FromUnixSeconds(853545600)).offset, 11 * 3600);  // 1997-01-18
}

TEST(TimeZoneTest, CivilTimesInBothDirections) {
  // -S/@time parsing turns wall-clock time into an instant with the same zone.
  absl::StatusOr<absl::TimeZone> zone = LoadPcpTimeZone("GMT0BST-1,M3.5.0/2,M10.5.0/2");
  ASSERT_TRUE(zone.ok());
  const absl::Time summer = absl::FromCivil(absl::CivilSecond(2026, 7, 1, 12, 0, 0), *zone);
  EXPECT_EQ(summer, absl::FromUnixSeconds(1782903600));  // 11:00 UTC
  const absl::Time winter = absl::FromCivil(absl::CivilSecond(2026, 1, 1, 12, 0, 0), *zone);
  EXPECT_EQ(winter, absl::FromUnixSeconds(1767268800));  // 12:00 UTC
}

TEST(TimeZoneTest, LocalZoneIsTzAsGlibcReadsIt) {
  std::optional<std::string> saved;
  if (const char* old = std::getenv("TZ")) saved = old;
  ::setenv("TZ", "AEST-10AEDT-11,M10.5.0/3,M3.5.0/2", 1);
  const absl::TimeZone local = LocalPcpTimeZone();
  EXPECT_EQ(local.At(absl::FromUnixSeconds(1768478400)).offset, 11 * 3600);  // January
  EXPECT_EQ(local.At(absl::FromUnixSeconds(1782900000)).offset, 10 * 3600);  // July
  if (saved) {
    ::setenv("TZ", saved->c_str(), 1);
  } else {
    ::unsetenv("TZ");
  }
}

TEST(TimeZoneTest, RefusesWhatIsNoZone) {
  for (const char* tz : {"", "nonsense", "AB-1", "ABC-99", "ABC-1x", "<+05", "Not/AZone",
                         "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0"}) {
    absl::StatusOr<absl::TimeZone> zone = LoadPcpTimeZone(tz);
    ASSERT_FALSE(zone.ok()) << tz;
    EXPECT_NE(zone.status().message().find(absl::StrCat("'", tz, "'")), std::string::npos)
        << zone.status();
  }
}

TEST(TimeZoneTest, PosixGrammar) {
  EXPECT_TRUE(IsPosixTz("AEST-10"));
  EXPECT_TRUE(IsPosixTz("<+0530>-5:30"));
  EXPECT_TRUE(IsPosixTz("EST-11EST-10,89/2:00,299/2:00"));
  EXPECT_TRUE(IsPosixTz("NZST-12NZDT,J270/2,J96/3"));
  EXPECT_TRUE(IsPosixTz("PST8PDT7,M3.2.0/2:00:00,M11.1.0/2:00:00"));
  EXPECT_FALSE(IsPosixTz("Europe/Berlin"));
  EXPECT_FALSE(IsPosixTz("AEST"));
  EXPECT_FALSE(IsPosixTz("AEST-10AEDT,J0,J100"));
  EXPECT_FALSE(IsPosixTz("AEST-10AEDT,M3.2.0"));
}

}  // namespace
}  // namespace mmvlog::archiver

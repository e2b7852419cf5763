// cmd/time_zone: the zones PCP tools accept for -Z, and what archive labels
// hold for -z.
#include "cmd/time_zone.h"

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace mmvlog::cmd {
namespace {

// The UTC offset of `zone` at 2026-01-15 12:00 UTC (northern winter).
int OffsetInJanuary(const absl::TimeZone& zone) {
  return zone.At(absl::FromUnixSeconds(1768478400)).offset;
}

TEST(LoadPcpTimeZoneTest, Table) {
  struct Case {
    const char* tz;
    bool ok;
    int offset;  // seconds east of UTC in January
  } cases[] = {
      {"UTC", true, 0},
      {":Etc/UTC", true, 0},                      // a v3 label's zoneinfo
      {"Australia/Melbourne", true, 11 * 3600},   // daylight saving in January
      {":Australia/Melbourne", true, 11 * 3600},
      {"EST5EDT", true, -5 * 3600},               // a zoneinfo file of that name
      {"AEST-10", true, 10 * 3600},               // POSIX: west is positive
      {"AEST-10AEDT,M10.1.0,M4.1.0/3", true, 10 * 3600},  // std offset only
      {"XYZ+3:30", true, -(3 * 3600 + 30 * 60)},
      {"<+0530>-5:30", true, 5 * 3600 + 30 * 60},
      {"", false, 0},
      {"nonsense", false, 0},
      {"AB-1", false, 0},                          // a name needs 3 letters
      {"ABC-99", false, 0},
      {"ABC-1x", false, 0},
      {"<+05", false, 0},
  };
  for (const Case& c : cases) {
    absl::StatusOr<absl::TimeZone> zone = LoadPcpTimeZone(c.tz);
    EXPECT_EQ(zone.ok(), c.ok) << c.tz;
    if (zone.ok() && c.ok) {
      EXPECT_EQ(OffsetInJanuary(*zone), c.offset) << c.tz;
    } else if (!zone.ok()) {
      EXPECT_NE(zone.status().message().find(std::string("'") + c.tz + "'"), std::string::npos)
          << zone.status();
    }
  }
}

}  // namespace
}  // namespace mmvlog::cmd

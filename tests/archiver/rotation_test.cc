// Rotation housekeeping: archive names and period starts (including
// daylight-saving days in Europe/Berlin), retention (the pure policy and
// deletion on disk), and zstd compression of finished volumes (the
// background compressor, the round trip, truncated and missing files, and
// `zstd -d` restoring a recorded volume byte for byte).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "archiver/store/archive_naming.h"
#include "archiver/store/compress.h"
#include "archiver/store/compressor.h"
#include "archiver/file/posix_file.h"
#include "archiver/record/recorder.h"
#include "archiver/store/retention.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_writer.h"
#include "tests/archiver/recorder_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::StatusIs;
using ::testing::_;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

absl::Time Utc(int y, int mo, int d, int h, int mi, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), absl::UTCTimeZone());
}

// A fresh, empty directory under the test's temporary directory.
std::string TempDir(const std::string& name) {
  static int n = 0;
  const std::string dir =
      absl::StrCat(::testing::TempDir(), "/", name, "_", ::getpid(), "_", n++);
  EXPECT_EQ(::mkdir(dir.c_str(), 0755), 0) << dir;
  return dir;
}

std::set<std::string> ListDir(const std::string& dir) {
  std::set<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (struct dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") out.insert(n);
  }
  ::closedir(d);
  return out;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

void WriteFile(const std::string& path, const std::string& data) {
  std::vector<uint8_t> bytes(data.begin(), data.end());
  ASSERT_OK(WriteFileAtomically(path, bytes));
}

void SetMtime(const std::string& path, absl::Time t) {
  struct timespec times[2];
  times[0] = absl::ToTimespec(t);
  times[1] = absl::ToTimespec(t);
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

// Bytes that zstd cannot shrink (so a volume spans many blocks).
std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng() & 0xff);
  return out;
}

// Bytes that compress well: repeated text with a counter.
std::string TextBytes(size_t n) {
  std::string out;
  for (int i = 0; out.size() < n; ++i) absl::StrAppend(&out, "sample ", i, " value=42\n");
  out.resize(n);
  return out;
}

std::vector<uint8_t> AsVector(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

// Collects log lines; the compressor logs from its own thread.
class LogSink {
 public:
  LogFunction Function() {
    return [this](LogLevel level, const std::string& line) {
      absl::MutexLock lock(&mu_);
      lines_.push_back({level, line});
    };
  }
  std::vector<std::pair<LogLevel, std::string>> Lines() {
    absl::MutexLock lock(&mu_);
    return lines_;
  }
  int Count(LogLevel level) {
    int n = 0;
    for (const auto& [l, line] : Lines()) n += l == level;
    return n;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::pair<LogLevel, std::string>> lines_;
};

// ---------------------------------------------------------------------------
// archive_naming.h
// ---------------------------------------------------------------------------

// Sets TZ for the test and restores the previous value afterwards.
class NamingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* tz = std::getenv("TZ")) saved_tz_ = tz;
    SetTz("Europe/Berlin");
    // Without tzdata the local-time cases would test UTC instead.
    ASSERT_EQ(ArchiveNameAt(Utc(2026, 1, 15, 9, 30)), "20260115.10.30")
        << "Europe/Berlin not available (tzdata missing?)";
  }
  void TearDown() override {
    if (saved_tz_.has_value()) {
      ::setenv("TZ", saved_tz_->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }
  static void SetTz(const char* tz) {
    ::setenv("TZ", tz, 1);
    ::tzset();
  }

  std::optional<std::string> saved_tz_;
};

TEST_F(NamingTest, NameInUtc) {
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 11, 22, 10, 0), /*utc=*/true), "20261122.10.00");
  // Seconds and sub-seconds are dropped, not rounded.
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 11, 22, 10, 5, 59) + absl::Milliseconds(999), true),
            "20261122.10.05");
  // Zero padding of every field.
  EXPECT_EQ(ArchiveNameAt(Utc(2027, 1, 2, 3, 4, 5), true), "20270102.03.04");
  // Year boundary.
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 12, 31, 23, 59, 59), true), "20261231.23.59");
  EXPECT_EQ(ArchiveNameAt(Utc(2027, 1, 1, 0, 0, 0), true), "20270101.00.00");
}

TEST_F(NamingTest, NameInLocalTime) {
  // CET (+1) in winter, CEST (+2) in summer.
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 1, 15, 9, 30)), "20260115.10.30");
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 7, 1, 9, 30)), "20260701.11.30");
  // Local date differs from the UTC date.
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 12, 31, 23, 30)), "20270101.00.30");
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 12, 31, 23, 30), /*utc=*/true), "20261231.23.30");
}

TEST_F(NamingTest, NameFollowsTzChangesBetweenCalls) {
  const absl::Time t = Utc(2026, 6, 1, 12, 0);
  EXPECT_EQ(ArchiveNameAt(t), "20260601.14.00");
  SetTz("UTC");
  EXPECT_EQ(ArchiveNameAt(t), "20260601.12.00");
  SetTz("America/New_York");
  EXPECT_EQ(ArchiveNameAt(t), "20260601.08.00");
  SetTz("Asia/Kolkata");  // +05:30
  EXPECT_EQ(ArchiveNameAt(t), "20260601.17.30");
}

TEST_F(NamingTest, NamesAroundSpringForward) {
  // 2026-03-29 02:00 CET -> 03:00 CEST, at 01:00 UTC.
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 3, 29, 0, 59, 59)), "20260329.01.59");
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 3, 29, 1, 0, 0)), "20260329.03.00");
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 3, 29, 1, 1, 0)), "20260329.03.01");
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 3, 28, 23, 0, 0)), "20260329.00.00");  // CET
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 3, 29, 22, 0, 0)), "20260330.00.00");  // CEST
}

TEST_F(NamingTest, NamesAroundFallBack) {
  // 2026-10-25 03:00 CEST -> 02:00 CET, at 01:00 UTC: 02:xx happens twice.
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 10, 25, 0, 30)), "20261025.02.30");
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 10, 25, 0, 59, 59)), "20261025.02.59");
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 10, 25, 1, 0, 0)), "20261025.02.00");
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 10, 25, 1, 30)), "20261025.02.30");
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 10, 24, 22, 0, 0)), "20261025.00.00");  // CEST
  EXPECT_EQ(ArchiveNameAt(Utc(2026, 10, 25, 23, 0, 0)), "20261026.00.00");  // CET
}

TEST_F(NamingTest, NextDayOnTheSpringForwardDayIsTheMidnightAfter) {
  // Local midnight of 2026-03-29 is 2026-03-28 23:00 UTC (CET); the next is
  // 2026-03-29 22:00 UTC (CEST): a 23-hour day.
  const absl::Time next = Utc(2026, 3, 29, 22, 0);
  EXPECT_EQ(next - Utc(2026, 3, 28, 23, 0), absl::Hours(23));
  for (const absl::Time t : {
           Utc(2026, 3, 28, 23, 0, 0),   // the day's own midnight
           Utc(2026, 3, 29, 0, 30, 0),   // 01:30 CET
           Utc(2026, 3, 29, 0, 59, 59),  // just before the switch
           Utc(2026, 3, 29, 1, 0, 0),    // 03:00 CEST, just after
           Utc(2026, 3, 29, 1, 0, 1),
           Utc(2026, 3, 29, 12, 0, 0),
           Utc(2026, 3, 29, 21, 59, 59),  // 23:59:59 CEST
       }) {
    SCOPED_TRACE(absl::FormatTime(t));
    const absl::Time got = NextPeriodStart(t, absl::Hours(24));
    EXPECT_EQ(got, next) << absl::FormatTime(got);
    EXPECT_EQ(ArchiveNameAt(got), "20260330.00.00");
  }
  // The day before (24 hours) ends at the day's first midnight.
  EXPECT_EQ(NextPeriodStart(Utc(2026, 3, 28, 11, 0), absl::Hours(24)),
            Utc(2026, 3, 28, 23, 0));
  // Exactly at the next midnight: the period after that (24 hours, CEST).
  EXPECT_EQ(NextPeriodStart(next, absl::Hours(24)), Utc(2026, 3, 30, 22, 0));
}

TEST_F(NamingTest, NextDayOnTheFallBackDayIsTheMidnightAfter) {
  // Local midnight of 2026-10-25 is 2026-10-24 22:00 UTC (CEST); the next is
  // 2026-10-25 23:00 UTC (CET): a 25-hour day.
  const absl::Time next = Utc(2026, 10, 25, 23, 0);
  EXPECT_EQ(next - Utc(2026, 10, 24, 22, 0), absl::Hours(25));
  for (const absl::Time t : {
           Utc(2026, 10, 24, 22, 0, 0),  // the day's own midnight
           Utc(2026, 10, 25, 0, 30, 0),  // first 02:30 (CEST)
           Utc(2026, 10, 25, 0, 59, 59),  // just before the switch
           Utc(2026, 10, 25, 1, 0, 0),    // second 02:00 (CET), just after
           Utc(2026, 10, 25, 1, 30, 0),   // second 02:30
           Utc(2026, 10, 25, 12, 0, 0),
           Utc(2026, 10, 25, 22, 0, 0),    // 23:00 CET, 24 h after midnight
           Utc(2026, 10, 25, 22, 59, 59),  // 23:59:59 CET
       }) {
    SCOPED_TRACE(absl::FormatTime(t));
    const absl::Time got = NextPeriodStart(t, absl::Hours(24));
    EXPECT_EQ(got, next) << absl::FormatTime(got);
    EXPECT_EQ(ArchiveNameAt(got), "20261026.00.00");
  }
  EXPECT_EQ(NextPeriodStart(Utc(2026, 10, 24, 12, 0), absl::Hours(24)),
            Utc(2026, 10, 24, 22, 0));
  EXPECT_EQ(NextPeriodStart(next, absl::Hours(24)), Utc(2026, 10, 26, 23, 0));
}

TEST_F(NamingTest, SuccessiveDailyPeriodsAcrossBothSwitches) {
  // Rotating as the recorder does (next = NextPeriodStart(next)) gives one
  // archive per local date, each named at midnight.
  struct Want {
    const char* name;
    int hours;  // length of the period that starts there
  };
  const std::vector<Want> spring = {{"20260328.00.00", 24}, {"20260329.00.00", 23},
                                    {"20260330.00.00", 24}, {"20260331.00.00", 24}};
  absl::Time t = NextPeriodStart(Utc(2026, 3, 27, 10, 0), absl::Hours(24));
  for (const Want& w : spring) {
    const absl::Time next = NextPeriodStart(t, absl::Hours(24));
    EXPECT_EQ(ArchiveNameAt(t), w.name);
    EXPECT_EQ(next - t, absl::Hours(w.hours)) << w.name;
    t = next;
  }
  const std::vector<Want> fall = {{"20261024.00.00", 24}, {"20261025.00.00", 25},
                                  {"20261026.00.00", 24}};
  t = NextPeriodStart(Utc(2026, 10, 23, 10, 0), absl::Hours(24));
  for (const Want& w : fall) {
    const absl::Time next = NextPeriodStart(t, absl::Hours(24));
    EXPECT_EQ(ArchiveNameAt(t), w.name);
    EXPECT_EQ(next - t, absl::Hours(w.hours)) << w.name;
    t = next;
  }
}

TEST_F(NamingTest, NextDayStartIsTheFirstInstantOfTheNextLocalDate) {
  // A property check over a year at odd times, in zones with DST switches at
  // 02:00, at 00:00 (America/Santiago: local midnight may not exist) and
  // half-hour offsets: the result is after t, at most 25 h later, on the next
  // local date, and the second before it is still on t's date.
  for (const char* tz : {"Europe/Berlin", "America/Santiago", "Asia/Kolkata",
                         "America/New_York", "Australia/Lord_Howe"}) {
    SetTz(tz);
    SCOPED_TRACE(tz);
    for (absl::Time t = Utc(2026, 1, 1, 0, 17, 3); t < Utc(2027, 1, 1, 0, 0);
         t += absl::Hours(7) + absl::Minutes(13)) {
      const absl::Time got = NextPeriodStart(t, absl::Hours(24));
      ASSERT_GT(got, t) << absl::FormatTime(t);
      ASSERT_LE(got - t, absl::Hours(25)) << absl::FormatTime(t);
      const std::string today = ArchiveNameAt(t).substr(0, 8);
      ASSERT_EQ(ArchiveNameAt(got - absl::Seconds(1)).substr(0, 8), today)
          << absl::FormatTime(t);
      ASSERT_GT(ArchiveNameAt(got).substr(0, 8), today) << absl::FormatTime(t);
    }
  }
}

TEST_F(NamingTest, NextDayInUtcIgnoresTheLocalZone) {
  // TZ is Europe/Berlin: UTC mode must not move midnight by its offset.
  EXPECT_EQ(NextPeriodStart(Utc(2026, 3, 29, 0, 30), absl::Hours(24), /*utc=*/true),
            Utc(2026, 3, 30, 0, 0));
  EXPECT_EQ(NextPeriodStart(Utc(2026, 3, 29, 23, 30), absl::Hours(24), true),
            Utc(2026, 3, 30, 0, 0));
  EXPECT_EQ(NextPeriodStart(Utc(2026, 10, 25, 1, 30), absl::Hours(24), true),
            Utc(2026, 10, 26, 0, 0));
  EXPECT_EQ(NextPeriodStart(Utc(2026, 12, 31, 12, 0), absl::Hours(24), true),
            Utc(2027, 1, 1, 0, 0));
  // Exactly at midnight: the next one.
  EXPECT_EQ(NextPeriodStart(Utc(2026, 5, 5, 0, 0), absl::Hours(24), true),
            Utc(2026, 5, 6, 0, 0));
  EXPECT_EQ(ArchiveNameAt(NextPeriodStart(Utc(2026, 3, 29, 0, 30), absl::Hours(24), true),
                          true),
            "20260330.00.00");
}

TEST_F(NamingTest, ShorterPeriodsRoundUp) {
  const absl::Duration hour = absl::Hours(1);
  const absl::Duration quarter = absl::Minutes(15);
  struct Case {
    absl::Time t;
    absl::Duration period;
    absl::Time want;
  };
  const std::vector<Case> cases = {
      {Utc(2026, 6, 1, 10, 20), hour, Utc(2026, 6, 1, 11, 0)},
      {Utc(2026, 6, 1, 10, 0, 1), hour, Utc(2026, 6, 1, 11, 0)},
      {Utc(2026, 6, 1, 10, 59, 59) + absl::Milliseconds(999), hour, Utc(2026, 6, 1, 11, 0)},
      {Utc(2026, 6, 1, 11, 0), hour, Utc(2026, 6, 1, 12, 0)},  // on a boundary: next
      {Utc(2026, 6, 1, 23, 30), hour, Utc(2026, 6, 2, 0, 0)},
      {Utc(2026, 6, 1, 10, 7, 30), quarter, Utc(2026, 6, 1, 10, 15)},
      {Utc(2026, 6, 1, 10, 14, 59) + absl::Milliseconds(999), quarter,
       Utc(2026, 6, 1, 10, 15)},
      {Utc(2026, 6, 1, 10, 15), quarter, Utc(2026, 6, 1, 10, 30)},
      {Utc(2026, 6, 1, 10, 46), quarter, Utc(2026, 6, 1, 11, 0)},
      // Across the spring-forward switch: hours are absolute, not local.
      {Utc(2026, 3, 29, 0, 30), hour, Utc(2026, 3, 29, 1, 0)},
      {Utc(2026, 3, 29, 0, 50), quarter, Utc(2026, 3, 29, 1, 0)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(absl::FormatTime(c.t), " period ", absl::FormatDuration(c.period)));
    EXPECT_EQ(NextPeriodStart(c.t, c.period), c.want);
    EXPECT_EQ(NextPeriodStart(c.t, c.period, /*utc=*/true), c.want);
  }
  // Names of the hourly archives over the spring-forward switch: 02:00 local
  // does not exist, so 01:00 is followed by 03:00.
  EXPECT_EQ(ArchiveNameAt(NextPeriodStart(Utc(2026, 3, 28, 23, 30), hour)), "20260329.01.00");
  EXPECT_EQ(ArchiveNameAt(NextPeriodStart(Utc(2026, 3, 29, 0, 30), hour)), "20260329.03.00");
  // And over fall-back: 02:00 twice.
  EXPECT_EQ(ArchiveNameAt(NextPeriodStart(Utc(2026, 10, 25, 0, 30), hour)), "20261025.02.00");
  EXPECT_EQ(ArchiveNameAt(NextPeriodStart(Utc(2026, 10, 25, 1, 30), hour)), "20261025.03.00");
}

// ---------------------------------------------------------------------------
// retention.h: the policy
// ---------------------------------------------------------------------------

const absl::Time kNow = Utc(2026, 6, 10, 12, 0);

ArchiveOnDisk Archive(const std::string& base, absl::Duration age, uint64_t bytes) {
  return ArchiveOnDisk{base, kNow - age, bytes};
}

RetentionPolicy Policy(absl::Duration max_age, uint64_t max_total_bytes) {
  RetentionPolicy p;
  p.max_age = max_age;
  p.max_total_bytes = max_total_bytes;
  return p;
}

struct RetentionCase {
  std::string name;
  std::vector<ArchiveOnDisk> archives;
  RetentionPolicy policy;
  std::string keep;
  std::vector<std::string> want;  // in order
};

class ArchivesToDeleteTest : public ::testing::TestWithParam<RetentionCase> {};

TEST_P(ArchivesToDeleteTest, Deletes) {
  const RetentionCase& c = GetParam();
  EXPECT_THAT(ArchivesToDelete(c.archives, c.policy, kNow, c.keep), ElementsAreArray(c.want));
}

const absl::Duration kDay = absl::Hours(24);
const absl::Duration kNoAge = absl::InfiniteDuration();

// Inputs are deliberately not in age order.
INSTANTIATE_TEST_SUITE_P(
    Table, ArchivesToDeleteTest,
    ::testing::Values(
        RetentionCase{"NoLimits",
                      {Archive("b", 2 * kDay, 100), Archive("a", 300 * kDay, 1 << 30)},
                      RetentionPolicy{},
                      "",
                      {}},
        RetentionCase{"Empty", {}, Policy(kDay, 1), "", {}},
        RetentionCase{"MaxAgeOldestFirst",
                      {Archive("mid", 2 * kDay, 1), Archive("new", absl::Hours(1), 1),
                       Archive("old", 3 * kDay, 1), Archive("recent", absl::Hours(20), 1)},
                      Policy(kDay, 0),
                      "",
                      {"old", "mid"}},
        RetentionCase{"MaxAgeBoundaryIsKept",
                      {Archive("exact", kDay, 1),
                       Archive("over", kDay + absl::Seconds(1), 1)},
                      Policy(kDay, 0),
                      "",
                      {"over"}},
        RetentionCase{"MaxTotalDeletesOldestUntilItFits",
                      {Archive("c", absl::Hours(1), 300), Archive("a", absl::Hours(3), 100),
                       Archive("b", absl::Hours(2), 200)},
                      Policy(kNoAge, 450),
                      "",
                      {"a", "b"}},
        RetentionCase{"MaxTotalOneIsEnough",
                      {Archive("c", absl::Hours(1), 300), Archive("a", absl::Hours(3), 100),
                       Archive("b", absl::Hours(2), 200)},
                      Policy(kNoAge, 500),
                      "",
                      {"a"}},
        RetentionCase{"MaxTotalExactFitKeepsAll",
                      {Archive("c", absl::Hours(1), 300), Archive("a", absl::Hours(3), 100),
                       Archive("b", absl::Hours(2), 200)},
                      Policy(kNoAge, 600),
                      "",
                      {}},
        RetentionCase{"BothLimits",
                      // Age removes "old"; then 100+200+300 = 600 > 500
                      // removes "a" too.
                      {Archive("c", absl::Hours(1), 300), Archive("old", 5 * kDay, 50),
                       Archive("a", absl::Hours(3), 100), Archive("b", absl::Hours(2), 200)},
                      Policy(2 * kDay, 500),
                      "",
                      {"old", "a"}},
        RetentionCase{"BothLimitsAgeAlone",
                      {Archive("c", absl::Hours(1), 300), Archive("old", 5 * kDay, 50),
                       Archive("a", absl::Hours(3), 100)},
                      Policy(2 * kDay, 1000),
                      "",
                      {"old"}},
        RetentionCase{"KeepIsNeverDeletedForAge",
                      {Archive("cur", 10 * kDay, 1), Archive("old", 5 * kDay, 1),
                       Archive("new", absl::Hours(1), 1)},
                      Policy(kDay, 0),
                      "cur",
                      {"old"}},
        RetentionCase{"KeepIsNeverDeletedForSize",
                      // "cur" counts towards the total but is skipped.
                      {Archive("cur", 3 * kDay, 1000), Archive("a", 2 * kDay, 100),
                       Archive("b", kDay, 100)},
                      Policy(kNoAge, 1050),
                      "cur",
                      {"a", "b"}},
        RetentionCase{"KeepAloneOverTheLimit",
                      {Archive("cur", 10 * kDay, 5000)},
                      Policy(kDay, 10),
                      "cur",
                      {}}),
    [](const ::testing::TestParamInfo<RetentionCase>& info) { return info.param.name; });

// ---------------------------------------------------------------------------
// retention.h: ApplyRetention on a directory
// ---------------------------------------------------------------------------

// Writes <dir>/<stem>.{meta,index,0,1.zst}, each `bytes` long, all with
// mtime `t`.
void FakeArchive(const std::string& dir, const std::string& stem, absl::Time t,
                 size_t bytes = 10) {
  for (const char* suffix : {".meta", ".index", ".0", ".1.zst"}) {
    const std::string path = absl::StrCat(dir, "/", stem, suffix);
    WriteFile(path, std::string(bytes, 'x'));
    SetMtime(path, t);
  }
}

std::set<std::string> FilesOf(const std::string& stem) {
  std::set<std::string> out;
  for (const char* suffix : {".meta", ".index", ".0", ".1.zst"}) {
    out.insert(absl::StrCat(stem, suffix));
  }
  return out;
}

std::set<std::string> Union(std::initializer_list<std::set<std::string>> sets) {
  std::set<std::string> out;
  for (const auto& s : sets) out.insert(s.begin(), s.end());
  return out;
}

TEST(ApplyRetentionTest, DeletesArchivesOlderThanMaxAge) {
  const std::string dir = TempDir("retention_age");
  FakeArchive(dir, "20260606.00.00", kNow - 4 * kDay);
  FakeArchive(dir, "20260607.00.00", kNow - 3 * kDay);
  FakeArchive(dir, "20260609.00.00", kNow - kDay + absl::Hours(1));
  FakeArchive(dir, "20260610.00.00", kNow - absl::Minutes(1));
  WriteFile(dir + "/notes.txt", "not an archive");
  SetMtime(dir + "/notes.txt", kNow - 100 * kDay);
  LogSink log;
  ASSERT_OK(ApplyRetention(dir, Policy(2 * kDay, 0), kNow, dir + "/20260610.00.00",
                           log.Function()));
  EXPECT_EQ(ListDir(dir), Union({FilesOf("20260609.00.00"), FilesOf("20260610.00.00"),
                                 {"notes.txt"}}));
  const auto lines = log.Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0].second, HasSubstr("20260606.00.00"));
  EXPECT_THAT(lines[1].second, HasSubstr("20260607.00.00"));
}

TEST(ApplyRetentionTest, ArchiveAgeIsItsNewestFile) {
  // An old .meta with a recent volume: the archive is recent.
  const std::string dir = TempDir("retention_newest");
  FakeArchive(dir, "20260601.00.00", kNow - 9 * kDay);
  SetMtime(dir + "/20260601.00.00.1.zst", kNow - absl::Hours(2));
  FakeArchive(dir, "20260602.00.00", kNow - 8 * kDay);
  LogSink log;
  ASSERT_OK(ApplyRetention(dir, Policy(kDay, 0), kNow, "", log.Function()));
  EXPECT_EQ(ListDir(dir), FilesOf("20260601.00.00"));
}

TEST(ApplyRetentionTest, DeletesOldestUntilTheTotalFits) {
  const std::string dir = TempDir("retention_size");
  FakeArchive(dir, "20260607.00.00", kNow - 3 * kDay, 100);  // 400 bytes
  FakeArchive(dir, "20260608.00.00", kNow - 2 * kDay, 100);  // 400
  FakeArchive(dir, "20260609.00.00", kNow - 1 * kDay, 100);  // 400
  FakeArchive(dir, "20260610.00.00", kNow - absl::Hours(1), 100);
  // 1600 bytes in all; 900 allowed: the two oldest go.
  LogSink log;
  ASSERT_OK(ApplyRetention(dir, Policy(kNoAge, 900), kNow, dir + "/20260610.00.00",
                           log.Function()));
  EXPECT_EQ(ListDir(dir), Union({FilesOf("20260609.00.00"), FilesOf("20260610.00.00")}));
}

TEST(ApplyRetentionTest, NeverDeletesTheArchiveBeingWritten) {
  const std::string dir = TempDir("retention_keep");
  // The current archive is the oldest (e.g. a fixed --archive-name).
  FakeArchive(dir, "current", kNow - 30 * kDay, 1000);
  FakeArchive(dir, "20260609.00.00", kNow - 5 * kDay);
  LogSink log;
  ASSERT_OK(ApplyRetention(dir, Policy(kDay, 100), kNow, dir + "/current", log.Function()));
  EXPECT_EQ(ListDir(dir), FilesOf("current"));
}

TEST(ApplyRetentionTest, NothingToDeleteLeavesEverything) {
  const std::string dir = TempDir("retention_none");
  FakeArchive(dir, "20260609.00.00", kNow - absl::Hours(5));
  FakeArchive(dir, "20260610.00.00", kNow - absl::Hours(1));
  LogSink log;
  ASSERT_OK(ApplyRetention(dir, Policy(kDay, 1 << 20), kNow, "", log.Function()));
  EXPECT_EQ(ListDir(dir), Union({FilesOf("20260609.00.00"), FilesOf("20260610.00.00")}));
  EXPECT_THAT(log.Lines(), IsEmpty());
}

TEST(ApplyRetentionTest, ArchiveWhoseNameExtendsAnotherKeepsItsFiles) {
  // "app" and "app.old" are two archives; deleting "app" must not take the
  // files of "app.old" (which also start with "app.").
  const std::string dir = TempDir("retention_prefix");
  FakeArchive(dir, "app", kNow - 10 * kDay);
  FakeArchive(dir, "app.old", kNow - absl::Hours(1));
  LogSink log;
  ASSERT_OK(ApplyRetention(dir, Policy(kDay, 0), kNow, "", log.Function()));
  EXPECT_EQ(ListDir(dir), FilesOf("app.old"));
}

TEST(ApplyRetentionTest, MissingDirectoryIsAnError) {
  LogSink log;
  EXPECT_THAT(ApplyRetention(::testing::TempDir() + "/no_such_dir_xyz", Policy(kDay, 0), kNow,
                             "", log.Function()),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no_such_dir_xyz")));
}

// ---------------------------------------------------------------------------
// compress.h
// ---------------------------------------------------------------------------

// 128 KiB: zstd's block size, ZSTD_CStreamInSize() and ZSTD_DStreamOutSize().
constexpr size_t kBlock = 128 * 1024;

TEST(CompressTest, RoundTripGivesIdenticalBytes) {
  const std::string dir = TempDir("compress_roundtrip");
  int i = 0;
  for (const size_t n : {size_t{0}, size_t{1}, size_t{1000}, kBlock - 1, kBlock, kBlock + 1,
                         2 * kBlock, 3 * kBlock + 7, 3 * kBlock}) {
    for (const bool random : {false, true}) {
      SCOPED_TRACE(absl::StrCat(n, " bytes, random ", random));
      const std::string path = absl::StrCat(dir, "/vol.", i++);
      const std::string data = random ? RandomBytes(n, static_cast<uint32_t>(n)) : TextBytes(n);
      WriteFile(path, data);
      ASSERT_OK(CompressFile(path, 3));
      EXPECT_FALSE(Exists(path));
      EXPECT_FALSE(Exists(path + ".zst.tmp"));
      absl::StatusOr<std::vector<uint8_t>> back = ReadZstdFile(path + ".zst");
      EXPECT_OK(back);
      if (back.ok()) EXPECT_TRUE(*back == AsVector(data)) << "size " << back->size();
    }
  }
}

TEST(CompressTest, CompressesCompressibleData) {
  const std::string dir = TempDir("compress_ratio");
  const std::string path = dir + "/vol.0";
  const std::string data = TextBytes(1 << 20);
  WriteFile(path, data);
  ASSERT_OK(CompressFile(path, 19));
  absl::StatusOr<struct stat> st = StatPath(path + ".zst");
  ASSERT_OK(st);
  EXPECT_LT(st->st_size, static_cast<off_t>(data.size() / 10));
  EXPECT_EQ(ListDir(dir), std::set<std::string>{"vol.0.zst"});
}

// Far more than the 8x ReadZstdFile first allocates for: it grows the
// buffer it decodes into, many times over.
TEST(CompressTest, HighlyCompressedVolumeReadsBackWhole) {
  const std::string dir = TempDir("compress_zeros");
  const std::string path = dir + "/vol.0";
  std::string data(24 << 20, '\0');
  for (size_t i = 0; i < data.size(); i += 1 << 20) data[i] = static_cast<char>(i >> 20);
  WriteFile(path, data);
  ASSERT_OK(CompressFile(path, 3));
  absl::StatusOr<struct stat> st = StatPath(path + ".zst");
  ASSERT_OK(st);
  EXPECT_LT(st->st_size * 1000, static_cast<off_t>(data.size()));  // > 1000x
  absl::StatusOr<std::vector<uint8_t>> back = ReadZstdFile(path + ".zst");
  ASSERT_OK(back);
  EXPECT_TRUE(*back == AsVector(data)) << "size " << back->size();
}

TEST(CompressTest, ReplacesAStaleTemporaryFile) {
  // A crash during an earlier compression left <path>.zst.tmp behind.
  const std::string dir = TempDir("compress_stale");
  const std::string path = dir + "/vol.3";
  WriteFile(path + ".zst.tmp", "partial garbage");
  const std::string data = TextBytes(5000);
  WriteFile(path, data);
  ASSERT_OK(CompressFile(path));
  EXPECT_EQ(ListDir(dir), std::set<std::string>{"vol.3.zst"});
  absl::StatusOr<std::vector<uint8_t>> back = ReadZstdFile(path + ".zst");
  ASSERT_OK(back);
  EXPECT_TRUE(*back == AsVector(data));
}

TEST(CompressTest, TruncatedZstIsDataLoss) {
  const std::string dir = TempDir("compress_truncated");
  const std::string path = dir + "/vol.0";
  WriteFile(path, RandomBytes(3 * kBlock + 100, 7));
  ASSERT_OK(CompressFile(path));
  absl::StatusOr<std::string> whole = ReadWholeFile(path + ".zst");
  ASSERT_OK(whole);
  const size_t size = whole->size();
  // Cut inside the header, inside a block, at a block boundary-ish point,
  // inside the 4-byte checksum, and just before its last byte.
  for (const size_t keep : {size_t{0}, size_t{3}, size_t{10}, size / 2, kBlock + 3, size - 5,
                            size - 4, size - 2, size - 1}) {
    SCOPED_TRACE(absl::StrCat("keep ", keep, " of ", size));
    const std::string cut = dir + "/cut.zst";
    WriteFile(cut, whole->substr(0, keep));
    EXPECT_THAT(ReadZstdFile(cut), StatusIs(absl::StatusCode::kDataLoss, HasSubstr("cut.zst")));
  }
}

TEST(CompressTest, CorruptZstIsDataLoss) {
  const std::string dir = TempDir("compress_corrupt");
  const std::string path = dir + "/vol.0";
  WriteFile(path, RandomBytes(50000, 9));  // stored raw: a flip changes content
  ASSERT_OK(CompressFile(path));
  absl::StatusOr<std::string> whole = ReadWholeFile(path + ".zst");
  ASSERT_OK(whole);
  std::string bad = *whole;
  bad[bad.size() / 2] ^= 0x40;  // caught by the frame checksum
  WriteFile(dir + "/bad.zst", bad);
  EXPECT_THAT(ReadZstdFile(dir + "/bad.zst"), StatusIs(absl::StatusCode::kDataLoss, _));
  WriteFile(dir + "/notzstd.zst", "this is not a zstd frame at all");
  EXPECT_THAT(ReadZstdFile(dir + "/notzstd.zst"), StatusIs(absl::StatusCode::kDataLoss, _));
}

TEST(CompressTest, ReadingAMissingZstIsNotFound) {
  const std::string dir = TempDir("compress_read_missing");
  EXPECT_THAT(ReadZstdFile(dir + "/nope.0.zst"), StatusIs(absl::StatusCode::kNotFound, _));
}

TEST(CompressTest, MissingInputFailsAndLeavesNothingBehind) {
  const std::string dir = TempDir("compress_missing");
  EXPECT_THAT(CompressFile(dir + "/vol.0"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("vol.0")));
  EXPECT_THAT(ListDir(dir), IsEmpty());
}

TEST(CompressTest, DirectoryAsInputFailsAndLeavesNothingBehind) {
  // open(2) succeeds on a directory; the read fails (EISDIR).
  const std::string dir = TempDir("compress_dir");
  ASSERT_EQ(::mkdir((dir + "/vol.0").c_str(), 0755), 0);
  EXPECT_FALSE(CompressFile(dir + "/vol.0").ok());
  EXPECT_EQ(ListDir(dir), std::set<std::string>{"vol.0"});
}

// The `zstd` command-line tool (Debian's zstd package, installed by
// bazel/setup.sh) must give back what CompressFile compressed, byte for
// byte: a .zst volume is a plain zstd frame that needs neither our
// ReadZstdFile nor PCP's own .zst reader (PCP 6.3.2 and later).

// Runs `zstd ARGS` through the shell; returns its exit status (127 when the
// tool is missing, which fails the tests below: it is a requirement).
int RunZstd(const std::string& args) {
  const int status = std::system(absl::StrCat("zstd ", args).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string Quoted(const std::string& path) { return absl::StrCat("'", path, "'"); }

// Records `samples` samples 10 s apart of an MMV file holding 10 U64
// counters x 100 instances, each value going up by a different, varying
// amount per sample (counter m by up to 4^m), with archiver::Recorder into
// the v3 archive `base`. Returns the bytes of its one volume, `base`.0.
std::string RecordVolume(const std::string& dir, const std::string& base, int samples) {
  const std::string mmv_dir = dir + "/mmv";
  EXPECT_EQ(::mkdir(mmv_dir.c_str(), 0755), 0) << mmv_dir;
  constexpr uint32_t kMetrics = 10;
  constexpr int32_t kInstances = 100;
  format::MmvSpec spec;
  std::vector<std::pair<int32_t, std::string>> instances;
  for (int32_t i = 0; i < kInstances; ++i) instances.push_back({i, absl::StrCat("worker", i)});
  spec.indoms.push_back(::mmvlog::testing::SpecIndom(1, instances));
  for (uint32_t m = 1; m <= kMetrics; ++m) {
    spec.metrics.push_back(
        ::mmvlog::testing::SpecMetric(absl::StrCat("requests.c", m), m, format::MmvType::kU64, 1));
  }
  ::mmvlog::testing::MmvApp app(mmv_dir + "/app", spec);
  app.Create();
  Recorder recorder(::mmvlog::testing::TestRecorderOptions(mmv_dir, base),
                    [](LogLevel, const std::string&) {});
  std::mt19937_64 rng(6);
  std::vector<uint64_t> values(kMetrics * kInstances);
  for (int s = 0; s < samples; ++s) {
    for (uint32_t m = 1; m <= kMetrics; ++m) {
      for (int32_t i = 0; i < kInstances; ++i) {
        uint64_t& v = values[(m - 1) * kInstances + i];
        v += rng() % (uint64_t{1} << (2 * m));
        format::SetMmvU64(app.image().bytes, app.image().slot(m, i), v);
      }
    }
    app.Flush();
    EXPECT_OK(recorder.Sample(absl::FromUnixSeconds(1'700'000'000 + 10 * s)));
  }
  EXPECT_OK(recorder.Close());
  absl::StatusOr<std::string> volume = ReadWholeFile(base + ".0");
  EXPECT_OK(volume);
  return volume.ok() ? *volume : "";
}

TEST(CompressTest, ZstdToolRestoresARecordedVolumeByteForByte) {
  const std::string dir = TempDir("compress_zstd_tool");
  const std::string base = dir + "/rec";
  const std::string volume = RecordVolume(dir, base, 60);
  ASSERT_GT(volume.size(), 4 * kBlock);  // many zstd blocks
  const std::string path = base + ".0";
  for (const int level : {kDefaultCompressionLevel, 1, 3, 19}) {
    SCOPED_TRACE(absl::StrCat("level ", level));
    if (!Exists(path)) WriteFile(path, volume);
    ASSERT_OK(CompressFile(path, level));
    ASSERT_FALSE(Exists(path));
    // As a user would: `zstd -d rec.0.zst` writes rec.0 beside it.
    ASSERT_EQ(RunZstd("-q -d " + Quoted(path + ".zst")), 0);
    absl::StatusOr<std::string> back = ReadWholeFile(path);
    ASSERT_OK(back);
    EXPECT_EQ(back->size(), volume.size());
    EXPECT_TRUE(*back == volume) << "zstd -d gave different bytes";
    // PCP 6.0.3 cannot read .zst at all; with the restored volume it reads
    // the archive as recorded (when PCP is installed).
    ASSERT_EQ(::unlink((path + ".zst").c_str()), 0);
    EXPECT_PMLOGCHECK_OK(base);
  }
}

TEST(CompressTest, ZstdToolRestoresEverySizeByteForByte) {
  const std::string dir = TempDir("compress_zstd_tool_sizes");
  int i = 0;
  for (const size_t n : {size_t{0}, size_t{1}, size_t{1000}, kBlock - 1, kBlock, kBlock + 1,
                         3 * kBlock + 7}) {
    for (const bool random : {false, true}) {
      SCOPED_TRACE(absl::StrCat(n, " bytes, random ", random));
      const std::string path = absl::StrCat(dir, "/vol.", i++);
      const std::string data = random ? RandomBytes(n, static_cast<uint32_t>(n)) : TextBytes(n);
      WriteFile(path, data);
      ASSERT_OK(CompressFile(path));
      ASSERT_EQ(RunZstd(absl::StrCat("-q -d -c ", Quoted(path + ".zst"), " > ",
                                     Quoted(path + ".back"))),
                0);
      absl::StatusOr<std::string> back = ReadWholeFile(path + ".back");
      ASSERT_OK(back);
      EXPECT_TRUE(*back == data) << "size " << back->size();
    }
  }
}

// ---------------------------------------------------------------------------
// compressor.h
// ---------------------------------------------------------------------------

TEST(BackgroundCompressorTest, CompressesQueuedFilesAndRemovesOriginals) {
  const std::string dir = TempDir("compressor");
  std::vector<std::string> paths;
  std::vector<std::string> contents;
  for (int i = 0; i < 5; ++i) {
    paths.push_back(absl::StrCat(dir, "/20260610.00.00.", i));
    contents.push_back(i % 2 == 0 ? TextBytes(1000 + i * 70000)
                                  : RandomBytes(kBlock * i + 11, static_cast<uint32_t>(i)));
    WriteFile(paths.back(), contents.back());
  }
  LogSink log;
  BackgroundCompressor compressor(3, log.Function());
  for (const std::string& p : paths) compressor.Enqueue(p);
  compressor.Drain();
  // After Drain every file is done, with nothing else in the directory.
  std::set<std::string> want;
  for (int i = 0; i < 5; ++i) want.insert(absl::StrCat("20260610.00.00.", i, ".zst"));
  EXPECT_EQ(ListDir(dir), want);
  for (size_t i = 0; i < paths.size(); ++i) {
    absl::StatusOr<std::vector<uint8_t>> back = ReadZstdFile(paths[i] + ".zst");
    ASSERT_OK(back);
    EXPECT_TRUE(*back == AsVector(contents[i])) << paths[i];
  }
  EXPECT_EQ(log.Count(LogLevel::kInfo), 5);
  EXPECT_EQ(log.Count(LogLevel::kWarning), 0);
}

TEST(BackgroundCompressorTest, DrainWithNothingQueuedReturns) {
  LogSink log;
  BackgroundCompressor compressor(3, log.Function());
  compressor.Drain();
  compressor.Drain();
  EXPECT_THAT(log.Lines(), IsEmpty());
}

TEST(BackgroundCompressorTest, DrainCanBeRepeatedAfterMoreWork) {
  const std::string dir = TempDir("compressor_repeat");
  LogSink log;
  BackgroundCompressor compressor(1, log.Function());
  for (int round = 0; round < 3; ++round) {
    const std::string path = absl::StrCat(dir, "/a.", round);
    WriteFile(path, TextBytes(200000));
    compressor.Enqueue(path);
    compressor.Drain();
    EXPECT_FALSE(Exists(path)) << path;
    EXPECT_TRUE(Exists(path + ".zst")) << path;
  }
}

TEST(BackgroundCompressorTest, MissingFileIsLoggedAndTheRestStillCompressed) {
  const std::string dir = TempDir("compressor_missing");
  WriteFile(dir + "/a.0", TextBytes(3000));
  WriteFile(dir + "/a.2", TextBytes(4000));
  LogSink log;
  BackgroundCompressor compressor(3, log.Function());
  compressor.Enqueue(dir + "/a.0");
  compressor.Enqueue(dir + "/a.1");  // does not exist
  compressor.Enqueue(dir + "/a.2");
  compressor.Drain();
  EXPECT_EQ(ListDir(dir), (std::set<std::string>{"a.0.zst", "a.2.zst"}));
  EXPECT_EQ(log.Count(LogLevel::kWarning), 1);
  bool found = false;
  for (const auto& [level, line] : log.Lines()) {
    if (level == LogLevel::kWarning) found = absl::StrContains(line, dir + "/a.1");
  }
  EXPECT_TRUE(found);
}

TEST(BackgroundCompressorTest, DestructorFinishesTheQueue) {
  const std::string dir = TempDir("compressor_dtor");
  std::vector<std::string> contents;
  LogSink log;
  {
    BackgroundCompressor compressor(3, log.Function());
    for (int i = 0; i < 4; ++i) {
      contents.push_back(RandomBytes(100000 + i, static_cast<uint32_t>(100 + i)));
      const std::string path = absl::StrCat(dir, "/v.", i);
      WriteFile(path, contents.back());
      compressor.Enqueue(path);
    }
  }  // no Drain
  EXPECT_EQ(ListDir(dir), (std::set<std::string>{"v.0.zst", "v.1.zst", "v.2.zst", "v.3.zst"}));
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<std::vector<uint8_t>> back = ReadZstdFile(absl::StrCat(dir, "/v.", i, ".zst"));
    ASSERT_OK(back);
    EXPECT_TRUE(*back == AsVector(contents[i]));
  }
}

}  // namespace
}  // namespace mmvlog::archiver

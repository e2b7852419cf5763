// StatsOutput (replay -o stats): per column over the rows shown, the
// minimum, mean, maximum and last of its numbers (counters as rates unless
// raw), how many, and the units; columns without a number left out; -s.
#include "archiver/replay/output/stats_output.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "format/archive/archive_format.h"
#include "tests/archiver/replay/replay_test_util.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::CapturedFile;
using ::mmvlog::testing::Feed;
using ::mmvlog::testing::OpenArchives;
using ::mmvlog::testing::TestArchive;
using ::testing::ElementsAre;

// Each line as its fields: label, min, mean, max, last, count, then the
// units (which may hold blanks) as one.
std::vector<std::vector<std::string>> Table(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (f.size() > 7) {
      const std::string units = absl::StrJoin(f.begin() + 6, f.end(), " ");
      f.resize(6);
      f.push_back(units);
    }
    out.push_back(f);
  }
  return out;
}

TestArchive Stats() {
  TestArchive a({
      {"c", format::kTypeU32, format::kSemCounter},
      {"g", format::kTypeDouble, format::kSemInstant, "none"},
      {"s", format::kTypeString, format::kSemInstant, "none"},
  });
  const int c[] = {0, 10, 30, 30, 70};
  const double g[] = {1.5, -2, 3, 4.25, 0};
  for (int t = 0; t < 5; ++t) a.Record(t, {{"c", c[t]}, {"g", g[t]}, {"s", "x"}});
  a.Mark(4.5);
  a.Record(5, {{"c", 1000}});  // after the mark: no rate
  return a;
}

TEST(StatsOutput, MinMeanMaxLastCountAndUnitsPerColumn) {
  auto o = OpenArchives({Stats().Write("stats")});
  ASSERT_NE(o, nullptr);
  CapturedFile f;
  StatsOutput out(f.file(), 0);
  const auto table = Table(Feed(out, f, *o, testing::RecordRowsOf(*o, false), false, std::nullopt));
  // Rates 10, 20, 0, 40; the string has no numbers.
  ASSERT_EQ(table.size(), 3u);
  EXPECT_THAT(table[0], ElementsAre("metric[instance]", "min", "mean", "max", "last", "count", "units"));
  EXPECT_THAT(table[1], ElementsAre("c", "0", "17.5", "40", "40", "4", "count / sec"));
  EXPECT_THAT(table[2], ElementsAre("g", "-2", "1.35", "4.25", "0", "5"));
}

TEST(StatsOutput, RawAndMaxRows) {
  auto o = OpenArchives({Stats().Write("stats_raw")});
  ASSERT_NE(o, nullptr);
  {
    CapturedFile f;
    StatsOutput out(f.file(), 0);
    const auto table = Table(Feed(out, f, *o, testing::RecordRowsOf(*o, true), true, std::nullopt));
    ASSERT_EQ(table.size(), 3u);
    EXPECT_THAT(table[1], ElementsAre("c", "0", "190", "1000", "1000", "6", "count"));
  }
  {
    CapturedFile f;
    StatsOutput out(f.file(), 2);  // the first two rows
    const auto table = Table(Feed(out, f, *o, testing::RecordRowsOf(*o, true), true, std::nullopt));
    ASSERT_EQ(table.size(), 3u);
    EXPECT_THAT(table[1], ElementsAre("c", "0", "5", "10", "10", "2", "count"));
    EXPECT_THAT(table[2], ElementsAre("g", "-2", "-0.25", "1.5", "-2", "2"));
  }
}

}  // namespace
}  // namespace mmvlog::archiver

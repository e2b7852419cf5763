// SummaryOutput (replay's default): archives, host, the time of the first
// and last row, samples and <mark>s counted, and per metric with values its
// type, semantics, units, instances with values and value count.
#include "archiver/replay/output/summary_output.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
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
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(SummaryOutput, CountsSamplesMarksAndValuesPerMetric) {
  TestArchive a({
      {"req", format::kTypeU64, format::kSemCounter, "count", {{0, "a"}, {1, "b"}, {2, "never"}}},
      {"load", format::kTypeDouble, format::kSemInstant, "none"},
      {"unused", format::kType32, format::kSemDiscrete},
  });
  a.Record(0, {{"req", 0, 1}, {"req", 1, 2}, {"load", 0.5}});
  a.Record(1, {{"req", 0, 3}});
  a.Mark(1.5);
  a.Record(61.25, {{"req", 0, 5}, {"req", 1, 6}, {"load", 1.5}});
  const std::string base = a.Write("summary");
  auto o = OpenArchives({base});
  ASSERT_NE(o, nullptr);
  CapturedFile f;
  SummaryOutput out(f.file());
  const std::string text = Feed(out, f, *o, testing::RecordRowsOf(*o, false), false, std::nullopt);
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  ASSERT_GE(lines.size(), 8u) << text;
  EXPECT_EQ(lines[0], absl::StrCat("archives:  ", base));
  EXPECT_EQ(lines[1], "host:      host");
  EXPECT_EQ(lines[2], "time:      2023-11-14 22:00:00.000 to 2023-11-14 22:01:01.250 (1m1.25s)");
  EXPECT_EQ(lines[3], "samples:   3, marks (gaps): 1");
  EXPECT_EQ(lines[4], "");
  EXPECT_EQ(lines[5], "metrics (2):");  // "unused" has no value
  EXPECT_THAT(lines[6], StartsWith("  name"));
  // req: instances a and b have values (5 of them); "never" none.
  EXPECT_THAT(lines[7], StartsWith("  req "));
  EXPECT_THAT(lines[7], HasSubstr("64-bit unsigned int"));
  EXPECT_THAT(lines[7], HasSubstr("counter"));
  EXPECT_THAT(lines[7], HasSubstr("count"));
  std::vector<std::string> req = absl::StrSplit(lines[7], ' ', absl::SkipEmpty());
  EXPECT_THAT(std::vector<std::string>(req.end() - 2, req.end()), ElementsAre("2", "5"));
  EXPECT_THAT(lines[8], StartsWith("  load "));
  EXPECT_THAT(lines[8], HasSubstr("double"));
  EXPECT_THAT(lines[8], HasSubstr("instant"));
  EXPECT_THAT(lines[8], HasSubstr("none"));
  std::vector<std::string> load = absl::StrSplit(lines[8], ' ', absl::SkipEmpty());
  EXPECT_THAT(std::vector<std::string>(load.end() - 2, load.end()), ElementsAre("1", "2"));
}

TEST(SummaryOutput, NoRowsNoTime) {
  TestArchive a({{"x", format::kType32, format::kSemInstant}});
  auto o = OpenArchives({a.Write("summary_empty")});
  ASSERT_NE(o, nullptr);
  CapturedFile f;
  SummaryOutput out(f.file());
  const std::string text = Feed(out, f, *o, {}, false, std::nullopt);
  EXPECT_THAT(text, Not(HasSubstr("time:")));
  EXPECT_THAT(text, HasSubstr("samples:   0, marks (gaps): 0\n"));
  EXPECT_THAT(text, HasSubstr("metrics (0):\n"));
}

}  // namespace
}  // namespace mmvlog::archiver

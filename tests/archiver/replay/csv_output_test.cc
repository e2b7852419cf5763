// CsvOutput (replay -o csv) on small archives, cell by cell: the header
// with units, numbers (rates unless raw, exact when raw), strings quoted
// only when they need it, empty cells, no line for a <mark>, -s, and on a
// -t grid pmrep's rows: every grid time a line, and a DISCRETE metric with
// no value at all repeating what it printed last (pmrep 6.0.3's output for
// arch/mark).
#include "archiver/replay/output/csv_output.h"

#include <cstdint>
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
using ::mmvlog::testing::Grid;
using ::mmvlog::testing::GridRows;
using ::mmvlog::testing::OpenArchives;
using ::mmvlog::testing::TestArchive;
using ::testing::ElementsAre;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

TestArchive Small() {
  TestArchive a({
      {"req", format::kTypeU64, format::kSemCounter, "count", {{0, "a"}, {1, "b,c"}}},
      {"ver", format::kTypeString, format::kSemDiscrete, "none"},
      {"load", format::kTypeDouble, format::kSemInstant, "none"},
      {"i32", format::kType32, format::kSemInstant, "bytes"},
  });
  a.Record(0, {{"req", 0, 100}, {"req", 1, 7}, {"ver", "1.0, \"beta\""}, {"i32", -5}});
  a.Record(2.5, {{"req", 0, 105}, {"req", 1, 3}, {"load", 0.25}, {"i32", 2147483647}});
  a.Mark(3);
  a.Record(4, {{"req", 0, 200}, {"load", 1e20}});
  return a;
}

TEST(CsvOutput, HeaderNamesColumnsWithTheirUnits) {
  auto o = OpenArchives({Small().Write("csv_header")});
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(CsvOutput::HeaderLine(o->columns, false),
            "Time,req[a] (count / sec),\"req[b,c] (count / sec)\",ver,load,i32 (byte)");
  EXPECT_EQ(CsvOutput::HeaderLine(o->columns, true), "Time,req[a] (count),\"req[b,c] (count)\",ver,load,i32 (byte)");
}

TEST(CsvOutput, RecordRowsCellByCell) {
  auto o = OpenArchives({Small().Write("csv_rows")});
  ASSERT_NE(o, nullptr);
  {
    CapturedFile f;
    CsvOutput out(f.file(), 0);
    EXPECT_THAT(Lines(Feed(out, f, *o, testing::RecordRowsOf(*o, false), false, std::nullopt)),
                ElementsAre("Time,req[a] (count / sec),\"req[b,c] (count / sec)\",ver,load,i32 (byte)",
                            "2023-11-14 22:00:00.000,,,\"1.0, \"\"beta\"\"\",,-5",
                            // (105 - 100) / 2.5 s; 7 -> 3 went down: no rate.
                            "2023-11-14 22:00:02.500,2,,,0.25,2147483647",
                            // No line for the mark; no rate across it.
                            "2023-11-14 22:00:04.000,,,,100000000000000000000,"));
  }
  {
    CapturedFile f;
    CsvOutput out(f.file(), 0);
    EXPECT_THAT(Lines(Feed(out, f, *o, testing::RecordRowsOf(*o, true), true, std::nullopt)),
                ElementsAre("Time,req[a] (count),\"req[b,c] (count)\",ver,load,i32 (byte)",
                            "2023-11-14 22:00:00.000,100,7,\"1.0, \"\"beta\"\"\",,-5",
                            "2023-11-14 22:00:02.500,105,3,,0.25,2147483647",
                            "2023-11-14 22:00:04.000,200,,,1e+20,"));
  }
}

TEST(CsvOutput, MaxRowsAndNoHeader) {
  auto o = OpenArchives({Small().Write("csv_max")});
  ASSERT_NE(o, nullptr);
  CapturedFile f;
  CsvOutput out(f.file(), 2, false);
  out.Begin(testing::HeaderFor(*o, true, std::nullopt));
  const std::vector<Row> rows = testing::RecordRowsOf(*o, true);
  EXPECT_TRUE(out.TakeRow(rows[0]));
  EXPECT_FALSE(out.TakeRow(rows[1]));  // the second of two: no more wanted
  EXPECT_TRUE(out.End({}).ok());
  EXPECT_THAT(Lines(f.text()), ElementsAre("2023-11-14 22:00:00.000,100,7,\"1.0, \"\"beta\"\"\",,-5",
                                           "2023-11-14 22:00:02.500,105,3,,0.25,2147483647"));
}

TestArchive MarkArchive() {
  TestArchive a({
      {"cnt", format::kTypeU32, format::kSemCounter},
      {"inst", format::kType32, format::kSemInstant},
      {"disc", format::kType32, format::kSemDiscrete},
      {"str", format::kTypeString, format::kSemInstant, "none"},
  });
  for (int t = 0; t <= 15; ++t) {
    if (t == 10) a.Mark(5.001);
    if (t > 5 && t < 10) continue;
    a.Record(t, {{"cnt", 10 * t}, {"inst", t}, {"disc", t}, {"str", absl::StrCat("v", t)}});
  }
  return a;
}

std::vector<std::string> GridCsv(const testing::Opened& o, double step, bool raw, int64_t max_rows = 0) {
  CapturedFile f;
  CsvOutput out(f.file(), max_rows);
  return Lines(Feed(out, f, o, GridRows(o, Grid(0, step), raw), raw, absl::Seconds(step)));
}

TEST(CsvOutput, OnAGridEveryTimeIsALineAndDiscreteValuesCarryOver) {
  auto o = OpenArchives({MarkArchive().Write("csv_grid")});
  ASSERT_NE(o, nullptr);
  // pmrep -t 1 -o csv cnt inst disc str: 6..9 -> ",,,5" (disc repeats
  // its last printed value; pmval has none there).
  EXPECT_THAT(GridCsv(*o, 1, false),
              ElementsAre("Time,cnt (count / sec),inst (count),disc (count),str",
                          "2023-11-14 22:00:00.000,,0,0,v0", "2023-11-14 22:00:01.000,10,1,1,v1",
                          "2023-11-14 22:00:02.000,10,2,2,v2", "2023-11-14 22:00:03.000,10,3,3,v3",
                          "2023-11-14 22:00:04.000,10,4,4,v4", "2023-11-14 22:00:05.000,10,5,5,v5",
                          "2023-11-14 22:00:06.000,,,5,", "2023-11-14 22:00:07.000,,,5,",
                          "2023-11-14 22:00:08.000,,,5,", "2023-11-14 22:00:09.000,,,5,",
                          "2023-11-14 22:00:10.000,,10,10,v10", "2023-11-14 22:00:11.000,10,11,11,v11",
                          "2023-11-14 22:00:12.000,10,12,12,v12", "2023-11-14 22:00:13.000,10,13,13,v13",
                          "2023-11-14 22:00:14.000,10,14,14,v14", "2023-11-14 22:00:15.000,10,15,15,v15"));
  // pmrep -t 7 -o csv -r cnt inst disc: 0,0,0 / ,,0 / 140,14,14: the value
  // of the last printed row.
  EXPECT_THAT(GridCsv(*o, 7, true),
              ElementsAre("Time,cnt (count),inst (count),disc (count),str", "2023-11-14 22:00:00.000,0,0,0,v0",
                          "2023-11-14 22:00:07.000,,,0,", "2023-11-14 22:00:14.000,140,14,14,v14"));
  // -s: rows.
  EXPECT_EQ(GridCsv(*o, 1, false, 3).size(), 4u);
}

TEST(CsvOutput, ADiscreteInstanceIsEmptyWhenAnotherHasAValue) {
  TestArchive a({{"id", format::kType32, format::kSemDiscrete, "none", {{0, "a"}, {2, "c"}}}});
  for (int t : {0, 5, 10, 15}) {
    if (t < 10) {
      a.Record(t, {{"id", 0, t}});
    } else {
      a.Record(t, {{"id", 0, t}, {"id", 2, 100 + t}});
    }
  }
  a.Mark(15.001);
  for (int t : {25, 30}) a.Record(t, {{"id", 0, t}});
  auto o = OpenArchives({a.Write("csv_instances")});
  ASSERT_NE(o, nullptr);
  EXPECT_THAT(GridCsv(*o, 5, false),
              ElementsAre("Time,id[a],id[c]", "2023-11-14 22:00:00.000,0,", "2023-11-14 22:00:05.000,5,",
                          "2023-11-14 22:00:10.000,10,110", "2023-11-14 22:00:15.000,15,115",
                          // After the mark: no value at all, both repeat.
                          "2023-11-14 22:00:20.000,15,115",
                          // "a" has one again, "c" none: empty, not repeated.
                          "2023-11-14 22:00:25.000,25,", "2023-11-14 22:00:30.000,30,"));
}

// A millisecond counter's rate is labelled in the units of its cells,
// milliseconds per second (500 for a 50% utilisation, as pmrep prints it),
// not "time utilisation" (as it once was). The same DisplayUnits label is
// used by -o stats and the plots' panels.
TEST(CsvOutput, ATimeCounterRateIsLabelledInTheUnitsOfItsNumbers) {
  TestArchive a({{"busy", format::kTypeU64, format::kSemCounter, "ms"}});
  a.Record(0, {{"busy", 0}});
  a.Record(10, {{"busy", 5000}});
  auto o = OpenArchives({a.Write("csv_ms")});
  ASSERT_NE(o, nullptr);
  CapturedFile f;
  CsvOutput out(f.file(), 0);
  const std::vector<std::string> lines =
      Lines(Feed(out, f, *o, testing::RecordRowsOf(*o, false), false, std::nullopt));
  ASSERT_EQ(lines.size(), 3u);
  const std::string cell = lines[2].substr(lines[2].rfind(',') + 1);
  if (lines[0] == "Time,busy (time utilisation)") {
    EXPECT_EQ(cell, "0.5") << "a utilisation of 500";
  } else {
    EXPECT_EQ(lines[0], "Time,busy (millisec / sec)");
    EXPECT_EQ(cell, "500");
  }
}

}  // namespace
}  // namespace mmvlog::archiver

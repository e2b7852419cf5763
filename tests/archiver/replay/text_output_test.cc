// TextOutput (replay -o text): the rows pmval prints, byte for byte, for
// the spec's archives: printreal's formats per type width, "?" for an
// instance without a value, "!" for a counter going down, the rows pmval
// prints "No values available" for and the points it prints nothing for,
// and -s counted as pmval's iterations. Expected lines are
// pmval's own output (6.0.3; 7.2 for instants), with its header removed.
#include "archiver/replay/output/text_output.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "archiver/replay/selection.h"
#include "format/archive/archive_format.h"
#include "tests/archiver/replay/replay_test_util.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::CapturedFile;
using ::mmvlog::testing::Grid;
using ::mmvlog::testing::GridRows;
using ::mmvlog::testing::OpenArchives;
using ::mmvlog::testing::TestArchive;
using ::testing::ElementsAre;

// The whole text of a -t replay of `metric` in `base`.
std::string TextOf(const std::string& base, const std::string& metric, double step, bool raw,
                   int64_t samples = 0) {
  Selection sel;
  sel.metrics = {metric};
  auto o = OpenArchives({base}, sel);
  if (o == nullptr) return "";
  const std::vector<Row> rows = GridRows(*o, Grid(0, step), raw);
  CapturedFile f;
  {
    TextOutput out(f.file(), samples);
    out.Begin(testing::HeaderFor(*o, raw, absl::Nanoseconds(testing::NsAfter(step))));
    for (const Row& r : rows) {
      if (!out.TakeRow(r)) break;
    }
    EXPECT_TRUE(out.End({}).ok());
  }
  return f.text();
}

// The table's rows: the lines after the header and the label line.
std::vector<std::string> RowsOf(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  size_t i = 0;
  while (i < lines.size() && !lines[i].empty()) ++i;
  return std::vector<std::string>(lines.begin() + std::min(lines.size(), i + 2), lines.end());
}

std::vector<std::string> Rows(const std::string& base, const std::string& metric, double step, bool raw,
                              int64_t samples = 0) {
  return RowsOf(TextOf(base, metric, step, raw, samples));
}

TestArchive Basic() {
  TestArchive a({
      {"cnt", format::kTypeU32, format::kSemCounter},
      {"cflt", format::kTypeFloat, format::kSemCounter},
      {"cms", format::kTypeU64, format::kSemCounter, "ms"},
      {"inst", format::kType32, format::kSemInstant},
      {"ddisc", format::kTypeDouble, format::kSemDiscrete},
  });
  const int cnt[] = {0, 100, 300, 600};
  const int cms[] = {0, 5000, 15000, 15000};
  for (int k = 0; k < 4; ++k) {
    a.Record(10 * k, {{"cnt", cnt[k]}, {"cflt", cnt[k]}, {"cms", cms[k]}, {"inst", 5 + 10 * k},
                      {"ddisc", 1.25 + k}});
  }
  return a;
}

TEST(TextOutput, HeaderThenRows) {
  const std::string base = Basic().Write("text_header");
  const std::string text = TextOf(base, "cnt", 3, false);
  EXPECT_EQ(text.substr(0, text.find("22:00")),
            absl::StrCat("archive:   ", base, "\ninterval:  3.00 sec\n\n", std::string(12, ' '),
                         "        cnt\n"));
}

TEST(TextOutput, CounterRatesAsPmvalPrintsThem) {
  const std::string base = Basic().Write("text_rates");
  // pmval -t 3sec cnt: no row at 0 (a rate needs two points).
  EXPECT_THAT(Rows(base, "cnt", 3, false),
              ElementsAre("22:00:03.000    10.00  ", "22:00:06.000    10.00  ", "22:00:09.000    10.00  ",
                          "22:00:12.000    16.67  ", "22:00:15.000    20.00  ", "22:00:18.000    20.00  ",
                          "22:00:21.000    23.33  ", "22:00:24.000    30.00  ", "22:00:27.000    30.00  ",
                          "22:00:30.000    30.00  "));
  // FLOAT: 13 wide.
  EXPECT_THAT(Rows(base, "cflt", 3, false)[3], "22:00:12.000      16.67  ");
  // A millisecond counter as a utilisation, 21 wide.
  EXPECT_THAT(Rows(base, "cms", 3, false),
              ElementsAre("22:00:03.000               0.5000", "22:00:06.000               0.5000",
                          "22:00:09.000               0.5000", "22:00:12.000               0.8333",
                          "22:00:15.000               1.000 ", "22:00:18.000               1.000 ",
                          "22:00:21.000               0.6667", "22:00:24.000               0.0   ",
                          "22:00:27.000               0.0   ", "22:00:30.000               0.0   "));
}

TEST(TextOutput, RawCountersInstantsAndDiscrete) {
  const std::string base = Basic().Write("text_raw");
  EXPECT_THAT(Rows(base, "cnt", 3, true),
              ElementsAre("22:00:00.000          0", "22:00:03.000         30", "22:00:06.000         60",
                          "22:00:09.000         90", "22:00:12.000        140", "22:00:15.000        200",
                          "22:00:18.000        260", "22:00:21.000        330", "22:00:24.000        420",
                          "22:00:27.000        510", "22:00:30.000        600"));
  EXPECT_THAT(Rows(base, "cflt", 3, true)[0], "22:00:00.000       0.0   ");
  EXPECT_THAT(Rows(base, "cflt", 3, true)[4], "22:00:12.000     140.0   ");
  EXPECT_THAT(Rows(base, "cms", 3, true)[5], "22:00:15.000                10000");
  // pmval 7.2 -t 3sec inst (the nearest sample).
  EXPECT_THAT(Rows(base, "inst", 3, false),
              ElementsAre("22:00:00.000          5", "22:00:03.000          5", "22:00:06.000         15",
                          "22:00:09.000         15", "22:00:12.000         15", "22:00:15.000         15",
                          "22:00:18.000         25", "22:00:21.000         25", "22:00:24.000         25",
                          "22:00:27.000         35", "22:00:30.000         35"));
  EXPECT_THAT(Rows(base, "ddisc", 3, false),
              ElementsAre("22:00:00.000               1.250 ", "22:00:03.000               1.250 ",
                          "22:00:06.000               2.250 ", "22:00:09.000               2.250 ",
                          "22:00:12.000               2.250 ", "22:00:15.000               2.250 ",
                          "22:00:18.000               3.250 ", "22:00:21.000               3.250 ",
                          "22:00:24.000               3.250 ", "22:00:27.000               4.250 ",
                          "22:00:30.000               4.250 "));
}

TestArchive MarkArchive() {
  TestArchive a({
      {"cnt", format::kTypeU32, format::kSemCounter},
      {"inst", format::kType32, format::kSemInstant},
      {"str", format::kTypeString, format::kSemInstant, "none"},
  });
  for (int t = 0; t <= 15; ++t) {
    if (t == 10) a.Mark(5.001);
    if (t > 5 && t < 10) continue;
    a.Record(t, {{"cnt", 10 * t}, {"inst", t}, {"str", absl::StrCat("v", t)}});
  }
  return a;
}

TEST(TextOutput, NoValuesAvailableAcrossAMarkAsPmvalPrintsIt) {
  const std::string base = MarkArchive().Write("text_mark");
  // pmval -t 1 cnt (6.0.3, LOGIMPORT's copy of this archive): "No values
  // available" at 6..10 (10 has a value, but the rate needs 9's).
  EXPECT_THAT(Rows(base, "cnt", 1, false),
              ElementsAre("22:00:01.000    10.00  ", "22:00:02.000    10.00  ", "22:00:03.000    10.00  ",
                          "22:00:04.000    10.00  ", "22:00:05.000    10.00  ", "22:00:06.000  No values available", "22:00:07.000  No values available", "22:00:08.000  No values available", "22:00:09.000  No values available", "22:00:10.000  No values available",
                          "22:00:11.000    10.00  ", "22:00:12.000    10.00  ", "22:00:13.000    10.00  ",
                          "22:00:14.000    10.00  ", "22:00:15.000    10.00  "));
  // pmval -t 7 cnt prints only "22:00:07.000  No values available".
  EXPECT_THAT(Rows(base, "cnt", 7, false), ElementsAre("22:00:07.000  No values available"));
  EXPECT_THAT(Rows(base, "str", 1, false),
              ElementsAre("22:00:00.000                 \"v0\"", "22:00:01.000                 \"v1\"",
                          "22:00:02.000                 \"v2\"", "22:00:03.000                 \"v3\"",
                          "22:00:04.000                 \"v4\"", "22:00:05.000                 \"v5\"",
                          "22:00:06.000  No values available", "22:00:07.000  No values available", "22:00:08.000  No values available", "22:00:09.000  No values available",
                          "22:00:10.000                \"v10\"", "22:00:11.000                \"v11\"",
                          "22:00:12.000                \"v12\"", "22:00:13.000                \"v13\"",
                          "22:00:14.000                \"v14\"", "22:00:15.000                \"v15\""));
}

TEST(TextOutput, SamplesCountPmvalsIterations) {
  const std::string basic = Basic().Write("text_s");
  // pmval -t 3 -s 3 cnt: its first iteration fetches twice.
  EXPECT_THAT(Rows(basic, "cnt", 3, false, 3),
              ElementsAre("22:00:03.000    10.00  ", "22:00:06.000    10.00  ", "22:00:09.000    10.00  "));
  EXPECT_THAT(Rows(basic, "inst", 3, false, 3),
              ElementsAre("22:00:00.000          5", "22:00:03.000          5", "22:00:06.000         15"));
  const std::string mark = MarkArchive().Write("text_s_mark");
  // pmval -t 1 -s 12 cnt: 6..9 are an iteration each; 10 and 11 are one.
  EXPECT_THAT(Rows(mark, "cnt", 1, false, 12),
              ElementsAre("22:00:01.000    10.00  ", "22:00:02.000    10.00  ", "22:00:03.000    10.00  ",
                          "22:00:04.000    10.00  ", "22:00:05.000    10.00  ", "22:00:06.000  No values available", "22:00:07.000  No values available", "22:00:08.000  No values available", "22:00:09.000  No values available", "22:00:10.000  No values available",
                          "22:00:11.000    10.00  ", "22:00:12.000    10.00  ", "22:00:13.000    10.00  "));
  EXPECT_THAT(Rows(mark, "cnt", 1, false, 8),
              ElementsAre("22:00:01.000    10.00  ", "22:00:02.000    10.00  ", "22:00:03.000    10.00  ",
                          "22:00:04.000    10.00  ", "22:00:05.000    10.00  ", "22:00:06.000  No values available", "22:00:07.000  No values available", "22:00:08.000  No values available"));
  EXPECT_THAT(Rows(mark, "cnt", 3, false, 4),
              ElementsAre("22:00:03.000    10.00  ", "22:00:06.000  No values available", "22:00:09.000  No values available", "22:00:12.000  No values available", "22:00:15.000    10.00  "));
}

// arch/indom: a always, b until 15, c from 10; records every 5 s.
TestArchive Indom() {
  TestArchive a({
      {"icnt", format::kTypeU32, format::kSemCounter, "count", {{0, "a"}, {1, "b"}, {2, "c"}}},
      {"iinst", format::kType32, format::kSemInstant, "count", {{0, "a"}, {1, "b"}, {2, "c"}}},
      {"idisc", format::kType32, format::kSemDiscrete, "count", {{0, "a"}, {1, "b"}, {2, "c"}}},
  });
  for (int t = 0; t <= 30; t += 5) {
    std::vector<testing::Cell> cells;
    for (const char* m : {"icnt", "iinst", "idisc"}) {
      const bool cnt = m[1] == 'c';
      cells.push_back({m, 0, cnt ? 10 * t : t});
      if (t <= 15) cells.push_back({m, 1, cnt ? 20 * t : 100 + t});
      if (t >= 10) cells.push_back({m, 2, cnt ? 30 * t : 200 + t});
    }
    a.Record(t, cells);
  }
  return a;
}

TEST(TextOutput, AQuestionMarkForAnInstanceWithoutAValue) {
  const std::string base = Indom().Write("text_indom");
  // pmval -t 4 icnt: a rate needs both grid times' values.
  EXPECT_THAT(Rows(base, "icnt", 4, false),
              ElementsAre("22:00:04.000    10.00       20.00             ? ",
                          "22:00:08.000    10.00       20.00             ? ",
                          "22:00:12.000    10.00       20.00             ? ",
                          "22:00:16.000    10.00             ?     30.00   ",
                          "22:00:20.000    10.00             ?     30.00   ",
                          "22:00:24.000    10.00             ?     30.00   ",
                          "22:00:28.000    10.00             ?     30.00   "));
  EXPECT_THAT(Rows(base, "icnt", 4, true),
              ElementsAre("22:00:00.000          0           0           ? ",
                          "22:00:04.000         40          80           ? ",
                          "22:00:08.000         80         160           ? ",
                          "22:00:12.000        120         240         360 ",
                          "22:00:16.000        160           ?         480 ",
                          "22:00:20.000        200           ?         600 ",
                          "22:00:24.000        240           ?         720 ",
                          "22:00:28.000        280           ?         840 "));
  // pmval 7.2 -t 4 idisc: b carried after its last value.
  EXPECT_THAT(Rows(base, "idisc", 4, false),
              ElementsAre("22:00:00.000          0         100           ? ",
                          "22:00:04.000          5         105           ? ",
                          "22:00:08.000         10         110           ? ",
                          "22:00:12.000         10         110         210 ",
                          "22:00:16.000         15         115         215 ",
                          "22:00:20.000         20         115         220 ",
                          "22:00:24.000         25         115         225 ",
                          "22:00:28.000         30         115         230 "));
  EXPECT_THAT(Rows(base, "icnt", 4, false, 3),
              ElementsAre("22:00:04.000    10.00       20.00             ? ",
                          "22:00:08.000    10.00       20.00             ? ",
                          "22:00:12.000    10.00       20.00             ? "));
}

TestArchive Wrap() {
  TestArchive a({
      {"cu32", format::kTypeU32, format::kSemCounter},
      {"cs32", format::kType32, format::kSemCounter},
      {"cdbl", format::kTypeDouble, format::kSemCounter},
  });
  a.Record(0, {{"cu32", 4294967000u}, {"cs32", 100}, {"cdbl", 100}});
  a.Record(10, {{"cu32", 4294967200u}, {"cs32", 50}, {"cdbl", 50}});
  a.Record(20, {{"cu32", 100}, {"cs32", -100}, {"cdbl", -100}});
  a.Record(30, {{"cu32", 300}, {"cs32", -50}, {"cdbl", -50}});
  return a;
}

TEST(TextOutput, AnExclamationMarkForACounterGoingDown) {
  const std::string base = Wrap().Write("text_wrap");
  EXPECT_THAT(Rows(base, "cu32", 5, false),
              ElementsAre("22:00:05.000    20.00  ", "22:00:10.000    20.00  ", "22:00:15.000          !",
                          "22:00:20.000          !", "22:00:25.000    20.00  ", "22:00:30.000    20.00  "));
  EXPECT_THAT(Rows(base, "cs32", 5, false),
              ElementsAre("22:00:05.000          !", "22:00:10.000          !", "22:00:15.000          !",
                          "22:00:20.000          !", "22:00:25.000     5.200 ", "22:00:30.000     4.800 "));
  EXPECT_THAT(Rows(base, "cu32", 5, true),
              ElementsAre("22:00:00.000 4294967000", "22:00:05.000 4294967100", "22:00:10.000 4294967200",
                          "22:00:15.000 2147483650", "22:00:20.000        100", "22:00:25.000        200",
                          "22:00:30.000        300"));
  EXPECT_THAT(Rows(base, "cs32", 5, true),
              ElementsAre("22:00:00.000        100", "22:00:05.000         75", "22:00:10.000         50",
                          "22:00:15.000        -24", "22:00:20.000       -100", "22:00:25.000        -74",
                          "22:00:30.000        -50"));
}

// pmval's printreal prints "!" for any negative value of a counter metric
// (pmval.c printvals passes the metric's semantics), raw ones too: pmval
// -t 5 -r cdbl prints "!" at 15..30 (it was "-2.500E+01" here once).
TEST(TextOutput, RawNegativeDoubleCounterIsAnExclamationMarkAsPmvalPrintsIt) {
  const std::string base = Wrap().Write("text_wrap_dbl");
  EXPECT_THAT(Rows(base, "cdbl", 5, true),
              ElementsAre("22:00:00.000             100.0   ", "22:00:05.000              75.00  ",
                          "22:00:10.000              50.00  ", "22:00:15.000                    !",
                          "22:00:20.000                    !", "22:00:25.000                    !",
                          "22:00:30.000                    !"));
}

TEST(TextOutput, RealTextIsPrintreal) {
  // pmval.c printreal, width 11 (a U32 rate).
  EXPECT_EQ(TextOutput::RealText(0, 11, true), "     0.0   ");
  EXPECT_EQ(TextOutput::RealText(0.0001234, 11, true), "  1.234E-04");
  EXPECT_EQ(TextOutput::RealText(-0.5, 11, false), " -5.000E-01");
  EXPECT_EQ(TextOutput::RealText(-0.5, 11, true), "          !");
  EXPECT_EQ(TextOutput::RealText(0.1, 11, true), "     0.1000");
  EXPECT_EQ(TextOutput::RealText(0.99996, 11, true), "     1.000 ");
  EXPECT_EQ(TextOutput::RealText(3, 11, true), "     3.000 ");
  EXPECT_EQ(TextOutput::RealText(9.9996, 11, true), "    10.00  ");
  EXPECT_EQ(TextOutput::RealText(99.996, 11, true), "   100.0   ");
  EXPECT_EQ(TextOutput::RealText(999.96, 11, true), "  1000.    ");
  EXPECT_EQ(TextOutput::RealText(9999, 11, true), "  9999.    ");
  EXPECT_EQ(TextOutput::RealText(9999.4, 11, true), "  9.999E+03");
  EXPECT_EQ(TextOutput::RealText(123456789, 21, false), "            1.235E+08");
}

}  // namespace
}  // namespace mmvlog::archiver

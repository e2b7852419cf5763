// JsonOutput (replay -o json) on a small archive, line by line: the time
// as text and as seconds.nanoseconds, values by label (rates, null where a
// counter has none; raw: exact), strings as JSON strings, cells without a
// value left out, a <mark> as {"mark":true}, -s counting rows not marks.
#include "archiver/replay/output/json_output.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

TestArchive Small() {
  TestArchive a({
      {"req", format::kTypeU64, format::kSemCounter, "count", {{0, "a"}, {1, "b\"c"}}},
      {"ver", format::kTypeString, format::kSemDiscrete, "none"},
      {"load", format::kTypeDouble, format::kSemInstant, "none"},
  });
  a.Record(0, {{"req", 0, 100}, {"req", 1, 7}, {"ver", "1.0 \"beta\"\n"}});
  a.Record(2.5, {{"req", 0, 105}, {"req", 1, 3}, {"load", 0.1}});
  a.Mark(3);
  a.Record(4.000000001, {{"req", 0, 200}, {"load", 1e20}});
  return a;
}

TEST(JsonOutput, OneObjectPerRowValuesByLabel) {
  auto o = OpenArchives({Small().Write("json_rows")});
  ASSERT_NE(o, nullptr);
  CapturedFile f;
  JsonOutput out(f.file(), 0);
  EXPECT_THAT(
      Lines(Feed(out, f, *o, testing::RecordRowsOf(*o, false), false, std::nullopt)),
      ElementsAre(
          "{\"time\":\"2023-11-14 22:00:00.000000000\",\"timestamp\":1699999200.000000000,\"values\":{"
          "\"req[a]\":null,\"req[b\\\"c]\":null,\"ver\":\"1.0 \\\"beta\\\"\\n\"}}",
          "{\"time\":\"2023-11-14 22:00:02.500000000\",\"timestamp\":1699999202.500000000,\"values\":{"
          "\"req[a]\":2,\"req[b\\\"c]\":null,\"load\":0.1}}",
          "{\"time\":\"2023-11-14 22:00:03.000000000\",\"timestamp\":1699999203.000000000,\"mark\":true}",
          "{\"time\":\"2023-11-14 22:00:04.000000001\",\"timestamp\":1699999204.000000001,\"values\":{"
          "\"req[a]\":null,\"load\":1e+20}}"));
}

TEST(JsonOutput, RawValuesAreExact) {
  auto o = OpenArchives({Small().Write("json_raw")});
  ASSERT_NE(o, nullptr);
  CapturedFile f;
  JsonOutput out(f.file(), 0);
  const std::vector<std::string> lines =
      Lines(Feed(out, f, *o, testing::RecordRowsOf(*o, true), true, std::nullopt));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_THAT(lines[0], ::testing::EndsWith("\"values\":{\"req[a]\":100,\"req[b\\\"c]\":7,"
                                            "\"ver\":\"1.0 \\\"beta\\\"\\n\"}}"));
  EXPECT_THAT(lines[1], ::testing::EndsWith("\"values\":{\"req[a]\":105,\"req[b\\\"c]\":3,\"load\":0.1}}"));
  EXPECT_THAT(lines[3], ::testing::EndsWith("\"values\":{\"req[a]\":200,\"load\":1e+20}}"));
}

TEST(JsonOutput, SamplesCountRowsNotMarks) {
  auto o = OpenArchives({Small().Write("json_max")});
  ASSERT_NE(o, nullptr);
  CapturedFile f;
  JsonOutput out(f.file(), 2);
  out.Begin(testing::HeaderFor(*o, false, std::nullopt));
  const std::vector<Row> rows = testing::RecordRowsOf(*o, false);
  EXPECT_TRUE(out.TakeRow(rows[0]));
  EXPECT_FALSE(out.TakeRow(rows[1]));
  EXPECT_TRUE(out.End({}).ok());
  EXPECT_EQ(Lines(f.text()).size(), 2u);
}

TEST(JsonOutput, GridRowsHaveEveryCellWithAValue) {
  TestArchive a({{"cnt", format::kTypeU32, format::kSemCounter}, {"disc", format::kType32, format::kSemDiscrete}});
  a.Record(0, {{"cnt", 0}, {"disc", 1}});
  a.Record(10, {{"cnt", 100}, {"disc", 2}});
  auto o = OpenArchives({a.Write("json_grid")});
  ASSERT_NE(o, nullptr);
  CapturedFile f;
  JsonOutput out(f.file(), 0);
  EXPECT_THAT(Lines(Feed(out, f, *o, testing::GridRows(*o, testing::Grid(0, 4), false), false, absl::Seconds(4))),
              ElementsAre("{\"time\":\"2023-11-14 22:00:00.000000000\",\"timestamp\":1699999200.000000000,"
                          "\"values\":{\"cnt\":null,\"disc\":1}}",
                          "{\"time\":\"2023-11-14 22:00:04.000000000\",\"timestamp\":1699999204.000000000,"
                          "\"values\":{\"cnt\":10,\"disc\":1}}",
                          "{\"time\":\"2023-11-14 22:00:08.000000000\",\"timestamp\":1699999208.000000000,"
                          "\"values\":{\"cnt\":10,\"disc\":2}}"));
}

}  // namespace
}  // namespace mmvlog::archiver

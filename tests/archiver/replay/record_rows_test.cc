// RecordRows: rows at the recorded samples (replay without -t). Counters as
// rates (v - previous) / seconds against the column's previous value, none
// across a <mark>, none when the counter went down; raw rows show the
// stored values; a record with nothing chosen is no row, a <mark> is one.
#include "archiver/replay/record_rows.h"

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "archiver/replay/selection.h"
#include "format/archive/archive_format.h"
#include "tests/archiver/replay/replay_test_util.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::OpenArchives;
using ::mmvlog::testing::Shown;
using ::mmvlog::testing::TestArchive;
using ::mmvlog::testing::Values;
using ::testing::ElementsAre;

TestArchive Samples() {
  TestArchive a({
      {"req", format::kTypeU64, format::kSemCounter, "count", {{0, "zero"}, {1, "one"}, {2, "two"}}},
      {"load", format::kTypeDouble, format::kSemInstant, "none"},
      {"ver", format::kTypeString, format::kSemDiscrete, "none"},
      {"s32", format::kType32, format::kSemCounter},
  });
  a.Record(1, {{"req", 0, 100}, {"req", 1, 1000}, {"load", 0.5}, {"ver", "v1"}, {"s32", -5}});
  a.Record(3, {{"req", 0, 110}, {"req", 1, 1040}, {"load", 0.75}, {"s32", 10}});
  // Instance 2 appears, 1 resets.
  a.Record(4.5, {{"req", 0, 125}, {"req", 2, 7}, {"req", 1, 3}, {"ver", "v2"}, {"s32", 13}});
  a.Mark(5);
  a.Record(6, {{"req", 0, 130}, {"req", 2, 9}, {"load", 1.5}, {"s32", 20}});
  a.Record(8, {{"req", 0, 150}, {"req", 2, 17}, {"req", 1, 23}, {"load", 2.5}, {"s32", 19}});
  return a;
}

TEST(RecordRows, RatesAgainstThePreviousValueNoneAcrossAMarkOrAReset) {
  auto o = OpenArchives({Samples().Write("rates")});
  ASSERT_NE(o, nullptr);
  const std::vector<Row> rows = testing::RecordRowsOf(*o, false);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_THAT(testing::Times(rows), ElementsAre("1.000", "3.000", "4.500", "5.000", "6.000", "8.000"));
  for (size_t r = 0; r < rows.size(); ++r) {
    EXPECT_EQ(rows[r].mark, r == 3) << r;
    EXPECT_FALSE(rows[r].grid);
  }
  // (110 - 100) / 2 s, 15 / 1.5 s; after the mark a new start; 8 / 2 s.
  EXPECT_THAT(Shown(rows, o->Col("req[zero]")), ElementsAre("-", "5.000", "10.000", "-", "-", "10.000"));
  // 40 / 2 s; 1040 -> 3 is a reset ("!"); 23 has no previous since the mark.
  EXPECT_THAT(Shown(rows, o->Col("req[one]")), ElementsAre("-", "20.000", "!", "-", "-", "-"));
  EXPECT_THAT(Shown(rows, o->Col("req[two]")), ElementsAre("-", "-", "-", "-", "-", "4.000"));
  // A signed counter: 15 / 2 s, 3 / 1.5 s; 20 -> 19 went down: "!".
  EXPECT_THAT(Shown(rows, o->Col("s32")), ElementsAre("-", "7.500", "2.000", "-", "-", "!"));
  // Instants as stored; strings have no number.
  EXPECT_THAT(Shown(rows, o->Col("load")), ElementsAre("0.500", "0.750", "-", "-", "1.500", "2.500"));
  EXPECT_THAT(Shown(rows, o->Col("ver")), ElementsAre("-", "-", "-", "-", "-", "-"));
  // The values themselves are the stored ones.
  EXPECT_THAT(Values(rows, o->Col("req[one]")), ElementsAre("1000", "1040", "3", "-", "-", "23"));
  EXPECT_THAT(Values(rows, o->Col("ver")), ElementsAre("v1", "-", "v2", "-", "-", "-"));
  EXPECT_THAT(Values(rows, o->Col("s32")), ElementsAre("-5", "10", "13", "-", "20", "19"));
  // A reset is no number: a negative rate, which pmval -U shows as "!"
  // and pmrep (and every output but the text table) as nothing.
  EXPECT_EQ(rows[2].shown[o->Col("req[one]")], kNegativeRate);
}

TEST(RecordRows, RawShowsTheStoredValues) {
  auto o = OpenArchives({Samples().Write("raw")});
  ASSERT_NE(o, nullptr);
  const std::vector<Row> rows = testing::RecordRowsOf(*o, true);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_THAT(Shown(rows, o->Col("req[zero]")), ElementsAre("100.000", "110.000", "125.000", "-", "130.000", "150.000"));
  EXPECT_THAT(Shown(rows, o->Col("req[one]")), ElementsAre("1000.000", "1040.000", "3.000", "-", "-", "23.000"));
  EXPECT_THAT(Shown(rows, o->Col("s32")), ElementsAre("-5.000", "10.000", "13.000", "-", "20.000", "19.000"));
  EXPECT_EQ(rows[0].kind(o->Col("req[zero]")), kUint);
  EXPECT_EQ(rows[0].kind(o->Col("s32")), kInt);
  EXPECT_EQ(rows[0].kind(o->Col("load")), kDouble);
  EXPECT_EQ(rows[0].kind(o->Col("ver")), kString);
  EXPECT_EQ(rows[0].text(o->Col("ver")), "v1");
}

// Where no column is shown (every one a derived metric's operand), a row is
// only kinds and bits: the same ones, and the same record order, as where
// every column is shown; no number and no rate.
TEST(RecordRows, OperandsOnlyGiveTheSameKindsBitsAndOrder) {
  TestArchive a({{"req", format::kTypeU64, format::kSemCounter, "count", {{0, "zero"}, {1, "one"}, {2, "two"}}},
                 {"s32", format::kType32, format::kSemCounter}});
  a.Record(1, {{"req", 0, 100}, {"req", 1, 1000}, {"s32", -5}});
  a.Record(3, {{"req", 2, 7}, {"req", 0, 110}, {"req", 1, 1040}, {"s32", 10}});  // out of order
  a.Mark(4);
  a.Record(6, {{"req", 0, 130}, {"s32", 20}});
  auto o = OpenArchives({a.Write("operands")});
  ASSERT_NE(o, nullptr);
  const std::vector<uint8_t> none(o->columns.size(), 0);
  const std::vector<Row> all = testing::RecordRowsOf(*o, false);
  const std::vector<Row> operands = testing::RecordRowsOf(*o, false, &none);
  ASSERT_EQ(operands.size(), all.size());
  ASSERT_EQ(all.size(), 4u);
  for (size_t r = 0; r < all.size(); ++r) {
    EXPECT_EQ(operands[r].kinds, all[r].kinds) << r;
    EXPECT_EQ(operands[r].mark, all[r].mark) << r;
    EXPECT_EQ(operands[r].record_order, all[r].record_order) << r;
    for (size_t c = 0; c < o->columns.size(); ++c) {
      if (all[r].kinds[c] != kNoValue) EXPECT_EQ(operands[r].bits[c], all[r].bits[c]) << r << " " << c;
      EXPECT_EQ(operands[r].shown[c], kNoNumber) << r << " " << c;
    }
  }
  EXPECT_FALSE(all[1].record_order.empty());  // the second record's order is its own
  EXPECT_THAT(Values(operands, o->Col("req[two]")), ElementsAre("-", "7", "-", "-"));
  EXPECT_THAT(Values(operands, o->Col("s32")), ElementsAre("-5", "10", "-", "20"));
}

TEST(RecordRows, ARecordWithNothingChosenIsNoRow) {
  Selection only_load;
  only_load.metrics = {"load"};
  auto o = OpenArchives({Samples().Write("unchosen")}, only_load);
  ASSERT_NE(o, nullptr);
  const std::vector<Row> rows = testing::RecordRowsOf(*o, false);
  // 4.5 holds no "load": no row; the mark is one.
  EXPECT_THAT(testing::Times(rows), ElementsAre("1.000", "3.000", "5.000", "6.000", "8.000"));
  EXPECT_TRUE(rows[2].mark);
}

TEST(RecordRows, SixtyFourBitDifferencesAreExact) {
  // Above 2^53 a double cannot tell 2^60 from 2^60 + 3; the difference can.
  TestArchive a({{"big", format::kTypeU64, format::kSemCounter}, {"sbig", format::kType64, format::kSemCounter}});
  const uint64_t base = uint64_t{1} << 60;
  a.Record(0, {{"big", base}, {"sbig", static_cast<long long>(base)}});
  a.Record(0.25, {{"big", base + 3}, {"sbig", static_cast<long long>(base + 5)}});
  auto o = OpenArchives({a.Write("big")});
  ASSERT_NE(o, nullptr);
  const std::vector<Row> rows = testing::RecordRowsOf(*o, false);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].shown[o->Col("big")], kNumber);
  EXPECT_EQ(rows[1].numbers[o->Col("big")], 12.0);
  EXPECT_EQ(rows[1].numbers[o->Col("sbig")], 20.0);
}

}  // namespace
}  // namespace mmvlog::archiver

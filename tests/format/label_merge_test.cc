// Tests of //format/archive:label_merge: an identifier's label set from several
// payloads, as pmdammv's __pmAddLabels calls build it. The expected sets
// were printed by PCP 7.2's libpcp for the same payloads
// (tests/pcp:label_json_oracle_test compares the two over many more).
#include "format/archive/label_merge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/archive/label_json.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

LabelSet Set(absl::string_view json, uint8_t flags) {
  absl::StatusOr<LabelSet> s = MakeLabelSet(kInNull, json, flags, LabelOrder::kAsWritten);
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

TEST(MergeLabelSets, OneSetIsKeptAsItIs) {
  const LabelSet one = Set(R"({"svc":{"name":"web","tier":{"z":2,"a":1}}})", kLabelCluster);
  absl::StatusOr<LabelSet> got = MergeLabelSets(7, {one});
  ASSERT_OK(got);
  EXPECT_EQ(got->inst, 7);
  EXPECT_EQ(got->json, one.json);
  EXPECT_EQ(got->labels, one.labels);
}

TEST(MergeLabelSets, CompoundLabelsGivenTwiceAreFlattened) {
  // An MMV instance given {"item_label3":{"a":1}} then {"item_label3":{"b":2}}:
  // pmlogger (6.0.3 and 7.2) records two flattened labels.
  const uint8_t f = kLabelInstances;
  absl::StatusOr<LabelSet> got = MergeLabelSets(
      1, {Set(R"({"item_label3":{"a":1}})", f), Set(R"({"item_label3":{"b":2}})", f)});
  ASSERT_OK(got);
  EXPECT_EQ(got->inst, 1);
  EXPECT_EQ(got->json, R"({"item_label3.a":1,"item_label3.b":2})");
  const uint8_t c = f | kLabelCompound;
  EXPECT_EQ(got->labels, (std::vector<LabelEntry>{{2, 13, c, 17, 1}, {20, 13, c, 35, 1}}));
}

TEST(MergeLabelSets, LaterSetsWinAndEachLabelKeepsItsFlags) {
  // {"b":1} {"a":2} {"b":3}, the second OPTIONAL: {"a":2,"b":3}.
  absl::StatusOr<LabelSet> got =
      MergeLabelSets(kInNull, {Set(R"({"b":1})", kLabelItem),
                               Set(R"({"a":2})", kLabelItem | kLabelOptional),
                               Set(R"({"b":3})", kLabelItem)});
  ASSERT_OK(got);
  EXPECT_EQ(got->json, R"({"a":2,"b":3})");
  EXPECT_EQ(got->labels, (std::vector<LabelEntry>{{2, 1, kLabelItem | kLabelOptional, 5, 1},
                                                  {8, 1, kLabelItem, 11, 1}}));
  // A plain label beside a compound one: {"x":1} {"y":{"z":2}}.
  got = MergeLabelSets(kInNull, {Set(R"({"x":1})", 0x90), Set(R"({"y":{"z":2}})", 0x90)});
  ASSERT_OK(got);
  EXPECT_EQ(got->json, R"({"x":1,"y.z":2})");
  EXPECT_EQ(got->labels, (std::vector<LabelEntry>{{2, 1, 0x90, 5, 1}, {8, 3, 0xd0, 13, 1}}));
}

TEST(MergeLabelSets, EmptyMapsAndDeeperObjects) {
  // An empty map stays a label; an object two deep takes its whole path
  // (PCP 7.2 writes "a.c" for a.b.c: label_json_oracle_test's known
  // differences).
  absl::StatusOr<LabelSet> got = MergeLabelSets(
      kInNull, {Set(R"({"m":{}})", kLabelItem), Set(R"({"a":{"b":{"c":1}}})", kLabelItem)});
  ASSERT_OK(got);
  EXPECT_EQ(got->json, R"({"a.b.c":1,"m":{}})");
  EXPECT_EQ(got->labels,
            (std::vector<LabelEntry>{{2, 5, kLabelItem | kLabelCompound, 9, 1},
                                     {12, 1, kLabelItem | kLabelCompound, 15, 2}}));
}

TEST(MergeLabelSets, Limits) {
  // Flattened names longer than a label name may be.
  const std::string outer(200, 'o'), inner(60, 'i');
  absl::StatusOr<LabelSet> got = MergeLabelSets(
      kInNull, {Set(absl::StrCat(R"({")", outer, R"(":{")", inner, R"(":1}})"), kLabelItem),
                Set(R"({"x":1})", kLabelItem)});
  EXPECT_THAT(got, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("longer than 254")));
  // More labels than a set holds.
  std::vector<LabelSet> many;
  for (int i = 0; i < 256; ++i) many.push_back(Set(absl::StrCat(R"({"l)", i, R"(":1})"), 0));
  EXPECT_THAT(MergeLabelSets(kInNull, many),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("256 labels exceed 255")));
}

}  // namespace
}  // namespace mmvlog::format

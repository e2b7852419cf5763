// Tests for format/label_json: label sets built from JSON as libpcp builds
// them (tests/pcp/archive_meta_oracle_test.cc checks these against libpcp's
// own __pmAddLabels): sorting, compaction, entry offsets, name rules,
// malformed JSON, compound labels and libpcp's limits; merging objects.
#include "format/archive/label_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

TEST(MakeLabelSet, SortsCompactsAndIndexes) {
  absl::StatusOr<LabelSet> set =
      MakeLabelSet(kInNull, R"({"b":1,"a":"x"})", kLabelItem | kLabelOptional);
  ASSERT_OK(set);
  EXPECT_EQ(set->inst, kInNull);
  EXPECT_EQ(set->json, R"({"a":"x","b":1})");
  EXPECT_EQ(set->labels, (std::vector<LabelEntry>{{2, 1, 0x90, 5, 3},
                                                  {10, 1, 0x90, 13, 1}}));
  set = MakeLabelSet(
      5, " {\n \"b\" : [1, [2] , \"a b\" ,null] ,\t\"a\" : \"x y\" } ",
      kLabelInstances);
  ASSERT_OK(set);
  EXPECT_EQ(set->inst, 5);
  EXPECT_EQ(set->json, R"({"a":"x y","b":[1,[2],"a b",null]})");
  EXPECT_EQ(set->labels, (std::vector<LabelEntry>{{2, 1, 0x20, 5, 5},
                                                  {12, 1, 0x20, 15, 18}}));
}

TEST(MakeLabelSet, KeepsValuesAsWritten) {
  absl::StatusOr<LabelSet> set = MakeLabelSet(
      kInNull,
      R"({"n":-0.5E+3,"m":1.50,"s":"\u00e9\"\\","t":true,"f":false,"z":null,"B":{}})",
      kLabelContext);
  // An empty compound label: a label of its own, value {}, flagged
  // compound (libpcp's "empty map", as 6.0.3 and 7.2 build it).
  ASSERT_OK(set);
  ASSERT_EQ(set->labels.size(), 7u);
  EXPECT_THAT(set->json, HasSubstr(R"("B":{})"));
  EXPECT_EQ(set->labels[0], (LabelEntry{2, 1, kLabelContext | kLabelCompound, 5, 2}));
  set = MakeLabelSet(
      kInNull,
      R"({"n":-0.5E+3,"m":1.50,"s":"\u00e9\"\\","t":true,"f":false,"z":null,"B":[]})",
      kLabelContext);
  ASSERT_OK(set);
  EXPECT_EQ(
      set->json,
      R"({"B":[],"f":false,"m":1.50,"n":-0.5E+3,"s":"\u00e9\"\\","t":true,"z":null})");
  ASSERT_EQ(set->labels.size(), 7u);
  for (const LabelEntry& l : set->labels) {
    EXPECT_EQ(set->json[l.name_offset - 1], '"');
    EXPECT_EQ(set->json[l.name_offset + l.name_length], '"');
    EXPECT_EQ(set->json[l.value_offset - 1], ':');
    const char after = set->json[l.value_offset + l.value_length];
    EXPECT_TRUE(after == ',' || after == '}');
  }
}

TEST(MakeLabelSet, EmptyObject) {
  absl::StatusOr<LabelSet> set = MakeLabelSet(kInNull, " { } ", kLabelContext);
  ASSERT_OK(set);
  EXPECT_EQ(set->json, "{}");
  EXPECT_TRUE(set->labels.empty());
}

TEST(MakeLabelSet, NameRules) {
  // PCP 7.2's rule (labels.c verify_label_name): [A-Za-z0-9_]+, so a name
  // may begin with a digit or '_' (6.0.3 wanted a letter first).
  for (absl::string_view good : {R"({"B_9":1})", R"({"1a":1})", R"({"_c":1})", R"({"_":1})"}) {
    EXPECT_OK(MakeLabelSet(kInNull, good, 0)) << good;
  }
  // An object with no valid name is refused...
  for (absl::string_view bad :
       {R"({"a-b":1})", R"({"a.b":1})", R"({"":1})", R"({"a\u0062":1})", R"({"é":1})"}) {
    EXPECT_THAT(
        MakeLabelSet(kInNull, bad, 0),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("label name")))
        << bad;
  }
  // ... but one with a valid name too keeps it: an invalid name is skipped
  // with its value, at any depth (7.2; 6.0.3 refused the whole object).
  absl::StatusOr<LabelSet> set =
      MakeLabelSet(kInNull, R"({"a-b":[1,2],"c":2,"d":{"_x":1,"bad-key":{"y":2},"ok":3}})",
                   kLabelItem);
  ASSERT_OK(set);
  EXPECT_EQ(set->json, R"({"c":2,"d":{"_x":1,"ok":3}})");
  EXPECT_THAT(set->labels, ::testing::SizeIs(3));
  set = MakeLabelSet(kInNull, R"({"a":{"bad-key":1}})", kLabelItem);
  ASSERT_OK(set);
  EXPECT_EQ(set->json, R"({"a":{}})");  // an empty map is left, as 7.2 leaves it
  EXPECT_OK(MakeLabelSet(
      kInNull,
      absl::StrCat("{\"", std::string(kMaxLabelNameLength, 'a'), "\":1}"), 0));
  EXPECT_THAT(
      MakeLabelSet(kInNull, absl::StrCat("{\"", std::string(255, 'a'), "\":1}"),
                   0),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("at most 254 bytes")));
  EXPECT_THAT(MakeLabelSet(kInNull, R"({"a":1,"b":2,"a":3})", 0),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("\"a\" appears twice")));
}

TEST(MakeLabelSet, AsWrittenKeepsTheOrderOfTheFirstObject) {
  // pmdammv's first __pmAddLabels of an identifier, into an empty set:
  // libpcp keeps the object as written; the entries are sorted all the same.
  absl::StatusOr<LabelSet> set =
      MakeLabelSet(kInNull, R"({ "b" : 1, "a" : "x" })", kLabelItem, LabelOrder::kAsWritten);
  ASSERT_OK(set);
  EXPECT_EQ(set->json, R"({"b":1,"a":"x"})");
  EXPECT_EQ(set->labels, (std::vector<LabelEntry>{{8, 1, kLabelItem, 11, 3},
                                                  {2, 1, kLabelItem, 5, 1}}));
  // Nothing left: libpcp's json is empty.
  set = MakeLabelSet(kInNull, "{}", kLabelItem, LabelOrder::kAsWritten);
  ASSERT_OK(set);
  EXPECT_EQ(set->json, "");
}

TEST(MakeLabelSet, MalformedJson) {
  for (absl::string_view bad : {"",
                                "x",
                                "[1]",
                                R"({"a":1)",
                                R"({"a":1,})",
                                R"({"a" 1})",
                                R"({"a":})",
                                R"({"a":01})",
                                R"({"a":1.})",
                                R"({"a":-})",
                                R"({"a":1e})",
                                R"({"a":tru})",
                                R"({"a":"x})",
                                "{\"a\":\"x\ny\"}",
                                R"({"a":"\x"})",
                                R"({"a":"\u12g4"})",
                                R"({"a":[1,]})",
                                R"({"a":[1 2]})",
                                R"({"a":1} x)",
                                R"({"a":'x'})",
                                R"({a:1})"}) {
    EXPECT_THAT(MakeLabelSet(kInNull, bad, 0),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("label json: offset")))
        << bad;
  }
  EXPECT_THAT(MakeLabelSet(kInNull,
                           absl::StrCat(R"({"a":)", std::string(100, '['),
                                        std::string(100, ']'), "}"),
                           0),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("nested too deeply")));
}

// PCP 6.0.3's record of a libpcp_mmv registry label {"svc":{...}} (MMV's
// MAP type), read back with pmdumplog -e from `pmlogger -o`'s archive: the
// text as written (nested names in their order), one entry per innermost
// name, flagged compound, sorted by name; an array is a plain value.
TEST(MakeLabelSet, CompoundLabelsAsPcpRecordsThem) {
  absl::StatusOr<LabelSet> set = MakeLabelSet(
      kInNull, R"({ "svc" : { "name" : "web", "tier" : {"z":2, "a":1} } })", kLabelCluster);
  ASSERT_OK(set);
  EXPECT_EQ(set->json, R"({"svc":{"name":"web","tier":{"z":2,"a":1}}})");
  const uint8_t c = kLabelCluster | kLabelCompound;
  EXPECT_EQ(set->labels, (std::vector<LabelEntry>{{36, 1, c, 39, 1},    // a
                                                  {9, 4, c, 15, 5},     // name
                                                  {30, 1, c, 33, 1}}));  // z
  set = MakeLabelSet(kInNull, R"({"ports":[80,443],"plain":"v"})", kLabelItem);
  ASSERT_OK(set);
  EXPECT_EQ(set->json, R"({"plain":"v","ports":[80,443]})");
  EXPECT_EQ(set->labels, (std::vector<LabelEntry>{{2, 5, kLabelItem, 9, 3},
                                                  {14, 5, kLabelItem, 21, 8}}));
  // Beside plain labels, sorted among them by name.
  set = MakeLabelSet(kInNull, R"({"b":{"c":1},"d":2})", kLabelItem);
  ASSERT_OK(set);
  EXPECT_EQ(set->json, R"({"b":{"c":1},"d":2})");
  EXPECT_EQ(set->labels,
            (std::vector<LabelEntry>{{7, 1, kLabelItem | kLabelCompound, 10, 1},
                                     {14, 1, kLabelItem, 17, 1}}));
  // Compound entries sort under their top-level name: "m.x" before "n.a".
  set = MakeLabelSet(kInNull, R"({"n":{"a":1},"m":{"x":2}})", kLabelItem);
  ASSERT_OK(set);
  EXPECT_EQ(set->json, R"({"m":{"x":2},"n":{"a":1}})");
  EXPECT_EQ(set->labels[0].value_offset, 10);
  // Every rule of syntax and depth still holds inside.
  for (const char* bad : {R"({"a":{"b":}})", R"({"a":{"b" 1}})",
                          R"({"a":{"b":1,}})", R"({"a":{b:1}})"}) {
    EXPECT_THAT(MakeLabelSet(kInNull, bad, 0),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("label")))
        << bad;
  }
  EXPECT_THAT(MakeLabelSet(kInNull,
                           absl::StrCat(R"({"a":)", [] {
                             std::string s;
                             for (int i = 0; i < 100; ++i) s += R"({"b":)";
                             return s + "1" + std::string(100, '}');
                           }(), "}"),
                           0),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nested too deeply")));
}

TEST(MakeLabelSet, Limits) {
  std::string json = "{";
  for (size_t i = 0; i < kMaxLabels; ++i) {
    absl::StrAppend(&json, i ? "," : "", "\"l", i, "\":", i);
  }
  absl::StatusOr<LabelSet> set = MakeLabelSet(kInNull, json + "}", 0);
  ASSERT_OK(set);
  EXPECT_EQ(set->labels.size(), kMaxLabels);
  EXPECT_THAT(MakeLabelSet(kInNull, json + R"(,"x":1})", 0),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("256 labels exceed 255")));
  // libpcp merges sets of at most 65531 bytes, and takes input of at most
  // 65533 bytes (its length + 1 must stay below PM_MAXLABELJSONLEN).
  const std::string longest =
      absl::StrCat(R"({"a":")", std::string(65531 - 8, 'v'), R"("})");
  set = MakeLabelSet(kInNull, longest, 0);
  ASSERT_OK(set);
  EXPECT_EQ(set->labels[0].value_length, 65531 - 6);
  EXPECT_OK(MakeLabelSet(kInNull, longest + "  ", 0));
  const std::string too_long =
      absl::StrCat(R"({"a":")", std::string(65532 - 8, 'v'), R"("})");
  EXPECT_THAT(
      MakeLabelSet(kInNull, too_long, 0),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("too long")));
  EXPECT_THAT(
      MakeLabelSet(kInNull, longest + "   ", 0),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("too long")));
}

TEST(MergeLabelJson, LaterObjectsWin) {
  absl::StatusOr<std::string> json =
      MergeLabelJson({R"({"a":1})", R"({"b":"x"})"});
  ASSERT_OK(json);
  EXPECT_EQ(*json, R"({"a":1,"b":"x"})");
  json = MergeLabelJson({R"({"b":1, "a":[1, 2]})", R"({ "b" : 2 })", "{}"});
  ASSERT_OK(json);
  EXPECT_EQ(*json, R"({"a":[1,2],"b":2})");
  json = MergeLabelJson({});
  ASSERT_OK(json);
  EXPECT_EQ(*json, "{}");
  EXPECT_THAT(
      MergeLabelJson({"{}", R"({"a":1,"a":2})"}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("label object 1: label name \"a\" appears twice")));
  EXPECT_THAT(MergeLabelJson({R"({"a":)"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("label object 0: label json")));
}

TEST(MergeLabelJson, FeedsMakeLabelSet) {
  absl::StatusOr<std::string> json =
      MergeLabelJson({R"({"agent":"mmv"})", R"({"hostname":"x"})"});
  ASSERT_OK(json);
  absl::StatusOr<LabelSet> set = MakeLabelSet(kInNull, *json, kLabelContext);
  ASSERT_OK(set);
  EXPECT_EQ(set->json, R"({"agent":"mmv","hostname":"x"})");
}

}  // namespace
}  // namespace mmvlog::format

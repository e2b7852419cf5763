// Tests for format/pm_desc_text. Every expected string below was printed by
// libpcp 6.0.3 (pmPrintDesc, pmTypeStr, pmSemStr, pmUnitsStr, pmIDStr,
// pmInDomStr); tests/pcp/pm_desc_text_oracle_test.cc compares against
// libpcp itself over whole ranges.
#include "format/archive/pm_desc_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "format/archive/archive_format.h"
#include "format/pm_units.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

using ::mmvlog::testing::IsOk;
using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

TEST(TypeName, AsPmPrintDescPrintsIt) {
  EXPECT_EQ(TypeName(kTypeNoSupport), "Not Supported");
  EXPECT_EQ(TypeName(kType32), "32-bit int");
  EXPECT_EQ(TypeName(kTypeU32), "32-bit unsigned int");
  EXPECT_EQ(TypeName(kType64), "64-bit int");
  EXPECT_EQ(TypeName(kTypeU64), "64-bit unsigned int");
  EXPECT_EQ(TypeName(kTypeFloat), "float");
  EXPECT_EQ(TypeName(kTypeDouble), "double");
  EXPECT_EQ(TypeName(kTypeString), "string");
  EXPECT_EQ(TypeName(kTypeAggregate), "aggregate");
  EXPECT_EQ(TypeName(kTypeAggregateStatic), "static aggregate");
  EXPECT_EQ(TypeName(kTypeEvent), "event record array");
  EXPECT_EQ(TypeName(kTypeHighresEvent), "highres event record array");
  EXPECT_EQ(TypeName(11), "??? (11)");
  EXPECT_EQ(TypeName(kTypeUnknown), "??? (255)");
  EXPECT_EQ(TypeName(-2), "??? (-2)");
}

TEST(ParseType, AcceptsTypeNameAndPmTypeStr) {
  for (int32_t t = -3; t <= 260; ++t) {
    absl::StatusOr<int32_t> parsed = ParseType(TypeName(t));
    ASSERT_OK(parsed);
    EXPECT_EQ(*parsed, t);
  }
  const std::pair<const char*, int32_t> kPmTypeStr[] = {
      {"NO_SUPPORT", kTypeNoSupport},
      {"32", kType32},
      {"U32", kTypeU32},
      {"64", kType64},
      {"U64", kTypeU64},
      {"FLOAT", kTypeFloat},
      {"DOUBLE", kTypeDouble},
      {"STRING", kTypeString},
      {"AGGREGATE", kTypeAggregate},
      {"AGGREGATE_STATIC", kTypeAggregateStatic},
      {"EVENT", kTypeEvent},
      {"HIGHRES_EVENT", kTypeHighresEvent},
      {"UNKNOWN", kTypeUnknown},
      {"u64", kTypeU64},
      {"Double", kTypeDouble},
      {"not supported", kTypeNoSupport},
  };
  for (const auto& [text, type] : kPmTypeStr) {
    absl::StatusOr<int32_t> parsed = ParseType(text);
    ASSERT_OK(parsed) << text;
    EXPECT_EQ(*parsed, type) << text;
  }
  for (const char* bad :
       {"", "???", "??? ()", "??? (x)", "int", "U16", " U32"}) {
    EXPECT_THAT(ParseType(bad), StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr("unknown data type")))
        << bad;
  }
}

TEST(Semantics, NamesAndInverse) {
  EXPECT_EQ(SemanticsName(kSemCounter), "counter");
  EXPECT_EQ(SemanticsName(kSemInstant), "instant");
  EXPECT_EQ(SemanticsName(kSemDiscrete), "discrete");
  EXPECT_EQ(SemanticsName(0), "??? (0)");
  EXPECT_EQ(SemanticsName(2), "??? (2)");
  for (int32_t s = -2; s <= 10; ++s) {
    absl::StatusOr<int32_t> parsed = ParseSemantics(SemanticsName(s));
    ASSERT_OK(parsed);
    EXPECT_EQ(*parsed, s);
  }
  EXPECT_THAT(ParseSemantics("INSTANT"), IsOk());
  EXPECT_THAT(ParseSemantics("gauge"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown semantics")));
}

TEST(PmidString, AsPmIDStrPrintsIt) {
  EXPECT_EQ(PmidString(PmidBuild(70, 1, 2)), "70.1.2");
  EXPECT_EQ(PmidString(0), "0.0.0");
  EXPECT_EQ(PmidString(0xffffffff), "PM_ID_NULL");
  EXPECT_EQ(PmidString(0x7fffffff), "511.4095.1023");
  EXPECT_EQ(PmidString(0x80000001), "0.0.1");  // the derived bit is not shown
  EXPECT_EQ(PmidString(0x7fc00000), "0.*.*");  // dynamic PMNS roots
  EXPECT_EQ(PmidString(0x7fc00400), "1.*.*");
  EXPECT_EQ(PmidString(0x7fc00401), "511.1.1");
  EXPECT_EQ(PmidString(0x3d400402), "245.1.2");
}

TEST(InDomString, AsPmInDomStrPrintsIt) {
  EXPECT_EQ(InDomString(InDomBuild(70, 2049)), "70.2049");
  EXPECT_EQ(InDomString(kIndomNull), "PM_INDOM_NULL");
  EXPECT_EQ(InDomString(0), "0.0");
  EXPECT_EQ(InDomString(0x7fffffff), "511.4194303");
  EXPECT_EQ(InDomString(0x80000001), "0.1");
  EXPECT_EQ(InDomString(0xfffffffe), "511.4194302");
}

PmUnits Units(int ds, int dt, int dc, int ss, int st, int sc) {
  return PmUnits{ds, dt, dc, ss, st, sc, 0, 0};
}

TEST(ParseUnits, InvertsPmUnitsStr) {
  const std::pair<const char*, PmUnits> kCases[] = {
      {"", Units(0, 0, 0, 0, 0, 0)},
      {"none", Units(0, 0, 0, 0, 0, 0)},
      {"Kbyte / sec", Units(1, -1, 0, kSpaceKbyte, kTimeSec, 0)},
      {"count x 10^3", Units(0, 0, 1, 0, 0, 3)},
      {"count x 10", Units(0, 0, 1, 0, 0, 1)},
      {"count x 10^-2", Units(0, 0, 1, 0, 0, -2)},
      {"count x 10^3^2", Units(0, 0, 2, 0, 0, 3)},
      {"count^2", Units(0, 0, 2, 0, 0, 0)},
      {"millisec", Units(0, 1, 0, 0, kTimeMsec, 0)},
      {"/ sec", Units(0, -1, 0, 0, kTimeSec, 0)},
      {"/ count", Units(0, 0, -1, 0, 0, 0)},
      {"byte^2 / sec count", Units(2, -1, -1, kSpaceByte, kTimeSec, 0)},
      {"Mbyte hour / count x 10^6^3",
       Units(1, 1, -3, kSpaceMbyte, kTimeHour, 6)},
      {"x 10", Units(0, 0, 0, 0, 0, 1)},
      {"x 10^-8", Units(0, 0, 0, 0, 0, -8)},
      {"space-15 time-9", Units(1, 1, 0, 15, 9, 0)},
      {"Ybyte^7 / nanosec^8", Units(7, -8, 0, 8, kTimeNsec, 0)},
      {"microsec / microsec", Units(0, 0, 0, 0, 0, 0)},  // see below
      {"temperature (C)", UnitsFromWord(0x9)},
      {"power (W) hour", UnitsFromWord(0x1005022)},
      {"power (W) byte / sec", UnitsFromWord(0x1f003022)},
      {"/ temperature (C) sec", UnitsFromWord(0xf0030f9)},
      {"/ current (uA)", UnitsFromWord(0xeb)},
  };
  for (const auto& [text, want] : kCases) {
    absl::StatusOr<PmUnits> got = ParseUnits(text);
    if (std::string(text) == "microsec / microsec") {
      // A dimension may not appear twice.
      EXPECT_THAT(got, StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("appears twice")));
      continue;
    }
    ASSERT_OK(got) << text;
    EXPECT_EQ(*got, want) << text;
    if (std::string(text) != "none") {
      // PCP 6.0.3's "x 10^N" is 7.2's "count x 10^N" (which reads as a
      // count dimension: 7.2 prints both alike).
      EXPECT_EQ(absl::StartsWith(text, "x ") ? UnitsToStringPcp6(*got) : UnitsToString(*got),
                text);
    }
  }
}

TEST(ParseUnits, RoundTripsEveryCanonicalUnit) {
  int checked = 0;
  for (int ds = -8; ds <= 7; ++ds) {
    for (int dt = -8; dt <= 7; ++dt) {
      for (int dc = -8; dc <= 7; ++dc) {
        for (int sc = -8; sc <= 7; ++sc) {
          // pmUnitsStr prints scale 1 squared and scale 2 alike; see the
          // header.
          if (sc == 1 && dc != 1 && dc != -1 && dc != 0) continue;
          const PmUnits u =
              Units(ds, dt, dc, ds ? (ds + 8) % 16 : 0, dt ? (dt + 8) % 16 : 0,
                    (dc || (!ds && !dt)) ? sc : 0);
          // 7.2 prints a count scale with no dimension as a count
          // ("count x 10^3"); 6.0.3's "x 10^3" tells them apart.
          const std::string text = (ds || dt || dc) ? UnitsToString(u) : UnitsToStringPcp6(u);
          absl::StatusOr<PmUnits> back = ParseUnits(text);
          ASSERT_OK(back) << text;
          ASSERT_EQ(*back, u) << text;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 60000);
}

TEST(ParseUnits, RejectsWhatPmUnitsStrNeverPrints) {
  for (const char* bad : {"bytes",
                          "Kbyte /",
                          "/",
                          "/ / sec",
                          "sec^0",
                          "sec^-1",
                          "sec^x",
                          "sec^2^2",
                          "count x",
                          "count x 100",
                          "count x 10^",
                          "count x 10^a",
                          "x",
                          "x 10^0",
                          "x 10 x",
                          "x 100",
                          "byte^8",
                          "/ byte^9",
                          "count x 10^8",
                          "space-16",
                          "time--1",
                          "Kbyte Mbyte",
                          "temperature (X)",
                          "warmth (C)",
                          "power (W) current (A)",
                          "power (W) /"}) {
    EXPECT_THAT(ParseUnits(bad), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("units \"")))
        << bad;
  }
}

}  // namespace
}  // namespace mmvlog::format

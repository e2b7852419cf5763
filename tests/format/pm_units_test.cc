// Tests of //format:pm_units: the pmUnits word layout and the text form.
// The expected strings were printed by PCP 6.0.3's own pmUnitsStr(3) for
// the same fields (tests/pcp/pm_units_oracle_test.py compares the two over
// many words).
#include "format/pm_units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace mmvlog::format {
namespace {

PmUnits Units(int dim_space, int dim_time, int dim_count, int scale_space,
              int scale_time, int scale_count) {
  PmUnits u;
  u.dim_space = dim_space;
  u.dim_time = dim_time;
  u.dim_count = dim_count;
  u.scale_space = scale_space;
  u.scale_time = scale_time;
  u.scale_count = scale_count;
  return u;
}

TEST(PmUnitsTest, KnownWords) {
  // PMDA_PMUNITS(1, -1, 0, PM_SPACE_KBYTE, PM_TIME_SEC, 0): Kbyte / sec.
  const PmUnits kbyte_per_sec = Units(1, -1, 0, kSpaceKbyte, kTimeSec, 0);
  EXPECT_EQ(UnitsToWord(kbyte_per_sec), 0x1f013000u);
  EXPECT_EQ(UnitsFromWord(0x1f013000u), kbyte_per_sec);
  EXPECT_EQ(UnitsToWord(Units(0, 0, 1, 0, 0, 0)), 0x00100000u);
  EXPECT_EQ(UnitsFromWord(0), PmUnits());
  EXPECT_EQ(UnitsToWord(PmUnits()), 0u);
}

TEST(PmUnitsTest, AllOnesWord) {
  const PmUnits u = UnitsFromWord(0xffffffffu);
  EXPECT_EQ(u.dim_space, -1);
  EXPECT_EQ(u.dim_time, -1);
  EXPECT_EQ(u.dim_count, -1);
  EXPECT_EQ(u.scale_space, 15);  // unsigned fields
  EXPECT_EQ(u.scale_time, 15);
  EXPECT_EQ(u.scale_count, -1);  // signed
  EXPECT_EQ(u.pad, 255);
  EXPECT_EQ(UnitsToWord(u), 0xffffffffu);
}

// Every value of every field alone: the signed fields run -8..7, the
// unsigned ones 0..15, and each lands in its own bits.
TEST(PmUnitsTest, EachFieldOverItsWholeRange) {
  struct Field {
    int shift;
    int bits;
    bool is_signed;
    int PmUnits::*member;
  };
  const Field fields[] = {
      {28, 4, true, &PmUnits::dim_space},
      {24, 4, true, &PmUnits::dim_time},
      {20, 4, true, &PmUnits::dim_count},
      {16, 4, false, &PmUnits::scale_space},
      {12, 4, false, &PmUnits::scale_time},
      {8, 4, true, &PmUnits::scale_count},
      {0, 8, false, &PmUnits::pad},
  };
  for (const Field& f : fields) {
    for (uint32_t raw = 0; raw < (1u << f.bits); ++raw) {
      const uint32_t word = raw << f.shift;
      const int value = f.is_signed && raw >= (1u << (f.bits - 1))
                            ? static_cast<int>(raw) - (1 << f.bits)
                            : static_cast<int>(raw);
      PmUnits want;
      want.*f.member = value;
      SCOPED_TRACE(word);
      EXPECT_EQ(UnitsFromWord(word), want);
      EXPECT_EQ(UnitsToWord(want), word);
    }
  }
}

TEST(PmUnitsTest, ToWordTruncatesFieldsToTheirWidths) {
  PmUnits u;
  u.dim_space = 17;   // 0x11 -> 1
  u.scale_time = -1;  // -> 15
  u.pad = 0x1ff;      // -> 0xff
  EXPECT_EQ(UnitsToWord(u), 0x1000f0ffu);
}

// 2^32 words is too many; a seeded sample plus the boundaries above.
TEST(PmUnitsTest, SeededWordsRoundTrip) {
  std::mt19937 rng(4242);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t word = rng();
    const PmUnits u = UnitsFromWord(word);
    ASSERT_EQ(UnitsToWord(u), word) << std::hex << word;
    ASSERT_GE(u.dim_space, -8);
    ASSERT_LE(u.dim_space, 7);
    ASSERT_GE(u.scale_count, -8);
    ASSERT_LE(u.scale_count, 7);
    ASSERT_GE(u.scale_space, 0);
    ASSERT_LE(u.scale_space, 15);
  }
}

TEST(PmUnitsTest, TextMatchesPmUnitsStr) {
  struct Case {
    int dim_space, dim_time, dim_count, scale_space, scale_time, scale_count;
    const char* text;  // pmUnitsStr's output
  };
  const Case cases[] = {
      {1, -1, 0, 1, 3, 0, "Kbyte / sec"},
      {0, 0, 1, 0, 0, 0, "count"},
      {0, 1, 0, 0, 2, 0, "millisec"},
      {1, 0, 0, 0, 0, 0, "byte"},
      {0, 0, 1, 0, 0, 3, "count x 10^3"},
      {0, 0, 1, 0, 0, 1, "count x 10"},
      {0, -1, 0, 0, 3, 0, "/ sec"},
      {0, 0, -1, 0, 0, 0, "/ count"},
      {2, 0, 0, 2, 0, 0, "Mbyte^2"},
      {0, 0, 0, 0, 0, 6, "x 10^6"},
      {0, 0, 0, 0, 0, 1, "x 10"},
      {0, 0, 0, 0, 0, -2, "x 10^-2"},
      {0, 0, 0, 0, 0, 0, ""},
      {0, 0, 0, 3, 3, 0, ""},  // scales without dimensions print nothing
      {1, -1, 0, 0, 0, 0, "byte / nanosec"},
      {0, -1, 1, 0, 0, 0, "count / nanosec"},
      {1, -2, 1, 0, 1, 1, "byte count x 10 / microsec^2"},
      {-1, 1, -1, 0, 5, -3, "hour / byte count x 10^-3"},
      {0, 1, -1, 0, 4, -8, "min / count x 10^-8"},
      {0, 0, 2, 0, 0, 3, "count x 10^3^2"},
      {-8, 7, 0, 4, 4, 0, "min^7 / Tbyte^8"},
      {1, 0, 0, 5, 0, 0, "Pbyte"},
      {1, 0, 0, 6, 0, 0, "Ebyte"},
      {1, 0, 0, 7, 0, 0, "Zbyte"},
      {1, 0, 0, 8, 0, 0, "Ybyte"},
      {1, 0, 0, 9, 0, 0, "space-9"},
      {0, 1, 0, 0, 0, 0, "nanosec"},
      {0, 1, 0, 0, 1, 0, "microsec"},
      {0, 1, 0, 0, 5, 0, "hour"},
      {0, 1, 0, 0, 6, 0, "time-6"},
      {0, 1, 0, 0, 15, 0, "time-15"},
  };
  for (const Case& c : cases) {
    const PmUnits u = Units(c.dim_space, c.dim_time, c.dim_count, c.scale_space,
                            c.scale_time, c.scale_count);
    EXPECT_EQ(UnitsToString(u), c.text)
        << "{" << c.dim_space << ", " << c.dim_time << ", " << c.dim_count
        << ", " << c.scale_space << ", " << c.scale_time << ", "
        << c.scale_count << "}";
    // The same through the word, as readers see it.
    EXPECT_EQ(UnitsToString(UnitsFromWord(UnitsToWord(u))), c.text);
  }
}

TEST(PmUnitsTest, PadDoesNotChangeTheText) {
  PmUnits u = Units(1, -1, 0, 1, 3, 0);
  u.pad = 0xab;
  EXPECT_EQ(UnitsToString(u), "Kbyte / sec");
}

}  // namespace
}  // namespace mmvlog::format

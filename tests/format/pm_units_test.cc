// Tests of //format:pm_units: the pmUnits word layout, the text form and
// counters' rate units. The expected strings were printed by PCP's own
// pmUnitsStr(3) for the same fields, 7.2.0 (UnitsToString) and 6.0.3
// (UnitsToStringPcp6); tests/pcp/pm_units_oracle_test.py compares both over
// many words.
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
  EXPECT_EQ(u.extra_unit, -1);  // signed 5 bits
  EXPECT_EQ(u.extra_scale, 7);  // unsigned 3 bits
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
      {3, 5, true, &PmUnits::extra_unit},
      {0, 3, false, &PmUnits::extra_scale},
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
  u.extra_unit = 33;  // 0x21 -> 1
  u.extra_scale = 9;  // -> 1
  EXPECT_EQ(UnitsToWord(u), 0x1000f009u);
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
      {0, 0, 0, 0, 0, 6, "count x 10^6"},  // 6.0.3: "x 10^6" (below)
      {0, 0, 0, 0, 0, 1, "count x 10"},
      {0, 0, 0, 0, 0, -2, "count x 10^-2"},
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
    // PCP 6.0.3 prints the same, but for a count scale with no dimension.
    if (c.dim_space || c.dim_time || c.dim_count || !c.scale_count) {
      EXPECT_EQ(UnitsToStringPcp6(u), c.text);
    }
  }
}

TEST(PmUnitsTest, Pcp6SaysXTenForACountScaleWithNoDimension) {
  EXPECT_EQ(UnitsToStringPcp6(Units(0, 0, 0, 0, 0, 6)), "x 10^6");
  EXPECT_EQ(UnitsToStringPcp6(Units(0, 0, 0, 0, 0, 1)), "x 10");
  EXPECT_EQ(UnitsToStringPcp6(Units(0, 0, 0, 0, 0, -2)), "x 10^-2");
}

// PCP 7.2's extra units, as its pmUnitsStr prints them (the words are the
// issue's and PCP QA's archive of extra units, tests/testdata/extra.*).
TEST(PmUnitsTest, ExtraUnitsText) {
  struct Case {
    uint32_t word;
    const char* text;
  };
  const Case cases[] = {
      {0x9, "temperature (C)"},
      {0xa, "temperature (F)"},
      {0xb, "temperature (K)"},
      {0x11, "voltage (V)"},
      {0x12, "voltage (mV)"},
      {0x13, "voltage (uV)"},
      {0x19, "current (A)"},
      {0x1a, "current (mA)"},
      {0x1b, "current (uA)"},
      {0x21, "power (kW)"},
      {0x22, "power (W)"},
      {0x23, "power (mW)"},
      {0x24, "power (uW)"},
      {0x1005022, "power (W) hour"},  // energy: Wh
      {0x1f003022, "power (W) byte / sec"},
      {0xf0030f9, "/ temperature (C) sec"},  // extraUnit -1: a denominator
      {0xf0030b9, "/ extra-9 sec"},            // unknown: extraUnit -9
      {0x29, "extra-5"},
      {0x8, "temperature (scale-"},  // libpcp's 20-byte buffer cuts
      {0xd, "temperature (scale-"},  // "temperature (scale-5)"
      {0x15, "voltage (scale-5)"},
      {0x25, "power (scale-5)"},
      {0x7, ""},  // a scale without a unit prints nothing
      {0x100009, "temperature (C) count"},
      {0x609, "temperature (C)"},  // a count scale is shown only alone
      {0x600, "count x 10^6"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(UnitsToString(UnitsFromWord(c.word)), c.text) << std::hex << c.word;
  }
  // PCP 6.0.3 does not know them: the pad byte is ignored.
  EXPECT_EQ(UnitsToStringPcp6(UnitsFromWord(0x9)), "");
  EXPECT_EQ(UnitsToStringPcp6(UnitsFromWord(0x1005022)), "hour");
}

TEST(PmUnitsTest, ExtraUnitsValid) {
  for (uint32_t w : {0x0u, 0x9u, 0xbu, 0x13u, 0x1bu, 0x21u, 0x24u, 0x1005022u}) {
    EXPECT_TRUE(ExtraUnitsValid(UnitsFromWord(w))) << std::hex << w;
  }
  // A scale without a unit, scale 0, a scale past the unit's last, an
  // unknown unit, a negative unit (pmapi.h: __pmCheckDesc refuses it).
  for (uint32_t w : {0x1u, 0x8u, 0xcu, 0x14u, 0x25u, 0x29u, 0xf9u}) {
    EXPECT_FALSE(ExtraUnitsValid(UnitsFromWord(w))) << std::hex << w;
  }
}

TEST(PmUnitsTest, CounterRatesAsPcpConvertsThem) {
  struct Case {
    uint32_t word;
    const char* rate;
    double multiplier;
  };
  const Case cases[] = {
      {0x00100000, "count / sec", 1},                 // count
      {0x10000000, "byte / sec", 1},                  // byte
      {0x01002000, "time utilisation", 0.001},        // millisec
      {0x01001000, "time utilisation", 0.000001},     // microsec
      {0x01003000, "time utilisation", 1},            // sec
      {0x01004000, "time utilisation", 60},           // min
      {0x01005022, "power (W)", 3600},                // power (W) hour
      {0x01003009, "temperature (C)", 1},             // temperature (C) sec
      {0x00000022, "power (W) / sec", 1},             // power (W)
      {0x1f013000, "Kbyte / sec^2", 1},               // Kbyte / sec
      {0x00000000, "/ sec", 1},                       // none
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(UnitsToString(UnitsFromWord(c.word)));
    EXPECT_EQ(RateUnitsToString(UnitsFromWord(c.word)), c.rate);
    EXPECT_DOUBLE_EQ(RateOfCounter(UnitsFromWord(c.word)).multiplier, c.multiplier);
  }
  EXPECT_EQ(RateOfCounter(UnitsFromWord(0x01005022)).units, UnitsFromWord(0x22));
}

}  // namespace
}  // namespace mmvlog::format

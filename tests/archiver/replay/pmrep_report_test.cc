// PmrepNumber's conversions at the edges of libpcp's bounds (pmExtractValue:
// a double above (double)LLONG_MAX or (double)ULLONG_MAX is truncated to
// no value; exactly those bounds reach the cast, as x86-64 makes it).
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>

#include "archiver/replay/pmrep_report.h"
#include "archiver/replay/row.h"
#include "archiver/replay/value.h"
#include "format/archive/archive_types.h"
#include "gtest/gtest.h"

namespace mmvlog::archiver {
namespace {

std::optional<double> Convert(double v, int32_t type) {
  Row row;
  row.Clear(1);
  row.kinds[0] = kDouble;
  row.bits[0] = std::bit_cast<uint64_t>(v);
  PmrepColumn col;
  col.type = type;
  return PmrepNumber(col, row, nullptr, 1);
}

TEST(PmrepNumber, SixtyFourBitBoundsAsLibpcpConvertsThem) {
  EXPECT_EQ(Convert(0x1p63, format::kType64), -0x1p63);  // cvttsd2si's "indefinite"
  EXPECT_EQ(Convert(-0x1p63, format::kType64), -0x1p63);
  EXPECT_EQ(Convert(0x1p62, format::kType64), 0x1p62);
  EXPECT_EQ(Convert(-1.5, format::kType64), -1);
  EXPECT_EQ(Convert(0x1p63 + 2048, format::kType64), std::nullopt);
  EXPECT_EQ(Convert(-0x1p63 - 2048, format::kType64), std::nullopt);
  EXPECT_EQ(Convert(0x1p64, format::kTypeU64), 0);
  EXPECT_EQ(Convert(0x1p63, format::kTypeU64), 0x1p63);
  EXPECT_EQ(Convert(0x1p64 + 4096, format::kTypeU64), std::nullopt);
  EXPECT_EQ(Convert(-1, format::kTypeU64), std::nullopt);
  EXPECT_EQ(Convert(2147483647.5, format::kType32), std::nullopt);
  EXPECT_EQ(Convert(-2147483648.0, format::kType32), -2147483648.0);
  EXPECT_EQ(Convert(4294967295.0, format::kTypeU32), 4294967295.0);
}

// The seconds between two rows as pmtimespecSub gives them: seconds and
// nanoseconds apart summed in long double (PCP QA's omen.client: 4.999806
// where a sum in double gave 4.9998059999999995).
TEST(PmrepSeconds, AsPmtimespecSub) {
  EXPECT_EQ(PmrepSeconds({983339359, 31025000}, {983339364, 30831000}), 4.999806);
  EXPECT_EQ(PmrepSeconds({10, 0}, {12, 500000000}), 2.5);
  EXPECT_EQ(PmrepSeconds({10, 750000000}, {12, 250000000}), 1.5);
}

// The CSV's numbers are printf's "%.*f" (pmrep formats them so), written
// without printf: the same bytes for random doubles of every size, halves
// that round to even, and every precision a set may ask for.
TEST(PmrepNumberText, AsPrintfFixedForEveryDoubleAndPrecision) {
  std::mt19937_64 rng(7);
  PmrepColumn col;
  col.type = format::kTypeDouble;
  char want[1024];
  for (int i = 0; i < 200000; ++i) {
    double v = 0;
    switch (i % 4) {
      case 0: v = std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 80) - 60); break;
      case 1: v = static_cast<double>(rng() % 100000) / 1000.0; break;
      case 2: v = static_cast<double>(rng() % 2000000) / 8.0 * ((rng() & 1) != 0 ? -1 : 1); break;
      default: {
        const uint64_t u = rng();
        std::memcpy(&v, &u, sizeof v);
        if (std::isnan(v)) continue;
      }
    }
    col.precision = static_cast<int>(rng() % 10);
    if (i % 1000 == 0) col.precision = 40;
    std::snprintf(want, sizeof want, "%.*f", col.precision, v);
    std::string expect = want;
    if (std::isinf(v)) expect = v > 0 ? "inf" : "-inf";
    ASSERT_EQ(PmrepNumberText(col, v), expect) << v << " at precision " << col.precision;
  }
}

}  // namespace
}  // namespace mmvlog::archiver

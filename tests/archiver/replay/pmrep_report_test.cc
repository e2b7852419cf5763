// PmrepNumber's conversions at the edges of libpcp's bounds (pmExtractValue:
// a double above (double)LLONG_MAX or (double)ULLONG_MAX is truncated to
// no value; exactly those bounds reach the cast, as x86-64 makes it).
#include <bit>
#include <cstdint>
#include <optional>

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

}  // namespace
}  // namespace mmvlog::archiver

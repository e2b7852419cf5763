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
#include <vector>

#include "archiver/replay/columns.h"
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

// PmrepCells reads each column's conversion from the first column that
// shares it (packed, for speed): every cell, and its text, as the column's
// own PmrepNumber and AppendPmrepNumber give them, over random columns of
// a few metrics whose conversions are now shared, now each their own.
TEST(PmrepCells, EveryCellAsItsOwnColumnConvertsAndPrintsIt) {
  std::mt19937_64 rng(31);
  for (int round = 0; round < 50; ++round) {
    std::vector<ReplayMetric> metrics(3);
    std::vector<Column> set_columns;
    std::vector<PmrepColumn> columns;
    const int32_t types[] = {format::kType32, format::kTypeU32, format::kType64,
                             format::kTypeU64, format::kTypeFloat, format::kTypeDouble};
    for (size_t m = 0; m < metrics.size(); ++m) {
      metrics[m].name = "m" + std::to_string(m);
      metrics[m].desc.pmid = static_cast<uint32_t>(m + 1);
      metrics[m].desc.indom = m == 0 ? format::kIndomNull : 7;
      const size_t n = m == 0 ? 1 : 1 + rng() % 6;
      for (size_t k = 0; k < n; ++k) {
        metrics[m].columns.push_back(set_columns.size());
        set_columns.push_back({metrics[m].desc.pmid, m == 0 ? -1 : static_cast<int32_t>(k), m,
                               m == 0 ? "" : "i" + std::to_string(k)});
        PmrepColumn c;
        c.column = set_columns.size() - 1;
        c.metric = m;
        // Few choices each: some columns share a conversion, some not.
        c.rate = rng() % 2;
        c.scale = rng() % 2 ? 1 : 0.001;
        c.multiplier = rng() % 3 ? 1 : 8;
        c.type = types[rng() % 6];
        c.limit = rng() % 4 ? 0 : (rng() % 2 ? 100 : -100);
        c.precision = static_cast<int>(rng() % 4);
        c.unscaled = rng() % 2;
        columns.push_back(c);
      }
    }
    const ColumnSet set = ColumnSet::Compose(metrics, set_columns, ColumnSet());
    PmrepCells cells(columns);
    Row rows[3];
    for (int r = 0; r < 3; ++r) {
      rows[r].Clear(set_columns.size());
      rows[r].time = {1700000000 + r, 0};
      for (size_t c = 0; c < set_columns.size(); ++c) {
        if (rng() % 8 == 0) continue;  // no value
        rows[r].kinds[c] = kUint;
        rows[r].bits[c] = rng() % 2 ? rng() % 1000 : rng();
      }
    }
    for (int r = 0; r < 3; ++r) {
      const std::vector<PmrepCell>& got = cells.Take(set, rows[r]);
      ASSERT_EQ(got.size(), columns.size());
      for (size_t i = 0; i < columns.size(); ++i) {
        const std::optional<double> want =
            PmrepNumber(columns[i], rows[r], r > 0 ? &rows[r - 1] : nullptr, 1);
        ASSERT_EQ(got[i].kind == PmrepCell::kNumber, want.has_value()) << round << " " << r << " " << i;
        if (!want) continue;
        EXPECT_EQ(std::bit_cast<uint64_t>(got[i].number), std::bit_cast<uint64_t>(*want));
        std::string mine, theirs;
        AppendPmrepNumber(cells.Format(i), got[i], &mine);
        AppendPmrepNumber(columns[i], got[i], &theirs);
        EXPECT_EQ(mine, theirs) << round << " " << r << " " << i;
      }
    }
  }
}

}  // namespace
}  // namespace mmvlog::archiver

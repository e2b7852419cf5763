// Tests of //cmd:replay_csv: AppendNumber must give exactly the bytes of the
// printf formatting replay used before it ("%.3f" trimmed, "%.6g" for large
// and tiny magnitudes) for every kind of double, exact ties included; and
// the CSV text of a small timeline, cell by cell.
#include "cmd/replay_csv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "archiver/replay/replay.h"
#include "format/archive_format.h"
#include "format/archive_meta.h"
#include "format/event_record.h"
#include "format/pm_units.h"

namespace mmvlog::cmd {
namespace {

// The formatting replay had, through printf.
std::string PrintfNumber(double v) {
  if (std::fabs(v) >= 1e15 || (v != 0 && std::fabs(v) < 1e-3)) return absl::StrFormat("%.6g", v);
  std::string s = absl::StrFormat("%.3f", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

void ExpectLikePrintf(double v) {
  ASSERT_EQ(NumberText(v), PrintfNumber(v))
      << absl::StrFormat("%.17g (bits %016x)", v, std::bit_cast<uint64_t>(v));
}

TEST(AppendNumber, SpecialValues) {
  for (double v : {0.0, -0.0, 1.0, -1.0, 0.001, -0.001, 0.0009999999, 0.0005, 0.0015, 0.0025,
                   1e15, 1e15 - 0.125, 999999999999999.9, 1e-300, 5e-324, 1e300,
                   std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN(),
                   -std::numeric_limits<double>::quiet_NaN(), 12.5, 3.0, 100.0, 1234.5678,
                   4503599627370495.5, 9007199254740993.0, 2251799813685248.0, 0.1, 0.2, 0.3}) {
    ExpectLikePrintf(v);
    ExpectLikePrintf(-v);
  }
}

TEST(AppendNumber, ExactTiesRoundAsPrintfDoes) {
  // Values whose exact binary value ends in 5 at the fourth decimal (k /
  // 2^n): printf rounds them half to even; so must we.
  for (int n = 1; n <= 12; ++n) {
    const double step = std::ldexp(1.0, -n);
    for (int k = 0; k < 5000; ++k) ExpectLikePrintf(k * step + 0.001 * (k % 3));
    for (int k = 0; k < 5000; ++k) ExpectLikePrintf(1e6 + k * step);
    for (int k = 0; k < 200; ++k) ExpectLikePrintf(1e12 + k * step);
  }
  for (int64_t k = 0; k < 200000; ++k) {
    ExpectLikePrintf(static_cast<double>(k) / 8000);  // k * 0.000125: many exact ties
    ExpectLikePrintf(static_cast<double>(k) / 1000 + 0.0005);
  }
}

TEST(AppendNumber, RatesAsCountersGiveThem) {
  // delta / seconds, as replay computes rates, for many deltas and
  // intervals (also sub-second ones recorded with microseconds).
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1'000'000; ++i) {
    const double delta = static_cast<double>(rng() % 10'000'000);
    const double dt = static_cast<double>(rng() % 100'000'000 + 1) / 1e6;
    ExpectLikePrintf(delta / dt);
  }
}

TEST(AppendNumber, RandomDoublesOfEveryMagnitude) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> exponent(-8, 17);
  for (int i = 0; i < 2'000'000; ++i) {
    const double v = std::pow(10.0, exponent(rng)) * (rng() % 2 ? 1 : -1);
    ExpectLikePrintf(v);
    // Near boundaries: the neighbours of the value.
    ExpectLikePrintf(std::nextafter(v, 0.0));
  }
  for (int i = 0; i < 1'000'000; ++i) {
    ExpectLikePrintf(std::bit_cast<double>(rng()));  // any bit pattern
  }
}

TEST(AppendCsvField, QuotesOnlyWhatNeedsIt) {
  auto field = [](absl::string_view s) {
    std::string out;
    AppendCsvField(s, &out);
    return out;
  };
  EXPECT_EQ(field("plain text"), "plain text");
  EXPECT_EQ(field(""), "");
  EXPECT_EQ(field("a,b"), "\"a,b\"");
  EXPECT_EQ(field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(field("two\nlines"), "\"two\nlines\"");
}

// A timeline of three columns (a U64 counter with two instances, a string
// and a double gauge) and four rows, a mark among them.
archiver::Timeline SmallTimeline() {
  archiver::Timeline t;
  format::Desc counter;
  counter.pmid = 1;
  counter.type = format::kTypeU64;
  counter.sem = format::kSemCounter;
  counter.units = format::UnitsToWord(format::PmUnits{0, 0, 1, 0, 0, 0});
  counter.names = {"app.requests"};
  format::Desc text;
  text.pmid = 2;
  text.type = format::kTypeString;
  text.sem = format::kSemDiscrete;
  text.names = {"app.version"};
  format::Desc gauge;
  gauge.pmid = 3;
  gauge.type = format::kTypeDouble;
  gauge.sem = format::kSemInstant;
  gauge.names = {"app.load"};
  t.descs = {counter, text, gauge};
  t.desc_of_pmid = {{1, 0}, {2, 1}, {3, 2}};
  auto column = [&](uint32_t pmid, int32_t inst, std::string instance) {
    archiver::Column c;
    c.pmid = pmid;
    c.inst = inst;
    c.metric = t.descs[t.desc_of_pmid[pmid]].names[0];
    c.instance = std::move(instance);
    c.desc = t.desc_of_pmid[pmid];
    return c;
  };
  t.AddRow({1000, 0}, false);
  t.AddColumn(column(1, 0, "a"));
  t.AddColumn(column(1, 1, "b,c"));
  t.AddColumn(column(2, -1, ""));
  archiver::StoredValue v;
  v.kind = archiver::StoredValue::kUint;
  v.u = 100;
  t.Set(0, 0, v);
  v.u = 7;
  t.Set(0, 1, v);
  archiver::StoredValue s;
  s.kind = archiver::StoredValue::kString;
  s.s = "1.0, \"beta\"";
  t.Set(0, 2, s);
  t.AddRow({1002, 500'000'000}, false);  // 2.5 s later
  v.u = 105;
  t.Set(1, 0, v);
  v.u = 3;  // a reset: no rate
  t.Set(1, 1, v);
  t.AddColumn(column(3, -1, ""));
  archiver::StoredValue d;
  d.kind = archiver::StoredValue::kDouble;
  d.d = 0.25;
  t.Set(1, 3, d);
  t.AddRow({1003, 0}, true);  // a mark
  t.AddRow({1004, 0}, false);
  v.u = 200;
  t.Set(3, 0, v);  // no rate across the mark
  d.d = 1e20;
  t.Set(3, 3, d);
  return t;
}

TEST(Csv, HeaderAndRowsCellByCell) {
  const archiver::Timeline t = SmallTimeline();
  EXPECT_EQ(CsvHeader(t, false),
            "Time,app.requests[a] (count / sec),\"app.requests[b,c] (count / sec)\","
            "app.version,app.load");
  EXPECT_EQ(CsvHeader(t, true),
            "Time,app.requests[a] (count),\"app.requests[b,c] (count)\",app.version,app.load");
  archiver::RowNumbers rates(t, false);
  std::string out;
  for (size_t r : {0, 1, 3}) AppendCsvRow(t, r, false, "T", rates, &out);
  EXPECT_EQ(out,
            "T,,,\"1.0, \"\"beta\"\"\",\n"
            "T,2,,,0.25\n"
            "T,,,,1e+20\n");
  archiver::RowNumbers raw(t, true);
  out.clear();
  for (size_t r : {0, 1, 3}) AppendCsvRow(t, r, true, "T", raw, &out);
  EXPECT_EQ(out,
            "T,100,7,\"1.0, \"\"beta\"\"\",\n"
            "T,105,3,,0.25\n"
            "T,200,,,1e+20\n");
}

}  // namespace
}  // namespace mmvlog::cmd

namespace mmvlog::cmd {
namespace {

// Event arrays and aggregates: the dump's text (pmdumplog -a's, checked
// against it by //tests/pcp:event_record_oracle_test) and the JSON for
// scripts, from one small array.
std::string EventBytes(bool highres) {
  format::EventArray a;
  format::EventRecord e;
  e.timestamp = {1700000000, 123456000};
  e.flags = format::kEventFlagPoint;
  e.params = {{format::PmidBuild(70, 2, 7), format::kTypeString, "fetch"},
              {format::PmidBuild(70, 2, 9), format::kTypeAggregate, "ab"}};
  a.records.push_back(e);
  a.records.push_back({{1700000001, 0}, format::kEventFlagMissed, 3, {}});
  std::vector<uint8_t> b;
  format::EncodeEventArray(a, highres, &b);
  return std::string(b.begin(), b.end());
}

TEST(DecodedValue, EventArrayAsPmdumplogPrintsIt) {
  archiver::Timeline t;
  t.param_names[format::PmidBuild(70, 2, 7)] = "test.param.string";
  EXPECT_EQ(DecodedValueText(t, format::kTypeEvent, EventBytes(false), absl::UTCTimeZone()),
            "2 (and 3 missed) event records\n"
            "        --- event record [0] timestamp 2023-11-14 22:13:20.123456 flags 0x1 (point) ---\n"
            "        70.2.7 (test.param.string) value \"fetch\"\n"
            "        70.2.9 (<noname>) value \"ab\" [6162]\n"
            "        --- event record [1] timestamp 2023-11-14 22:13:21.000000 flags 0x80000000 "
            "(missed) ---\n"
            "        ==> 3 missed event records");
  EXPECT_THAT(DecodedValueText(t, format::kTypeHighresEvent, EventBytes(true),
                               absl::UTCTimeZone()),
              ::testing::HasSubstr("timestamp 2023-11-14 22:13:20.123456000 flags"));
  EXPECT_EQ(DecodedValueText(t, format::kTypeAggregate, "ab", absl::UTCTimeZone()),
            "value \"ab\" [6162]");
}

TEST(DecodedValue, EventArrayAsJson) {
  archiver::Timeline t;
  t.param_names[format::PmidBuild(70, 2, 7)] = "test.param.string";
  EXPECT_EQ(DecodedValueJson(t, format::kTypeEvent, EventBytes(false)),
            "[{\"timestamp\":1700000000.123456000,\"flags\":1,\"params\":["
            "{\"pmid\":\"70.2.7\",\"name\":\"test.param.string\",\"value\":\"fetch\"},"
            "{\"pmid\":\"70.2.9\",\"value\":\"6162\"}]},"
            "{\"timestamp\":1700000001.000000000,\"flags\":2147483648,\"missed\":3,\"params\":[]}]");
  EXPECT_EQ(DecodedValueJson(t, format::kTypeAggregateStatic, std::string("\x00\xff", 2)),
            "\"00ff\"");
  EXPECT_TRUE(IsDecodedType(format::kTypeHighresEvent));
  EXPECT_FALSE(IsDecodedType(format::kTypeString));
}

// A damaged array is a message naming the offset (from the start of the
// pmValueBlock) and what is wrong; so is every prefix of a good one.
TEST(DecodedValue, DamagedEventArrayIsAMessage) {
  archiver::Timeline t;
  const std::string bytes = EventBytes(false);
  EXPECT_EQ(DecodedValueText(t, format::kTypeEvent, bytes.substr(0, 30), absl::UTCTimeZone()),
            "damaged event array (offsets in its pmValueBlock): offset 4: event array: 2 records "
            "do not fit in 26 bytes");
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THAT(DecodedValueText(t, format::kTypeEvent, bytes.substr(0, n), absl::UTCTimeZone()),
                ::testing::StartsWith("damaged event array"));
    EXPECT_THAT(DecodedValueJson(t, format::kTypeEvent, bytes.substr(0, n)),
                ::testing::StartsWith("{\"error\":\""));
  }
}

}  // namespace
}  // namespace mmvlog::cmd

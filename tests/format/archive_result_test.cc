// Tests of //format/archive:archive_result: golden bytes (laid out as PCP 6.0.3
// writes them, see archive_format.h), round trips for every value type in
// both versions, a seeded random sweep, decoding errors by byte surgery, and
// DecodeResultInto reusing one DecodedResult across records of every shape,
// truncation and single-byte corruption.
#include "format/archive/archive_result.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_framing.h"
#include "format/endian.h"
#include "tests/format/archive_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

using ::mmvlog::format::testing::Bytes;
using ::mmvlog::format::testing::HexDump;
using ::mmvlog::format::testing::IsDataLossAt;
using ::mmvlog::testing::IsOk;
using ::mmvlog::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int32_t kErrValue = -12345 - 6;  // PM_ERR_VALUE

uint32_t Pmid(uint32_t item) { return PmidBuild(245, 0, item); }

ResultValue I64(int64_t v, int32_t inst = kInNull) {
  ResultValue r;
  r.inst = inst;
  r.i64 = v;
  return r;
}
ResultValue U64(uint64_t v, int32_t inst = kInNull) {
  ResultValue r;
  r.inst = inst;
  r.u64 = v;
  return r;
}
ResultValue F64(double v, int32_t inst = kInNull) {
  ResultValue r;
  r.inst = inst;
  r.f64 = v;
  return r;
}
ResultValue Str(std::string v, int32_t inst = kInNull) {
  ResultValue r;
  r.inst = inst;
  r.bytes = std::move(v);
  return r;
}

ValueSet Set(uint32_t pmid, int32_t type, std::vector<ResultValue> values) {
  ValueSet s;
  s.pmid = pmid;
  s.type = type;
  s.values = std::move(values);
  return s;
}
ValueSet ErrorSet(uint32_t pmid, int32_t type, int32_t error) {
  ValueSet s;
  s.pmid = pmid;
  s.type = type;
  s.error = error;
  return s;
}

// The result of the first record in a LOGIMPORT 6.0.3 archive written with
// pmiPutValue (so PCP chose every value's encoding).
Result SevenTypes() {
  Result r;
  r.timestamp = {1700000000, 250'000'000};
  r.sets = {
      Set(Pmid(0), kType32, {I64(-5)}),
      Set(Pmid(1), kTypeU32, {U64(4000000000)}),
      Set(Pmid(2), kType64, {I64(-123456789012)}),
      Set(Pmid(3), kTypeU64, {U64(18446744073709551615u)}),
      Set(Pmid(4), kTypeFloat, {F64(1.5)}),
      Set(Pmid(5), kTypeDouble, {F64(2.25)}),
      Set(Pmid(6), kTypeString, {Str("hello")}),
  };
  return r;
}

// The seven value sets' bytes, as PCP wrote them, given the first block's
// DPTR word offset (41 in v2, 42 in v3: the v3 header is 4 bytes longer).
Bytes& SevenTypesSets(Bytes& b, uint32_t w) {
  return b
      .Be32(0x3d400000).Be32(1).Be32(0)   // 245.0.0: numval 1, INSITU
      .Be32(0xffffffff).Be32(0xfffffffb)  //   inst PM_IN_NULL, -5
      .Be32(0x3d400001).Be32(1).Be32(0)   // 245.0.1: numval 1, INSITU
      .Be32(0xffffffff).Be32(0xee6b2800)  //   inst, 4000000000
      .Be32(0x3d400002).Be32(1).Be32(1)   // 245.0.2: numval 1, DPTR
      .Be32(0xffffffff).Be32(w)           //   inst, block at word w
      .Be32(0x3d400003).Be32(1).Be32(1)   // 245.0.3 U64: DPTR
      .Be32(0xffffffff).Be32(w + 3)       //   after a 12-byte block
      .Be32(0x3d400004).Be32(1).Be32(1)   // 245.0.4 FLOAT: DPTR, not INSITU
      .Be32(0xffffffff).Be32(w + 6)
      .Be32(0x3d400005).Be32(1).Be32(1)   // 245.0.5 DOUBLE: DPTR
      .Be32(0xffffffff).Be32(w + 8)       //   after the 8-byte float block
      .Be32(0x3d400006).Be32(1).Be32(1)   // 245.0.6 STRING: DPTR
      .Be32(0xffffffff).Be32(w + 11)
      .Be32(0x0200000c).Be64(0xffffffe34166e5ec)  // block: type 64, len 12
      .Be32(0x0300000c).Be64(0xffffffffffffffff)  // block: type U64, len 12
      .Be32(0x04000008).Be32(0x3fc00000)          // block: FLOAT, len 8, 1.5f
      .Be32(0x0500000c).Be64(0x4002000000000000)  // block: DOUBLE, 2.25
      .Be32(0x0600000a).Raw("hello").U8(0)        // block: STRING, len 4+6
      .Raw("~~");                                 //   padding is '~'
}

TEST(EncodeResult, V2GoldenBytesMatchPcp) {
  std::vector<uint8_t> out;
  EncodeResult(2, SevenTypes(), &out);
  Bytes want;
  want.Be32(216)         // record length
      .Be32(1700000000)  // seconds
      .Be32(250000)      // microseconds
      .Be32(7);          // numpmid
  SevenTypesSets(want, 41)  // first block at record byte 156: (156 + 8) / 4
      .Be32(216);           // record length again
  EXPECT_EQ(HexDump(out), HexDump(want));
  EXPECT_EQ(EncodedResultSize(2, SevenTypes()), 216u);
}

TEST(EncodeResult, V3GoldenBytesMatchPcp) {
  std::vector<uint8_t> out;
  EncodeResult(3, SevenTypes(), &out);
  Bytes want;
  want.Be32(220)         // record length
      .Be32(1700000000).Be32(0)  // seconds: low word, high word
      .Be32(250000000)   // nanoseconds
      .Be32(7);          // numpmid
  SevenTypesSets(want, 42)  // first block at record byte 160: (160 + 8) / 4
      .Be32(220);           // record length again
  EXPECT_EQ(HexDump(out), HexDump(want));
  EXPECT_EQ(EncodedResultSize(3, SevenTypes()), 220u);
}

// A record PCP wrote from a hand-built pmResult (pmiPutResult).
Result NoValueSets() {
  Result r;
  r.timestamp = {1700000001, 5000};
  r.sets = {
      Set(Pmid(0), kTypeAggregate, {Str("\x01\x02\x03")}),
      ErrorSet(Pmid(1), kType32, kErrValue),
      Set(Pmid(2), kType32, {}),
      Set(Pmid(3), kTypeAggregate, {Str("")}),
      Set(Pmid(4), kTypeString, {Str("")}),
  };
  return r;
}

TEST(EncodeResult, ErrorAndEmptySetsHaveNoValfmtGoldenBytes) {
  std::vector<uint8_t> out;
  EncodeResult(3, NoValueSets(), &out);
  Bytes want;
  want.Be32(120)                         // record length
      .Be32(1700000001).Be32(0)          // seconds: low, high word
      .Be32(5000)                        // nanoseconds
      .Be32(5)                           // numpmid
      .Be32(0x3d400000).Be32(1).Be32(1)  // 245.0.0: 1 value, DPTR
      .Be32(0xffffffff).Be32(26)         //   block at byte 96: (96+8)/4
      .Be32(0x3d400001).Be32(0xffffcfc1) // 245.0.1: PM_ERR_VALUE, no valfmt
      .Be32(0x3d400002).Be32(0)          // 245.0.2: numval 0, no valfmt
      .Be32(0x3d400003).Be32(1).Be32(1)  // 245.0.3: 1 value, DPTR
      .Be32(0xffffffff).Be32(28)
      .Be32(0x3d400004).Be32(1).Be32(1)  // 245.0.4: 1 value, DPTR
      .Be32(0xffffffff).Be32(29)
      .Be32(0x07000007).Raw({1, 2, 3})   // AGGREGATE block, 3 bytes
      .Raw("~")                          //   padding
      .Be32(0x07000004)                  // AGGREGATE block, 0 bytes
      .Be32(0x06000005).U8(0)            // STRING "": just the NUL
      .Raw("~~~")                        //   padding
      .Be32(120);                        // record length again
  EXPECT_EQ(HexDump(out), HexDump(want));
}

TEST(EncodeResult, MarkRecordGoldenBytes) {
  Result mark;
  mark.timestamp = {1700000001, 1'005'000};
  std::vector<uint8_t> v2, v3;
  EncodeResult(2, mark, &v2);
  EncodeResult(3, mark, &v3);
  Bytes want2;
  want2.Be32(20)          // record length
      .Be32(1700000001)   // seconds
      .Be32(1005)         // microseconds
      .Be32(0)            // numpmid 0: <mark>
      .Be32(20);          // record length again
  Bytes want3;
  want3.Be32(24)            // record length
      .Be32(1700000001).Be32(0)  // seconds: low word, high word
      .Be32(1005000)        // nanoseconds
      .Be32(0)              // numpmid 0: <mark>
      .Be32(24);            // record length again
  EXPECT_EQ(HexDump(v2), HexDump(want2));
  EXPECT_EQ(HexDump(v3), HexDump(want3));
  EXPECT_EQ(v2.size(), kMarkRecordV2);
  EXPECT_EQ(v3.size(), kMarkRecordV3);
}

TEST(EncodeResult, V3SecondsBeyond32BitsGoldenBytes) {
  // LOGIMPORT 6.0.3 wrote exactly these bytes for a pmiPutResult at
  // 0x1'00000002.000007 s (pmdumplog: 2106-02-07 06:28:18.000007000).
  Result r;
  r.timestamp = {0x1'00000002, 7000};
  r.sets = {Set(Pmid(0), kType32, {I64(3)})};
  std::vector<uint8_t> out;
  EncodeResult(3, r, &out);
  Bytes want;
  want.Be32(44)                         // record length
      .Be32(2).Be32(1)                  // seconds: low word, then high word
      .Be32(7000)                       // nanoseconds
      .Be32(1)                          // numpmid
      .Be32(0x3d400000).Be32(1).Be32(0) // 245.0.0: 1 value, INSITU
      .Be32(0xffffffff).Be32(3)         //   PM_IN_NULL: 3
      .Be32(44);                        // record length again
  EXPECT_EQ(HexDump(out), HexDump(want));
  absl::StatusOr<DecodedResult> d = DecodeResult(
      3, std::span<const uint8_t>(out).subspan(4, out.size() - 8), 0);
  ASSERT_OK(d);
  EXPECT_EQ(d->timestamp, r.timestamp);
}

TEST(DecodeResultTimestamp, ReadsJustTheTimestampOfBothVersions) {
  for (int version : {2, 3}) {
    Result r;
    r.timestamp = {version == 2 ? 1700000001 : 0x1'00000002, 7'000'000};
    r.sets = {Set(Pmid(0), kType32, {I64(3)})};
    std::vector<uint8_t> out;
    EncodeResult(version, r, &out);
    const std::span<const uint8_t> payload =
        std::span<const uint8_t>(out).subspan(4, out.size() - 8);
    absl::StatusOr<Timestamp> t = DecodeResultTimestamp(version, payload, 100);
    ASSERT_OK(t);
    absl::StatusOr<DecodedResult> d = DecodeResult(version, payload, 100);
    ASSERT_OK(d);
    EXPECT_EQ(*t, d->timestamp) << version;
    // Cut inside the timestamp: DataLoss, never a read past the end.
    for (size_t n = 0; n < (version == 2 ? 8u : 12u); ++n) {
      EXPECT_THAT(DecodeResultTimestamp(version, payload.first(n), 100),
                  StatusIs(absl::StatusCode::kDataLoss)) << version << " " << n;
    }
  }
  Bytes b;
  b.Be32(1700000001).Be32(0).Be32(1'000'000'000).Be32(0);  // v3 nsec out of range
  EXPECT_THAT(DecodeResultTimestamp(3, b, 0), IsDataLossAt(12, "nanoseconds"));
  EXPECT_THAT(DecodeResultTimestamp(4, b, 0),
              StatusIs(absl::StatusCode::kUnimplemented));
}

TEST(EncodeResult, InstancesAndPaddingGoldenBytes) {
  Result r;
  r.timestamp = {-1, 999'999'999};  // v2: 999999 us
  r.sets = {Set(7, kTypeString, {Str("abc", 0), Str("abcd", 1), Str("x", 2)}),
            Set(8, kTypeU32, {U64(1, 5), U64(2, 6)})};
  std::vector<uint8_t> out = {0xaa, 0xbb};  // appended, earlier bytes kept
  EncodeResult(2, r, &out);
  Bytes want;
  want.Raw({0xaa, 0xbb})
      .Be32(112)                  // record length
      .Be32(0xffffffff)           // seconds -1
      .Be32(999999)               // microseconds
      .Be32(2)                    // numpmid
      .Be32(7).Be32(3).Be32(1)    // pmid 7: 3 values, DPTR
      .Be32(0).Be32(22)           //   inst 0 at byte 80: (80+8)/4
      .Be32(1).Be32(24)           //   inst 1 at byte 88
      .Be32(2).Be32(27)           //   inst 2 at byte 100
      .Be32(8).Be32(2).Be32(0)    // pmid 8: 2 values, INSITU
      .Be32(5).Be32(1)            //   inst 5: 1
      .Be32(6).Be32(2)            //   inst 6: 2
      .Be32(0x06000008).Raw("abc").U8(0)      // 8 bytes: no padding
      .Be32(0x06000009).Raw("abcd").U8(0).Raw("~~~")
      .Be32(0x06000006).Raw("x").U8(0).Raw("~~")
      .Be32(112);                 // record length again
  EXPECT_EQ(HexDump(out), HexDump(want));
}

// Decodes the single framed record in `framed` and converts each set back
// with the types of `like`.
absl::StatusOr<Result> DecodeAs(int version, std::span<const uint8_t> framed,
                                const Result& like) {
  RecordScanner scanner(framed, 0);
  absl::StatusOr<std::optional<Frame>> frame = scanner.Next();
  if (!frame.ok()) return frame.status();
  EXPECT_TRUE(frame->has_value());
  EXPECT_EQ((*frame)->size(), framed.size());
  absl::StatusOr<DecodedResult> d =
      DecodeResult(version, (*frame)->payload, (*frame)->offset);
  if (!d.ok()) return d.status();
  Result out;
  out.timestamp = d->timestamp;
  if (d->sets.size() != like.sets.size()) {
    return absl::InternalError("set count differs");
  }
  for (size_t i = 0; i < d->sets.size(); ++i) {
    absl::StatusOr<ValueSet> s = ValueSetFromDecoded(d->sets[i], like.sets[i].type);
    if (!s.ok()) return s.status();
    out.sets.push_back(*std::move(s));
  }
  return out;
}

void ExpectRoundTrip(int version, const Result& r) {
  std::vector<uint8_t> out;
  EncodeResult(version, r, &out);
  ASSERT_EQ(out.size(), EncodedResultSize(version, r));
  ASSERT_EQ(out.size() % 4, 0u);
  absl::StatusOr<Result> back = DecodeAs(version, out, r);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(*back, r) << HexDump(out);
}

Result EveryType() {
  Result r;
  r.timestamp = {1234567890, 123'456'000};
  r.sets = {
      Set(1, kType32, {I64(INT32_MIN, 0), I64(INT32_MAX, 1), I64(0, 2)}),
      Set(2, kTypeU32, {U64(0), }),
      Set(3, kTypeU32, {U64(UINT32_MAX, 3)}),
      Set(4, kType64, {I64(INT64_MIN, 0), I64(INT64_MAX, 1), I64(-1, 2)}),
      Set(5, kTypeU64, {U64(0, 9), U64(UINT64_MAX, 10)}),
      Set(6, kTypeFloat, {F64(-0.0), F64(static_cast<float>(0.1), 1),
                          F64(std::numeric_limits<float>::infinity(), 2),
                          F64(std::numeric_limits<float>::denorm_min(), 3)}),
      Set(7, kTypeDouble, {F64(std::numeric_limits<double>::max()),
                           F64(-std::numeric_limits<double>::infinity(), 1),
                           F64(1e-310, 2)}),
      Set(8, kTypeString, {Str(""), Str("a", 1), Str("ab", 2), Str("abc", 3),
                           Str("abcd", 4), Str(std::string(1000, 's'), 5)}),
      Set(9, kTypeAggregate, {Str(""), Str(std::string("\0\0\xff", 3), 1),
                              Str(std::string(4, '\0'), 2)}),
      Set(10, kTypeEvent, {Str(std::string(12, '\x07'))}),
      ErrorSet(11, kTypeDouble, kErrValue),
      ErrorSet(12, kTypeString, std::numeric_limits<int32_t>::min()),
      Set(13, kTypeString, {}),
      Set(14, kType32, {}),
  };
  return r;
}

TEST(Result, RoundTripsEveryTypeBothVersions) {
  ExpectRoundTrip(2, EveryType());
  ExpectRoundTrip(3, EveryType());
}

TEST(Result, RoundTripsMarkRecords) {
  for (int version : {2, 3}) {
    Result mark;
    mark.timestamp = {version == 2 ? INT32_MIN : INT64_MIN, 0};
    ExpectRoundTrip(version, mark);
    std::vector<uint8_t> out;
    EncodeResult(version, mark, &out);
    absl::StatusOr<DecodedResult> d =
        DecodeResult(version, std::span<const uint8_t>(out).subspan(4, out.size() - 8), 0);
    ASSERT_OK(d);
    EXPECT_TRUE(d->is_mark());
  }
}

TEST(Result, RoundTripsManyValues) {
  Result r;
  r.timestamp = {1, 2000};
  ValueSet strings = Set(1, kTypeString, {});
  ValueSet ints = Set(2, kType32, {});
  for (int i = 0; i < 5000; ++i) {
    strings.values.push_back(Str(std::string(i % 13, 'a' + i % 26), i));
    ints.values.push_back(I64(i * 7 - 9, i));
  }
  r.sets = {strings, ints};
  for (int pmid = 3; pmid < 300; ++pmid) r.sets.push_back(Set(pmid, kTypeU64, {U64(pmid)}));
  ExpectRoundTrip(2, r);
  ExpectRoundTrip(3, r);
}

TEST(Result, V2KeepsMicroseconds) {
  Result r = SevenTypes();
  r.timestamp.nsec = 250'000'999;
  std::vector<uint8_t> out;
  EncodeResult(2, r, &out);
  absl::StatusOr<Result> back = DecodeAs(2, out, r);
  ASSERT_OK(back);
  EXPECT_EQ(back->timestamp, (Timestamp{1700000000, 250'000'000}));
}

TEST(Result, SeededRandomSweepRoundTrips) {
  std::mt19937_64 rng(0x6d6d766c6f67);
  const int32_t types[] = {kType32,     kTypeU32,    kType64,
                           kTypeU64,    kTypeFloat,  kTypeDouble,
                           kTypeString, kTypeAggregate, kTypeEvent};
  auto random_bytes = [&](size_t max) {
    std::string s(rng() % (max + 1), '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return s;
  };
  for (int iter = 0; iter < 400; ++iter) {
    SCOPED_TRACE(iter);
    const int version = iter % 2 ? 3 : 2;
    Result r;
    r.timestamp.sec = version == 2 ? static_cast<int32_t>(rng())
                                   : static_cast<int64_t>(rng());
    r.timestamp.nsec = static_cast<uint32_t>(rng() % 1'000'000'000);
    if (version == 2) r.timestamp.nsec -= r.timestamp.nsec % 1000;
    const int nsets = static_cast<int>(rng() % 9);  // 0: a mark
    for (int i = 0; i < nsets; ++i) {
      const int32_t type = types[rng() % std::size(types)];
      if (rng() % 8 == 0) {
        r.sets.push_back(ErrorSet(static_cast<uint32_t>(rng()), type,
                                  -static_cast<int32_t>(rng() % INT32_MAX) - 1));
        continue;
      }
      ValueSet s = Set(static_cast<uint32_t>(rng()), type, {});
      const int nvalues = static_cast<int>(rng() % 6);
      for (int j = 0; j < nvalues; ++j) {
        ResultValue v;
        v.inst = static_cast<int32_t>(rng());
        switch (type) {
          case kType32: v.i64 = static_cast<int32_t>(rng()); break;
          case kTypeU32: v.u64 = static_cast<uint32_t>(rng()); break;
          case kType64: v.i64 = static_cast<int64_t>(rng()); break;
          case kTypeU64: v.u64 = rng(); break;
          case kTypeFloat: {
            float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
            v.f64 = f == f ? f : 0.5f;  // NaN != NaN would fail ==
            break;
          }
          case kTypeDouble: {
            double d = std::bit_cast<double>(rng());
            v.f64 = d == d ? d : 0.25;
            break;
          }
          case kTypeString: {
            std::string b = random_bytes(40);
            for (char& c : b) c = c == '\0' ? 'n' : c;
            v.bytes = b;
            break;
          }
          default: v.bytes = random_bytes(40); break;
        }
        s.values.push_back(v);
      }
      r.sets.push_back(s);
    }
    ExpectRoundTrip(version, r);
  }
}

// Tests of the error paths of DecodeResult and ValueFromDecoded follow.
// Offsets are file offsets: the records below sit at file offset 1000, so
// payload byte N is at 1004 + N.

constexpr uint64_t kRecordAt = 1000;
constexpr uint64_t kPayloadAt = kRecordAt + 4;

std::vector<uint8_t> PayloadOf(int version, const Result& r) {
  std::vector<uint8_t> out;
  EncodeResult(version, r, &out);
  return std::vector<uint8_t>(out.begin() + 4, out.end() - 4);
}

TEST(DecodeResult, EveryTruncationIsDataLoss) {
  for (int version : {2, 3}) {
    for (const Result& r : {SevenTypes(), NoValueSets(), EveryType(), Result{}}) {
      std::vector<uint8_t> p = PayloadOf(version, r);
      for (size_t n = 0; n < p.size(); ++n) {
        SCOPED_TRACE(absl::StrCat("v", version, " n=", n));
        EXPECT_THAT(DecodeResult(version, std::span<const uint8_t>(p).first(n), kRecordAt),
                    StatusIs(absl::StatusCode::kDataLoss, StartsWith("offset ")));
      }
    }
  }
}

TEST(DecodeResult, EveryTruncatedRecordIsATornTail) {
  std::vector<uint8_t> out;
  EncodeResult(3, EveryType(), &out);
  for (size_t n = 1; n < out.size(); ++n) {
    RecordScanner scanner(std::span<const uint8_t>(out).first(n), kRecordAt);
    EXPECT_THAT(scanner.Next(),
                StatusIs(absl::StatusCode::kOutOfRange,
                         StartsWith(absl::StrCat("offset ", kRecordAt, ": torn"))));
  }
}

TEST(DecodeResult, HugeNumpmidIsDataLoss) {
  for (uint32_t numpmid : {0x7fffffffu, 0x80000000u, 25u}) {
    std::vector<uint8_t> p = PayloadOf(2, SevenTypes());
    StoreBig32(p.data() + 8, numpmid);
    EXPECT_THAT(DecodeResult(2, p, kRecordAt),
                IsDataLossAt(kPayloadAt + 8,
                             absl::StrCat("numpmid ", static_cast<int32_t>(numpmid),
                                          " impossible with 196 bytes left")));
  }
}

TEST(DecodeResult, HugeNumvalIsDataLoss) {
  std::vector<uint8_t> p = PayloadOf(3, SevenTypes());
  StoreBig32(p.data() + 16 + 4, 0x7fffffff);  // first set's numval
  EXPECT_THAT(DecodeResult(3, p, kRecordAt),
              IsDataLossAt(kPayloadAt + 20, "numval 2147483647 impossible"));
}

TEST(DecodeResult, BadValfmtIsDataLoss) {
  std::vector<uint8_t> p = PayloadOf(3, SevenTypes());
  StoreBig32(p.data() + 16 + 8, 3);
  EXPECT_THAT(DecodeResult(3, p, kRecordAt),
              IsDataLossAt(kPayloadAt + 24, "bad valfmt 3"));
}

// PM_VAL_SPTR (aggregates and events from some agents) is laid out on disk
// as DPTR is: the same record with the third set's valfmt 2 decodes to the
// same values.
TEST(DecodeResult, SptrReadsAsDptr) {
  const Result seven = SevenTypes();
  for (int version : {2, 3}) {
    std::vector<uint8_t> p = PayloadOf(version, seven);
    const size_t stamp = version == 3 ? 16 : 12;  // timestamp and numpmid
    const size_t valfmt_at = stamp + 2 * 20 + 8;   // third set: the first DPTR one
    ASSERT_EQ(LoadBig32(p.data() + valfmt_at), static_cast<uint32_t>(kValDptr));
    StoreBig32(p.data() + valfmt_at, kValSptr);
    absl::StatusOr<DecodedResult> got = DecodeResult(version, p, kRecordAt);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->sets.size(), seven.sets.size());
    EXPECT_EQ(got->sets[2].valfmt, kValSptr);
    for (size_t i = 0; i < seven.sets.size(); ++i) {
      absl::StatusOr<ValueSet> set = ValueSetFromDecoded(got->sets[i], seven.sets[i].type);
      ASSERT_TRUE(set.ok()) << set.status();
      EXPECT_EQ(*set, seven.sets[i]) << "v" << version << " set " << i;
    }
  }
}

// In SevenTypes v3, payload byte 16 + 2*20 + 16 holds the first DPTR word.
constexpr size_t kFirstDptrWord = 16 + 2 * 20 + 16;

TEST(DecodeResult, DptrOffsetsOutsideTheBlocksAreDataLoss) {
  const std::vector<uint8_t> good = PayloadOf(3, SevenTypes());
  ASSERT_EQ(LoadBig32(good.data() + kFirstDptrWord), 42u);
  // 0 and 2: before the payload; 3: the timestamp; 41: the last pmValue
  // (overlaps the value sets); 56: the end of the payload, where no block
  // header fits; huge.
  for (uint32_t word : {0u, 2u, 3u, 41u, 56u, 0xffffffffu}) {
    SCOPED_TRACE(word);
    std::vector<uint8_t> p = good;
    StoreBig32(p.data() + kFirstDptrWord, word);
    EXPECT_THAT(DecodeResult(3, p, kRecordAt),
                IsDataLossAt(kPayloadAt + kFirstDptrWord,
                             absl::StrCat("value block offset ", word,
                                          " words lies outside the value blocks")));
  }
}

TEST(DecodeResult, BlockLengthBelowFourIsDataLoss) {
  std::vector<uint8_t> p = PayloadOf(3, SevenTypes());
  const size_t block = 42 * 4 - 12;  // payload position of the first block
  for (uint32_t length : {0u, 1u, 3u}) {
    StoreBig32(p.data() + block, 0x02000000 | length);
    EXPECT_THAT(DecodeResult(3, p, kRecordAt),
                IsDataLossAt(kPayloadAt + block,
                             absl::StrCat("value block length ", length, " < 4")));
  }
}

TEST(DecodeResult, BlockRunningPastTheRecordIsDataLoss) {
  std::vector<uint8_t> p = PayloadOf(3, SevenTypes());
  const size_t last_block = p.size() - 12;  // the string block
  StoreBig32(p.data() + last_block, 0x06000000 | 13);
  EXPECT_THAT(DecodeResult(3, p, kRecordAt),
              IsDataLossAt(kPayloadAt + last_block,
                           "value block length 13 runs past the record end (12 bytes left)"));
  StoreBig32(p.data() + last_block, 0x06ffffff);
  EXPECT_THAT(DecodeResult(3, p, kRecordAt),
              IsDataLossAt(kPayloadAt + last_block, "runs past the record end"));
}

TEST(DecodeResult, TrailingBytesAreDataLoss) {
  std::vector<uint8_t> p = PayloadOf(2, SevenTypes());
  p.insert(p.end(), 4, 0);
  EXPECT_THAT(DecodeResult(2, p, kRecordAt),
              IsDataLossAt(kPayloadAt + p.size() - 4, "4 unexpected bytes left"));
  std::vector<uint8_t> mark = PayloadOf(3, Result{});
  mark.push_back(0);
  EXPECT_THAT(DecodeResult(3, mark, kRecordAt),
              IsDataLossAt(kPayloadAt + 16, "1 unexpected bytes left"));
}

TEST(DecodeResult, UnpaddedLastBlockIsDataLoss) {
  std::vector<uint8_t> p = PayloadOf(2, SevenTypes());
  p.resize(p.size() - 2);  // drop the "~~" after "hello\0"
  EXPECT_THAT(DecodeResult(2, p, kRecordAt),
              IsDataLossAt(kPayloadAt + p.size(), "not padded to 32 bits"));
}

TEST(DecodeResult, SubSecondOutOfRangeIsDataLoss) {
  std::vector<uint8_t> p = PayloadOf(2, SevenTypes());
  StoreBig32(p.data() + 4, 1'000'000);
  EXPECT_THAT(DecodeResult(2, p, kRecordAt),
              IsDataLossAt(kPayloadAt + 4, "microseconds 1000000 out of range"));
  p = PayloadOf(3, SevenTypes());
  StoreBig32(p.data() + 8, 1'000'000'000);
  EXPECT_THAT(DecodeResult(3, p, kRecordAt),
              IsDataLossAt(kPayloadAt + 8, "nanoseconds 1000000000 out of range"));
}

TEST(DecodeResult, OtherVersionsAreUnimplemented) {
  EXPECT_THAT(DecodeResult(1, PayloadOf(2, Result{}), 0),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("version 1")));
}

TEST(DecodeResult, SingleByteCorruptionsNeverCrash) {
  std::mt19937 rng(7);
  for (int version : {2, 3}) {
    const std::vector<uint8_t> good = PayloadOf(version, EveryType());
    for (size_t i = 0; i < good.size(); ++i) {
      const uint8_t flips[] = {0x01, 0x80, 0xff, static_cast<uint8_t>(rng() | 1)};
      for (uint8_t x : flips) {
        std::vector<uint8_t> p = good;
        p[i] ^= x;
        absl::StatusOr<DecodedResult> d = DecodeResult(version, p, kRecordAt);
        if (!d.ok()) {
          EXPECT_THAT(std::string(d.status().message()), StartsWith("offset ")) << i;
          continue;
        }
        for (const DecodedValueSet& s : d->sets) {
          for (const DecodedValue& v : s.values) {
            // Spans stay inside the payload.
            if (v.block.empty()) continue;
            EXPECT_GE(v.block.data(), p.data());
            EXPECT_LE(v.block.data() + v.block.size(), p.data() + p.size());
            (void)ValueFromDecoded(v, s.valfmt, kTypeString);
          }
        }
      }
    }
  }
}

TEST(ValueFromDecoded, ChecksFormatTypeAndSize) {
  const uint8_t eight[8] = {0, 0, 0, 0, 0, 0, 0, 1};
  const uint8_t four[4] = {0x3f, 0xc0, 0, 0};
  struct Case {
    DecodedValue v;
    int32_t valfmt;
    int32_t type;
    std::string what;
  };
  const Case cases[] = {
      {{1, 5, 0, {}}, kValInsitu, kType64, "type 2 value stored INSITU"},
      {{1, 5, 0, {}}, kValInsitu, kTypeString, "type 6 value stored INSITU"},
      {{1, 0, kType32, four}, kValDptr, kType32, "value block of type 0 for a metric of type 0"},
      {{1, 0, kType64, eight}, kValDptr, kTypeU64, "value block of type 2 for a metric of type 3"},
      {{1, 0, kType64, four}, kValDptr, kType64, "has 4 bytes, expected 8"},
      {{1, 0, kTypeFloat, eight}, kValDptr, kTypeFloat, "has 8 bytes, expected 4"},
      {{1, 0, kTypeDouble, four}, kValDptr, kTypeDouble, "has 4 bytes, expected 8"},
      {{1, 0, kTypeString, four}, kValDptr, kTypeAggregate, "value block of type 6"},
      {{1, 5, 0, {}}, 3, kType32, "bad valfmt 3"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_THAT(ValueFromDecoded(c.v, c.valfmt, c.type),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(StartsWith("instance 1: "), HasSubstr(c.what))));
  }
}

TEST(ValueFromDecoded, StringsReadAsLibpcpReadsThem) {
  // pmExtractValue copies the block and terminates it: a string stored
  // without its NUL (PCP QA's value-test) is its bytes, an inner NUL ends it.
  const uint8_t no_nul[3] = {'a', 'b', 'c'};
  const uint8_t inner[6] = {'a', 'b', 0, 'c', 'd', 0};
  struct Case {
    std::span<const uint8_t> block;
    std::string want;
  } cases[] = {{no_nul, "abc"}, {{}, ""}, {inner, "ab"}};
  for (const Case& c : cases) {
    absl::StatusOr<ResultValue> got = ValueFromDecoded({1, 0, kTypeString, c.block}, kValDptr, kTypeString);
    ASSERT_OK(got);
    EXPECT_EQ(got->bytes, c.want);
  }
}

TEST(ValueFromDecoded, BlockOfTypeZeroIsTheDescriptorsTypeInHostOrder) {
  // Archives of the 1990s wrote pmValueBlocks with vtype 0; libpcp's
  // pmExtractValue takes them as the descriptor's type, and leaves their
  // bytes in the order the writer's host had (PCP QA's 960624.08.17_v2:
  // disk.all.write, U64, 677360 in pmval).
  const uint8_t eight[8] = {0xf0, 0x55, 0x0a, 0, 0, 0, 0, 0};
  absl::StatusOr<ResultValue> got = ValueFromDecoded({1, 0, 0, eight}, kValDptr, kTypeU64);
  ASSERT_OK(got);
  EXPECT_EQ(got->u64, LoadNative<uint64_t>(eight));
  if constexpr (std::endian::native == std::endian::little) EXPECT_EQ(got->u64, 677360u);
  // A typed block is in network order.
  got = ValueFromDecoded({1, 0, kTypeU64, eight}, kValDptr, kTypeU64);
  ASSERT_OK(got);
  EXPECT_EQ(got->u64, 0xf0550a0000000000u);
}

TEST(ValueFromDecoded, AcceptsOldStyleInsituFloat) {
  // PCP's readers still take an INSITU FLOAT (pmExtractValue: "old style
  // insitu encoding"), though PCP itself writes FLOAT as a block.
  DecodedValue v{3, 0x3fc00000, 0, {}};
  absl::StatusOr<ResultValue> got = ValueFromDecoded(v, kValInsitu, kTypeFloat);
  ASSERT_OK(got);
  EXPECT_EQ(got->f64, 1.5);
  EXPECT_EQ(got->inst, 3);
}

TEST(ValueFromDecoded, AggregateStaticBlocksReadAsAggregate) {
  const uint8_t bytes[2] = {9, 8};
  DecodedValue v{kInNull, 0, kTypeAggregateStatic, bytes};
  absl::StatusOr<ResultValue> got = ValueFromDecoded(v, kValDptr, kTypeAggregate);
  ASSERT_OK(got);
  EXPECT_EQ(got->bytes, std::string("\x09\x08"));
}

TEST(ValueSetFromDecoded, NamesThePmidInErrors) {
  DecodedValueSet s{77, 1, kValInsitu, {DecodedValue{2, 1, 0, {}}}};
  EXPECT_THAT(ValueSetFromDecoded(s, kTypeDouble),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith("pmid 77: instance 2: type 5")));
}

// DecodeResultInto with one DecodedResult reused across records, as the
// archive reader and replay use it: nothing from an earlier record (of
// another shape, or a decoding that failed part way) may leak into a later
// one. The records have sets of every type, error sets and empty sets.

// A result with sets of every type (values of varying sizes, several
// instances), an error set and an empty set, as `seed` picks them.
Result RandomResult(uint64_t seed, int max_sets = 8, int max_values = 6) {
  std::mt19937_64 rng(seed);
  Result r;
  r.timestamp = {1'700'000'000 + static_cast<int64_t>(rng() % 1000),
                 static_cast<uint32_t>(rng() % 1'000'000) * 1000};
  const int nsets = static_cast<int>(rng() % (max_sets + 1));
  for (int s = 0; s < nsets; ++s) {
    ValueSet set;
    set.pmid = Pmid(static_cast<uint32_t>(s));
    set.type = static_cast<int32_t>(rng() % 9);  // kType32 .. kTypeAggregateStatic
    if (rng() % 8 == 0) {
      set.error = -12345 - static_cast<int32_t>(rng() % 10);
      r.sets.push_back(set);
      continue;
    }
    const int nvalues = static_cast<int>(rng() % (max_values + 1));
    for (int v = 0; v < nvalues; ++v) {
      ResultValue value;
      value.inst = static_cast<int32_t>(rng() % 100) - 1;
      value.i64 = static_cast<int64_t>(rng());
      value.u64 = rng();
      value.f64 = static_cast<double>(rng() % 100000) / 7;
      if (set.type == kType32) value.i64 = static_cast<int32_t>(value.i64);
      if (set.type == kTypeU32) value.u64 = static_cast<uint32_t>(value.u64);
      if (set.type == kTypeFloat) value.f64 = static_cast<float>(value.f64);
      if (set.type >= kTypeString) value.bytes = std::string(rng() % 11, 'a' + s);
      set.values.push_back(value);
    }
    r.sets.push_back(set);
  }
  return r;
}

// Decodes `payload` into `*reused` and into a fresh DecodedResult
// (DecodeResult): the same status, and when OK the same decoding with the
// spans at the same places, inside `payload`. Returns the status.
absl::Status ExpectReusedDecodesAsFresh(int version, std::span<const uint8_t> payload,
                                        DecodedResult* reused, const std::string& where) {
  const absl::StatusOr<DecodedResult> want = DecodeResult(version, payload, kRecordAt);
  const absl::Status got = DecodeResultInto(version, payload, kRecordAt, reused);
  if (!want.ok()) {
    EXPECT_EQ(got, want.status()) << where;
    return got;
  }
  EXPECT_THAT(got, IsOk()) << where;
  if (!got.ok()) return got;
  EXPECT_EQ(reused->timestamp, want->timestamp) << where;
  EXPECT_EQ(reused->sets.size(), want->sets.size()) << where;
  for (size_t s = 0; s < std::min(reused->sets.size(), want->sets.size()); ++s) {
    const DecodedValueSet& a = want->sets[s];
    const DecodedValueSet& b = reused->sets[s];
    EXPECT_EQ(b.pmid, a.pmid) << where;
    EXPECT_EQ(b.numval, a.numval) << where;
    EXPECT_EQ(b.valfmt, a.valfmt) << where;
    EXPECT_EQ(b.values.size(), a.values.size()) << where;
    for (size_t v = 0; v < std::min(a.values.size(), b.values.size()); ++v) {
      EXPECT_EQ(b.values[v].inst, a.values[v].inst) << where;
      EXPECT_EQ(b.values[v].insitu, a.values[v].insitu) << where;
      EXPECT_EQ(b.values[v].block_type, a.values[v].block_type) << where;
      EXPECT_EQ(b.values[v].block.data(), a.values[v].block.data()) << where;
      EXPECT_EQ(b.values[v].block.size(), a.values[v].block.size()) << where;
      if (b.valfmt == kValDptr) {
        EXPECT_GE(b.values[v].block.data(), payload.data()) << where;
        EXPECT_LE(b.values[v].block.data() + b.values[v].block.size(),
                  payload.data() + payload.size())
            << where;
      }
    }
  }
  return got;
}

// `s` is DataLoss, its message "offset <N>: ..." with first <= N <= last.
void ExpectDataLossWithin(const absl::Status& s, uint64_t first, uint64_t last,
                          const std::string& where) {
  ASSERT_EQ(s.code(), absl::StatusCode::kDataLoss) << where << ": " << s;
  absl::string_view m = s.message();
  uint64_t at = 0;
  ASSERT_TRUE(absl::ConsumePrefix(&m, "offset ") &&
              absl::SimpleAtoi(m.substr(0, m.find(':')), &at))
      << where << ": " << s;
  EXPECT_GE(at, first) << where << ": " << s;
  EXPECT_LE(at, last) << where << ": " << s;
}

TEST(DecodeResultInto, ReusedResultDecodesAsAFreshOne) {
  for (int version : {kLogVersion2, kLogVersion3}) {
    DecodedResult reused;
    std::vector<std::vector<uint8_t>> payloads;  // kept: spans point into them
    for (uint64_t seed = 0; seed < 300; ++seed) {
      payloads.push_back(PayloadOf(version, RandomResult(seed * 7 + 1)));
      EXPECT_OK(ExpectReusedDecodesAsFresh(version, payloads.back(), &reused,
                                           absl::StrCat("v", version, " record ", seed)));
    }
  }
}

TEST(DecodeResultInto, MarkRecords) {
  for (int version : {kLogVersion2, kLogVersion3}) {
    Result mark;
    mark.timestamp = {1'700'000'123, 456'000};
    DecodedResult reused;
    const std::vector<uint8_t> full = PayloadOf(version, RandomResult(5));
    ASSERT_OK(DecodeResultInto(version, full, kRecordAt, &reused));
    const std::vector<uint8_t> payload = PayloadOf(version, mark);
    ASSERT_OK(DecodeResultInto(version, payload, kRecordAt, &reused));
    EXPECT_TRUE(reused.is_mark());
    EXPECT_EQ(reused.timestamp, mark.timestamp);
  }
}

TEST(DecodeResultInto, OtherVersionsAreUnimplemented) {
  const std::vector<uint8_t> payload = PayloadOf(kLogVersion3, RandomResult(1));
  DecodedResult out;
  EXPECT_THAT(DecodeResultInto(4, payload, kRecordAt, &out),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("version 4")));
}

// Tests of DecodeResultInto's error paths over many damaged records follow.
// Each damage is DataLoss at an offset inside the payload (exactly where it
// can be told from the damage), and a reused result that held a failed
// decoding decodes the next record as a fresh one does.

TEST(DecodeResultInto, EveryTruncationIsDataLossInsideThePayload) {
  for (int version : {kLogVersion2, kLogVersion3}) {
    for (uint64_t seed = 0; seed < 40; ++seed) {
      const std::vector<uint8_t> payload = PayloadOf(version, RandomResult(seed));
      DecodedResult reused;
      for (size_t n = 0; n < payload.size(); ++n) {
        const std::string where = absl::StrCat("v", version, " seed ", seed, " length ", n);
        ExpectDataLossWithin(
            DecodeResultInto(version, std::span<const uint8_t>(payload).first(n), kRecordAt,
                             &reused),
            kPayloadAt, kPayloadAt + n, where);
        EXPECT_OK(ExpectReusedDecodesAsFresh(version, payload, &reused, where));
      }
    }
  }
}

TEST(DecodeResultInto, EverySingleByteCorruptionIsDataLossOrAValidDecoding) {
  for (int version : {kLogVersion2, kLogVersion3}) {
    for (uint64_t seed = 0; seed < 40; ++seed) {
      const std::vector<uint8_t> payload = PayloadOf(version, RandomResult(seed, 4, 4));
      DecodedResult reused;
      for (size_t i = 0; i < payload.size(); ++i) {
        for (uint8_t mask : {0x01, 0x04, 0x10, 0x80, 0xff}) {
          std::vector<uint8_t> bad = payload;
          bad[i] ^= mask;
          const std::string where =
              absl::StrCat("v", version, " seed ", seed, " byte ", i, " ^ ", int{mask});
          const absl::Status s = ExpectReusedDecodesAsFresh(version, bad, &reused, where);
          if (!s.ok()) ExpectDataLossWithin(s, kPayloadAt, kPayloadAt + bad.size(), where);
        }
      }
    }
  }
}

TEST(DecodeResultInto, OffsetWordAndBlockHeaderSurgery) {
  // Every pmValue word of a DPTR record set to offsets around and inside
  // the sets and blocks, past the end, and to extreme values (blocks
  // overlapping or shared); and the first block's header set to every
  // length 0..40 and type 0..9.
  for (int version : {kLogVersion2, kLogVersion3}) {
    Result r;
    r.timestamp = {1'700'000'000, 0};
    r.sets = {Set(Pmid(1), kTypeU64, {U64(100, 0), U64(101, 1), U64(102, 2)}),
              Set(Pmid(2), kTypeString, {Str("hello")})};
    const std::vector<uint8_t> payload = PayloadOf(version, r);
    const size_t header = version == kLogVersion2 ? kResultHeaderV2 : kResultHeaderV3;
    const size_t sets_end = header + 2 * kValueSetHeader + 4 * kValueSize;
    std::vector<size_t> words;  // payload positions of the offset words
    for (int i = 0; i < 3; ++i) words.push_back(header + kValueSetHeader + i * kValueSize + 4);
    words.push_back(header + kValueSetHeader + 3 * kValueSize + kValueSetHeader + 4);
    DecodedResult reused;
    for (size_t w : words) {
      for (uint32_t value : {0u, 1u, 2u, 3u, 10u, 20u, 25u, 26u, 27u, 28u, 29u, 30u, 31u, 32u,
                             33u, 34u, 40u, 100u, 0x3fffffffu, 0x40000000u, 0xffffffffu}) {
        std::vector<uint8_t> bad = payload;
        StoreBig32(bad.data() + w, value);
        const std::string where = absl::StrCat("v", version, " word at ", w, " = ", value);
        const absl::Status s = ExpectReusedDecodesAsFresh(version, bad, &reused, where);
        // Payload position of the block: the word counts from 12 bytes
        // before the payload (kDptrPduBias).
        const uint64_t from_record = uint64_t{value} * 4;
        if (from_record < kDptrPduBias + 4 + sets_end ||
            from_record - kDptrPduBias - 4 + kValueBlockHeader > bad.size()) {
          EXPECT_THAT(s, IsDataLossAt(kPayloadAt + w,
                                      absl::StrCat("value block offset ", value,
                                                   " words lies outside the value blocks")))
              << where;
        } else if (!s.ok()) {
          ExpectDataLossWithin(s, kPayloadAt, kPayloadAt + bad.size(), where);
        }
      }
    }
    const size_t block = sets_end;  // the first block
    for (uint32_t length = 0; length <= 40; ++length) {
      for (uint32_t type = 0; type < 10; ++type) {
        std::vector<uint8_t> bad = payload;
        StoreBig32(bad.data() + block, type << 24 | length);
        const std::string where =
            absl::StrCat("v", version, " block length ", length, " type ", type);
        const absl::Status s = ExpectReusedDecodesAsFresh(version, bad, &reused, where);
        if (length < kValueBlockHeader) {
          EXPECT_THAT(s, IsDataLossAt(kPayloadAt + block,
                                      absl::StrCat("value block length ", length, " < 4")))
              << where;
        } else if (s.ok()) {
          EXPECT_EQ(reused.sets[0].values[0].block_type, type) << where;
          EXPECT_EQ(reused.sets[0].values[0].block.size(), length - kValueBlockHeader) << where;
        } else {
          ExpectDataLossWithin(s, kPayloadAt, kPayloadAt + bad.size(), where);
        }
      }
    }
  }
}

}  // namespace
}  // namespace mmvlog::format

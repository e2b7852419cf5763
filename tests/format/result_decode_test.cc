// Tests of //format:result_decode: DecodeResultInto must give what
// DecodeResult gives (the same decoding, or the same error code and
// message) for valid records of every type and version, for records decoded
// one after another into the same DecodedResult, and for every truncation,
// every single-byte corruption and offset-word surgery of them;
// FixedValueFromDecoded must agree with ValueFromDecoded for every format,
// block type and size.
#include "format/result_decode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "format/archive_format.h"
#include "format/archive_result.h"
#include "format/endian.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

using ::mmvlog::testing::IsOk;

constexpr uint64_t kRecordAt = 1000;

uint32_t Pmid(uint32_t item) { return PmidBuild(245, 0, item); }

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

// The payload of `r` encoded (framing removed).
std::vector<uint8_t> Payload(int version, const Result& r) {
  std::vector<uint8_t> framed;
  EncodeResult(version, r, &framed);
  return std::vector<uint8_t>(framed.begin() + 4, framed.end() - 4);
}

// Same status, or both OK and the same decoding (spans at the same places).
void ExpectSame(const absl::StatusOr<DecodedResult>& want, const absl::Status& got,
                const DecodedResult& got_result, const std::string& where) {
  if (!want.ok()) {
    EXPECT_EQ(got, want.status()) << where;
    return;
  }
  ASSERT_THAT(got, IsOk()) << where;
  EXPECT_EQ(got_result.timestamp, want->timestamp) << where;
  ASSERT_EQ(got_result.sets.size(), want->sets.size()) << where;
  for (size_t s = 0; s < want->sets.size(); ++s) {
    const DecodedValueSet& a = want->sets[s];
    const DecodedValueSet& b = got_result.sets[s];
    EXPECT_EQ(b.pmid, a.pmid) << where;
    EXPECT_EQ(b.numval, a.numval) << where;
    EXPECT_EQ(b.valfmt, a.valfmt) << where;
    ASSERT_EQ(b.values.size(), a.values.size()) << where;
    for (size_t v = 0; v < a.values.size(); ++v) {
      EXPECT_EQ(b.values[v].inst, a.values[v].inst) << where;
      EXPECT_EQ(b.values[v].insitu, a.values[v].insitu) << where;
      EXPECT_EQ(b.values[v].block_type, a.values[v].block_type) << where;
      EXPECT_EQ(b.values[v].block.data(), a.values[v].block.data()) << where;
      EXPECT_EQ(b.values[v].block.size(), a.values[v].block.size()) << where;
    }
  }
}

void ExpectSameAsDecodeResult(int version, std::span<const uint8_t> payload,
                              DecodedResult* reused, const std::string& where) {
  const absl::StatusOr<DecodedResult> want = DecodeResult(version, payload, kRecordAt);
  const absl::Status got = DecodeResultInto(version, payload, kRecordAt, reused);
  ExpectSame(want, got, *reused, where);
}

TEST(DecodeResultInto, DecodesLikeDecodeResult) {
  for (int version : {kLogVersion2, kLogVersion3}) {
    for (uint64_t seed = 0; seed < 300; ++seed) {
      const std::vector<uint8_t> payload = Payload(version, RandomResult(seed));
      DecodedResult fresh;
      ExpectSameAsDecodeResult(version, payload, &fresh,
                               absl::StrCat("v", version, " seed ", seed));
    }
  }
}

TEST(DecodeResultInto, ReusesTheResultAcrossRecordsOfDifferentShapes) {
  // One DecodedResult for a stream of records whose sets change type,
  // format and size: nothing from an earlier record may leak into a later.
  for (int version : {kLogVersion2, kLogVersion3}) {
    DecodedResult reused;
    std::vector<std::vector<uint8_t>> payloads;  // kept: spans point into them
    for (uint64_t seed = 0; seed < 300; ++seed) {
      payloads.push_back(Payload(version, RandomResult(seed * 7 + 1)));
      ExpectSameAsDecodeResult(version, payloads.back(), &reused,
                               absl::StrCat("v", version, " record ", seed));
    }
  }
}

TEST(DecodeResultInto, MarkRecords) {
  for (int version : {kLogVersion2, kLogVersion3}) {
    Result mark;
    mark.timestamp = {1'700'000'123, 456'000};
    DecodedResult reused;
    const std::vector<uint8_t> full = Payload(version, RandomResult(5));
    ASSERT_THAT(DecodeResultInto(version, full, kRecordAt, &reused), IsOk());
    const std::vector<uint8_t> payload = Payload(version, mark);
    ASSERT_THAT(DecodeResultInto(version, payload, kRecordAt, &reused), IsOk());
    EXPECT_TRUE(reused.is_mark());
    EXPECT_EQ(reused.timestamp, mark.timestamp);
  }
}

TEST(DecodeResultInto, OtherVersionsAreUnimplemented) {
  const std::vector<uint8_t> payload = Payload(kLogVersion3, RandomResult(1));
  DecodedResult out;
  EXPECT_EQ(DecodeResultInto(4, payload, kRecordAt, &out),
            DecodeResult(4, payload, kRecordAt).status());
  EXPECT_EQ(DecodeResultInto(4, payload, kRecordAt, &out).code(),
            absl::StatusCode::kUnimplemented);
}

// Tests of the error paths follow: each damaged payload must give exactly
// DecodeResult's status.

TEST(DecodeResultInto, EveryTruncationFailsAsDecodeResultDoes) {
  for (int version : {kLogVersion2, kLogVersion3}) {
    for (uint64_t seed = 0; seed < 40; ++seed) {
      const std::vector<uint8_t> payload = Payload(version, RandomResult(seed));
      DecodedResult reused;
      for (size_t n = 0; n < payload.size(); ++n) {
        ExpectSameAsDecodeResult(version, std::span<const uint8_t>(payload.data(), n), &reused,
                                 absl::StrCat("v", version, " seed ", seed, " length ", n));
      }
    }
  }
}

TEST(DecodeResultInto, EverySingleByteCorruptionFailsAsDecodeResultDoes) {
  for (int version : {kLogVersion2, kLogVersion3}) {
    for (uint64_t seed = 0; seed < 40; ++seed) {
      const std::vector<uint8_t> payload = Payload(version, RandomResult(seed, 4, 4));
      DecodedResult reused;
      for (size_t i = 0; i < payload.size(); ++i) {
        for (uint8_t mask : {0x01, 0x04, 0x10, 0x80, 0xff}) {
          std::vector<uint8_t> bad = payload;
          bad[i] ^= mask;
          ExpectSameAsDecodeResult(
              version, bad, &reused,
              absl::StrCat("v", version, " seed ", seed, " byte ", i, " ^ ", int{mask}));
        }
      }
    }
  }
}

TEST(DecodeResultInto, OffsetWordSurgeryFailsAsDecodeResultDoes) {
  // Every pmValue word of a DPTR record set to offsets around and inside
  // the sets and blocks, past the end, and to extreme values; and blocks
  // overlapping or shared.
  for (int version : {kLogVersion2, kLogVersion3}) {
    Result r;
    r.timestamp = {1'700'000'000, 0};
    ValueSet a;
    a.pmid = Pmid(1);
    a.type = kTypeU64;
    for (int i = 0; i < 3; ++i) {
      ResultValue v;
      v.inst = i;
      v.u64 = 100 + i;
      a.values.push_back(v);
    }
    ValueSet b;
    b.pmid = Pmid(2);
    b.type = kTypeString;
    ResultValue s;
    s.bytes = "hello";
    b.values.push_back(s);
    r.sets = {a, b};
    const std::vector<uint8_t> payload = Payload(version, r);
    const size_t header = version == kLogVersion2 ? kResultHeaderV2 : kResultHeaderV3;
    std::vector<size_t> words;  // payload positions of the offset words
    for (int i = 0; i < 3; ++i) words.push_back(header + kValueSetHeader + i * kValueSize + 4);
    words.push_back(header + kValueSetHeader + 3 * kValueSize + kValueSetHeader + 4);
    DecodedResult reused;
    for (size_t w : words) {
      for (uint32_t value : {0u, 1u, 2u, 3u, 10u, 20u, 25u, 26u, 27u, 28u, 29u, 30u, 31u, 32u,
                             33u, 34u, 40u, 100u, 0x3fffffffu, 0x40000000u, 0xffffffffu}) {
        std::vector<uint8_t> bad = payload;
        StoreBig32(bad.data() + w, value);
        ExpectSameAsDecodeResult(version, bad, &reused,
                                 absl::StrCat("v", version, " word at ", w, " = ", value));
      }
    }
    // Block headers: lengths 0..40 and types 0..9 for the first block.
    const size_t block = header + 2 * kValueSetHeader + 4 * kValueSize;
    for (uint32_t length = 0; length <= 40; ++length) {
      for (uint32_t type = 0; type < 10; ++type) {
        std::vector<uint8_t> bad = payload;
        StoreBig32(bad.data() + block, type << 24 | length);
        ExpectSameAsDecodeResult(version, bad, &reused,
                                 absl::StrCat("v", version, " block length ", length,
                                              " type ", type));
      }
    }
  }
}

TEST(FixedValueFromDecoded, AgreesWithValueFromDecoded) {
  // Every fixed type read as every fixed type, from both formats, with
  // blocks of every type byte and of sizes 0..9.
  const std::vector<uint8_t> bytes = {0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18, 0x7f, 0x01};
  std::vector<DecodedValue> values;
  for (uint32_t insitu : {0u, 1u, 0x80000000u, 0xffffffffu, 0x3f800000u}) {
    DecodedValue v;
    v.inst = 7;
    v.insitu = insitu;
    values.push_back(v);
  }
  for (uint8_t block_type = 0; block_type < 10; ++block_type) {
    for (size_t size = 0; size <= bytes.size(); ++size) {
      DecodedValue v;
      v.inst = 3;
      v.block_type = block_type;
      v.block = std::span<const uint8_t>(bytes.data(), size);
      values.push_back(v);
    }
  }
  int accepted = 0;
  for (int32_t type : {kType32, kTypeU32, kType64, kTypeU64, kTypeFloat, kTypeDouble}) {
    ASSERT_TRUE(IsFixedNumericType(type));
    for (int32_t valfmt : {kValInsitu, kValDptr, 2}) {
      for (const DecodedValue& v : values) {
        const absl::StatusOr<ResultValue> want = ValueFromDecoded(v, valfmt, type);
        FixedValue got;
        const bool ok = FixedValueFromDecoded(v, valfmt, type, &got);
        const std::string where = absl::StrCat("type ", type, " valfmt ", valfmt, " block type ",
                                               int{v.block_type}, " size ", v.block.size(),
                                               " insitu ", v.insitu);
        ASSERT_EQ(ok, want.ok()) << where;
        if (!ok) continue;
        ++accepted;
        switch (type) {
          case kType32:
          case kType64: EXPECT_EQ(got.i64, want->i64) << where; break;
          case kTypeU32:
          case kTypeU64: EXPECT_EQ(got.u64, want->u64) << where; break;
          default:
            EXPECT_EQ(std::bit_cast<uint64_t>(got.f64), std::bit_cast<uint64_t>(want->f64))
                << where;
        }
      }
    }
  }
  EXPECT_GT(accepted, 20);
  for (int32_t type : {kTypeString, kTypeAggregate, kTypeAggregateStatic, kTypeEvent,
                       kTypeNoSupport, kTypeUnknown}) {
    EXPECT_FALSE(IsFixedNumericType(type)) << type;
  }
}

}  // namespace
}  // namespace mmvlog::format

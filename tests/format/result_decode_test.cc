// Tests of //format/archive:result_decode: FixedValueFromDecoded must agree with
// ValueFromDecoded for every format, block type and size. (DecodeResultInto
// is tested with the rest of //format/archive:archive_result, in
// archive_result_test.cc.)
#include "format/archive/result_decode.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_result.h"

namespace mmvlog::format {
namespace {

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

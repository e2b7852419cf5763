// The fast path for reading the values of decoded pmResult records (see
// archive_result.h; normative: LOGARCHIVE(5), "ARCHIVE VOLUME RECORDS"), for
// readers that go through many records: replay, check, the archive reader.
// They decode each record with DecodeResultInto (archive_result.h) into one
// reused DecodedResult, then convert its values here.
//
// FixedValueFromDecoded converts a value of a fixed-size numeric type the
// way ValueFromDecoded does, without building a ResultValue.
#ifndef MMVLOG_FORMAT_ARCHIVE_RESULT_DECODE_H_
#define MMVLOG_FORMAT_ARCHIVE_RESULT_DECODE_H_

#include <bit>
#include <cstdint>

#include "format/archive/archive_format.h"
#include "format/archive/archive_result.h"
#include "format/endian.h"

namespace mmvlog::format {

// A number of a fixed-size type, in the member ValueFromDecoded would use:
// i64 for kType32 and kType64, u64 for kTypeU32 and kTypeU64, f64 for
// kTypeFloat and kTypeDouble.
union FixedValue {
  int64_t i64;
  uint64_t u64;
  double f64;
};

// True for the types FixedValueFromDecoded handles.
inline constexpr bool IsFixedNumericType(int32_t type) {
  return type == kType32 || type == kTypeU32 || type == kType64 ||
         type == kTypeU64 || type == kTypeFloat || type == kTypeDouble;
}

// Converts `v`, from a set with `valfmt`, for a metric of `type`.
// REQUIRES: IsFixedNumericType(type).
// Returns false exactly where ValueFromDecoded returns an error, and
// otherwise sets the member of `*out` that ValueFromDecoded would set, to
// the same value. Inline: it runs once per value.
inline bool FixedValueFromDecoded(const DecodedValue& v, int32_t valfmt,
                                  int32_t type, FixedValue* out) {
  if (valfmt == kValInsitu) {
    switch (type) {
      case kType32:
        out->i64 = static_cast<int32_t>(v.insitu);
        return true;
      case kTypeU32:
        out->u64 = v.insitu;
        return true;
      case kTypeFloat:  // PCP's "old style insitu" float
        out->f64 = std::bit_cast<float>(v.insitu);
        return true;
      default:
        return false;
    }
  }
  if ((valfmt != kValDptr && valfmt != kValSptr) || IsInsituType(type) ||
      (v.block_type != static_cast<uint32_t>(type) && v.block_type != 0)) {
    return false;
  }
  switch (type) {
    case kType64:
    case kTypeU64:
    case kTypeDouble: {
      if (v.block.size() != 8) return false;
      const uint64_t bits = BlockBits64(v);
      if (type == kType64) out->i64 = static_cast<int64_t>(bits);
      if (type == kTypeU64) out->u64 = bits;
      if (type == kTypeDouble) out->f64 = std::bit_cast<double>(bits);
      return true;
    }
    case kTypeFloat:
      if (v.block.size() != 4) return false;
      out->f64 = std::bit_cast<float>(BlockBits32(v));
      return true;
    default:
      return false;
  }
}

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_RESULT_DECODE_H_

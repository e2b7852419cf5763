// One value as replay keeps it: a kind and 8 bytes. Metrics of types 32 and
// 64 are kInt, U32 and U64 kUint, FLOAT and DOUBLE kDouble (a float widened
// exactly), anything else kString (the value's bytes, held elsewhere: `bits`
// is then an index the holder defines).
#ifndef MMVLOG_ARCHIVER_REPLAY_VALUE_H_
#define MMVLOG_ARCHIVER_REPLAY_VALUE_H_

#include <bit>
#include <cstdint>

#include "format/archive/archive_format.h"

namespace mmvlog::archiver {

enum ValueKind : uint8_t { kNoValue = 0, kInt, kUint, kDouble, kString };

inline ValueKind KindOfType(int32_t type) {
  switch (type) {
    case format::kType32:
    case format::kType64: return kInt;
    case format::kTypeU32:
    case format::kTypeU64: return kUint;
    case format::kTypeFloat:
    case format::kTypeDouble: return kDouble;
    default: return kString;
  }
}

// The number a numeric value stands for (0 for kNoValue and kString).
inline double NumberOf(ValueKind kind, uint64_t bits) {
  switch (kind) {
    case kInt: return static_cast<double>(static_cast<int64_t>(bits));
    case kUint: return static_cast<double>(bits);
    case kDouble: return std::bit_cast<double>(bits);
    default: return 0;
  }
}

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_VALUE_H_

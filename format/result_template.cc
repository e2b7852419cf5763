#include "format/result_template.h"

#include "format/archive_format.h"
#include "format/endian.h"

namespace mmvlog::format {
namespace {

// Bytes of a fixed-size value inside its block; 0 for variable sizes.
size_t FixedBlockValueSize(int32_t type) {
  switch (type) {
    case kType64:
    case kTypeU64:
    case kTypeDouble:
      return 8;
    case kTypeFloat:
      return 4;
    default:
      return 0;
  }
}

}  // namespace

std::optional<ResultTemplate> ResultTemplate::Make(int version, const Result& r) {
  ResultTemplate t;
  t.version_ = version;
  t.timestamp_ = r.timestamp;
  // The layout below follows EncodeResult's: set headers and (inst, value)
  // pairs first, then every pmValueBlock in value order.
  size_t pos = kFrameOverhead - 4 + (version == kLogVersion2 ? kResultHeaderV2 : kResultHeaderV3);
  size_t block_pos = pos;
  for (const ValueSet& s : r.sets) {
    const bool has_values = s.error == 0 && !s.values.empty();
    block_pos += has_values ? kValueSetHeader + kValueSize * s.values.size()
                            : kValueSetNoValuesSize;
  }
  for (const ValueSet& s : r.sets) {
    ValueSlots slots;
    slots.type = s.type;
    if (s.error != 0 || s.values.empty()) {
      pos += kValueSetNoValuesSize;
      t.sets_.push_back(slots);
      continue;
    }
    slots.count = static_cast<uint32_t>(s.values.size());
    if (IsInsituType(s.type)) {
      slots.first = pos + kValueSetHeader + 4;
      slots.stride = kValueSize;
    } else {
      const size_t size = FixedBlockValueSize(s.type);
      if (size == 0) return std::nullopt;
      slots.first = block_pos + kValueBlockHeader;
      slots.stride = (kValueBlockHeader + size + 3) & ~size_t{3};
      block_pos += slots.stride * s.values.size();
    }
    pos += kValueSetHeader + kValueSize * s.values.size();
    t.values_ += s.values.size();
    t.sets_.push_back(slots);
  }
  EncodeResult(version, r, &t.bytes_);
  return t;
}

void ResultTemplate::SetTimestamp(Timestamp t) {
  timestamp_ = t;
  uint8_t* p = bytes_.data() + 4;
  if (version_ == kLogVersion2) {
    StoreBig32(p, static_cast<uint32_t>(t.sec));
    StoreBig32(p + 4, t.nsec / 1000);
  } else {
    StoreBig64(p, V3SecondsWordSwap(static_cast<uint64_t>(t.sec)));
    StoreBig32(p + 8, t.nsec);
  }
}

}  // namespace mmvlog::format

#include "format/archive/result_template.h"

#include <bit>
#include <cassert>
#include <cstring>
#include <limits>

#include "format/archive/archive_format.h"
#include "format/endian.h"

namespace mmvlog::format {

std::optional<ResultTemplate> ResultTemplate::FromLayout(int version, Timestamp timestamp,
                                                         std::span<const SetLayout> sets) {
  assert(version == kLogVersion2 || version == kLogVersion3);
  ResultTemplate t;
  t.version_ = version;
  // EncodeResult's layout: set headers and (inst, value) pairs first, then
  // every pmValueBlock in value order.
  const size_t header = version == kLogVersion2 ? kResultHeaderV2 : kResultHeaderV3;
  size_t size = kFrameOverhead + header;
  for (const SetLayout& s : sets) {
    if (s.error != 0 || s.instances.empty()) {
      size += kValueSetNoValuesSize;
      continue;
    }
    size += kValueSetHeader + kValueSize * s.instances.size();
    if (s.type == kTypeString) {
      if (s.sizes.size() != s.instances.size()) return std::nullopt;
      for (uint32_t n : s.sizes) {
        if (n == 0 || kValueBlockHeader + n > kValueBlockMaxLength) return std::nullopt;
        size += PadTo32Bits(kValueBlockHeader + n);
      }
    } else if (!IsInsituType(s.type)) {
      const size_t value = FixedBlockValueSize(s.type);
      if (value == 0) return std::nullopt;
      size += PadTo32Bits(kValueBlockHeader + value) * s.instances.size();
    }
  }
  assert(size <= std::numeric_limits<uint32_t>::max());
  t.bytes_.assign(size, 0);
  uint8_t* rec = t.bytes_.data();
  StoreBig32(rec, static_cast<uint32_t>(size));
  StoreBig32(rec + size - 4, static_cast<uint32_t>(size));
  t.SetTimestamp(timestamp);
  size_t pos = 4 + header;
  StoreBig32(rec + pos - 4, static_cast<uint32_t>(sets.size()));
  size_t block_pos = pos;
  for (const SetLayout& s : sets) {
    block_pos += s.error != 0 || s.instances.empty()
                     ? kValueSetNoValuesSize
                     : kValueSetHeader + kValueSize * s.instances.size();
  }
  for (const SetLayout& s : sets) {
    ValueSlots slots;
    slots.type = s.type;
    StoreBig32(rec + pos, s.pmid);
    if (s.error != 0 || s.instances.empty()) {
      StoreBig32(rec + pos + 4, static_cast<uint32_t>(s.error));
      pos += kValueSetNoValuesSize;
      t.sets_.push_back(slots);
      continue;
    }
    const bool insitu = IsInsituType(s.type);
    StoreBig32(rec + pos + 4, static_cast<uint32_t>(s.instances.size()));
    StoreBig32(rec + pos + 8, insitu ? kValInsitu : kValDptr);
    pos += kValueSetHeader;
    slots.count = static_cast<uint32_t>(s.instances.size());
    const bool strings = s.type == kTypeString;
    if (insitu) {
      slots.first = pos + 4;
      slots.stride = kValueSize;
    } else if (!strings) {
      const size_t length = kValueBlockHeader + FixedBlockValueSize(s.type);
      slots.first = block_pos + kValueBlockHeader;
      slots.stride = PadTo32Bits(length);
    }
    for (size_t k = 0; k < s.instances.size(); ++k) {
      StoreBig32(rec + pos, static_cast<uint32_t>(s.instances[k]));
      if (!insitu) {
        StoreBig32(rec + pos + 4, static_cast<uint32_t>((block_pos + kDptrPduBias) / 4));
        const size_t length =
            kValueBlockHeader + (strings ? s.sizes[k] : FixedBlockValueSize(s.type));
        StoreBig32(rec + block_pos,
                   (static_cast<uint32_t>(s.type) & 0xff) << 24 | static_cast<uint32_t>(length));
        std::memset(rec + block_pos + length, kValueBlockPadByte, PadTo32Bits(length) - length);
        if (strings) slots.blocks.push_back(static_cast<uint32_t>(block_pos));
        block_pos += PadTo32Bits(length);
      }
      pos += kValueSize;
    }
    t.values_ += slots.count;
    t.sets_.push_back(slots);
  }
  assert(block_pos == size - 4);
  return t;
}

std::optional<ResultTemplate> ResultTemplate::Make(int version, const Result& r) {
  std::vector<std::vector<int32_t>> instances(r.sets.size());
  std::vector<std::vector<uint32_t>> sizes(r.sets.size());
  std::vector<SetLayout> layout(r.sets.size());
  for (size_t i = 0; i < r.sets.size(); ++i) {
    const ValueSet& s = r.sets[i];
    for (const ResultValue& v : s.values) {
      instances[i].push_back(v.inst);
      if (s.type == kTypeString) sizes[i].push_back(static_cast<uint32_t>(v.bytes.size() + 1));
    }
    layout[i] = {s.pmid, s.type, s.error, instances[i], sizes[i]};
  }
  std::optional<ResultTemplate> t = FromLayout(version, r.timestamp, layout);
  if (!t.has_value()) return std::nullopt;
  for (size_t i = 0; i < r.sets.size(); ++i) {
    const ValueSlots& slots = t->sets_[i];
    for (size_t k = 0; k < slots.count; ++k) {
      const ResultValue& v = r.sets[i].values[k];
      if (slots.type == kTypeString) {
        const bool fits = t->StoreString(
            i, k, {reinterpret_cast<const uint8_t*>(v.bytes.data()), v.bytes.size()});
        assert(fits);
        (void)fits;
      } else {
        t->Store(slots, k, v);
      }
    }
  }
  return t;
}

bool ResultTemplate::StoreString(size_t set, size_t k, std::span<const uint8_t> text) {
  uint8_t* block = bytes_.data() + sets_[set].blocks[k];
  const size_t length = kValueBlockHeader + text.size() + 1;
  const size_t was = LoadBig32(block) & 0xffffff;
  if (PadTo32Bits(length) != PadTo32Bits(was)) return false;
  StoreBig32(block, (static_cast<uint32_t>(kTypeString) & 0xff) << 24 |
                        static_cast<uint32_t>(length));
  std::memcpy(block + kValueBlockHeader, text.data(), text.size());
  block[length - 1] = 0;
  std::memset(block + length, kValueBlockPadByte, PadTo32Bits(length) - length);
  return true;
}

void ResultTemplate::Store(const ValueSlots& slots, size_t k, const ResultValue& v) {
  uint8_t* p = bytes_.data() + slots.first + k * slots.stride;
  switch (slots.type) {
    case kType32: StoreBig32(p, static_cast<uint32_t>(static_cast<int32_t>(v.i64))); break;
    case kTypeU32: StoreBig32(p, static_cast<uint32_t>(v.u64)); break;
    case kType64: StoreBig64(p, static_cast<uint64_t>(v.i64)); break;
    case kTypeU64: StoreBig64(p, v.u64); break;
    case kTypeFloat: StoreBig32(p, std::bit_cast<uint32_t>(static_cast<float>(v.f64))); break;
    case kTypeDouble: StoreBig64(p, std::bit_cast<uint64_t>(v.f64)); break;
  }
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

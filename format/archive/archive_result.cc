#include "format/archive/archive_result.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "format/byte_reader.h"
#include "format/endian.h"
#include "format/errors.h"

namespace mmvlog::format {
namespace {

bool HasValues(const ValueSet& s) { return s.error == 0 && !s.values.empty(); }

// Bytes of a value inside its pmValueBlock, without header and padding.
size_t BlockValueSize(int32_t type, const ResultValue& v) {
  if (const size_t fixed = FixedBlockValueSize(type); fixed != 0) return fixed;
  if (type == kTypeString) return v.bytes.size() + 1;  // with its NUL
  return v.bytes.size();
}

size_t SetSize(const ValueSet& s) {
  if (!HasValues(s)) return kValueSetNoValuesSize;
  return kValueSetHeader + kValueSize * s.values.size();
}

size_t BlocksSize(const ValueSet& s) {
  if (!HasValues(s) || IsInsituType(s.type)) return 0;
  // Fixed-size types: every block is the same size (no walk over values).
  if (const size_t fixed = FixedBlockValueSize(s.type); fixed != 0) {
    return s.values.size() * PadTo32Bits(kValueBlockHeader + fixed);
  }
  size_t n = 0;
  for (const ResultValue& v : s.values) {
    n += PadTo32Bits(kValueBlockHeader + BlockValueSize(s.type, v));
  }
  return n;
}

size_t ResultHeaderSize(int version) {
  return version == kLogVersion2 ? kResultHeaderV2 : kResultHeaderV3;
}

// Writes the value bytes of `v` (a block of `type`) at `p`.
void StoreBlockValue(int32_t type, const ResultValue& v, uint8_t* p) {
  switch (type) {
    case kType64:
      StoreBig64(p, static_cast<uint64_t>(v.i64));
      break;
    case kTypeU64:
      StoreBig64(p, v.u64);
      break;
    case kTypeDouble:
      StoreBig64(p, std::bit_cast<uint64_t>(v.f64));
      break;
    case kTypeFloat:
      StoreBig32(p, std::bit_cast<uint32_t>(static_cast<float>(v.f64)));
      break;
    case kTypeString:
      std::memcpy(p, v.bytes.data(), v.bytes.size());
      p[v.bytes.size()] = 0;
      break;
    default:
      std::memcpy(p, v.bytes.data(), v.bytes.size());
      break;
  }
}

uint32_t InsituWord(int32_t type, const ResultValue& v) {
  return type == kType32 ? static_cast<uint32_t>(static_cast<int32_t>(v.i64))
                         : static_cast<uint32_t>(v.u64);
}

// A payload that ends inside a field is damage within a complete frame, not
// a torn tail: turn ByteReader's OutOfRange into DataLoss.
absl::Status AsDataLoss(const absl::Status& s) {
  if (s.code() != absl::StatusCode::kOutOfRange) return s;
  return absl::DataLossError(absl::StrCat(s.message(), " (record ends early)"));
}

bool IsAggregate(int32_t type) {
  return type == kTypeAggregate || type == kTypeAggregateStatic;
}

}  // namespace

size_t EncodedResultSize(int version, const Result& r) {
  size_t n = kFrameOverhead + ResultHeaderSize(version);
  for (const ValueSet& s : r.sets) n += SetSize(s) + BlocksSize(s);
  return n;
}

void EncodeResult(int version, const Result& r, std::vector<uint8_t>* out) {
  assert(version == kLogVersion2 || version == kLogVersion3);
  assert(r.timestamp.nsec < kNsecPerSec);
  const size_t size = EncodedResultSize(version, r);
  assert(size <= std::numeric_limits<uint32_t>::max());
  const size_t begin = out->size();
  out->resize(begin + size);
  uint8_t* rec = out->data() + begin;

  StoreBig32(rec, static_cast<uint32_t>(size));
  size_t pos = 4;
  if (version == kLogVersion2) {
    assert(r.timestamp.sec >= std::numeric_limits<int32_t>::min() &&
           r.timestamp.sec <= std::numeric_limits<int32_t>::max());
    StoreBig32(rec + pos, static_cast<uint32_t>(r.timestamp.sec));
    StoreBig32(rec + pos + 4, r.timestamp.nsec / 1000);
    pos += 8;
  } else {
    StoreBig64(rec + pos,
               V3SecondsWordSwap(static_cast<uint64_t>(r.timestamp.sec)));
    StoreBig32(rec + pos + 8, r.timestamp.nsec);
    pos += 12;
  }
  StoreBig32(rec + pos, static_cast<uint32_t>(r.sets.size()));
  pos += 4;

  // Blocks follow all value sets, in value order.
  size_t block_pos = pos;
  for (const ValueSet& s : r.sets) block_pos += SetSize(s);

  for (const ValueSet& s : r.sets) {
    assert(s.error <= 0 && (s.error == 0 || s.values.empty()));
    StoreBig32(rec + pos, s.pmid);
    if (!HasValues(s)) {
      StoreBig32(rec + pos + 4, static_cast<uint32_t>(s.error));
      pos += kValueSetNoValuesSize;
      continue;
    }
    const bool insitu = IsInsituType(s.type);
    StoreBig32(rec + pos + 4, static_cast<uint32_t>(s.values.size()));
    StoreBig32(rec + pos + 8, insitu ? kValInsitu : kValDptr);
    pos += kValueSetHeader;
    for (const ResultValue& v : s.values) {
      StoreBig32(rec + pos, static_cast<uint32_t>(v.inst));
      if (insitu) {
        StoreBig32(rec + pos + 4, InsituWord(s.type, v));
      } else {
        const size_t length = kValueBlockHeader + BlockValueSize(s.type, v);
        assert(length <= kValueBlockMaxLength);
        StoreBig32(rec + pos + 4,
                   static_cast<uint32_t>((block_pos + kDptrPduBias) / 4));
        StoreBig32(rec + block_pos,
                   (static_cast<uint32_t>(s.type) & 0xff) << 24 |
                       static_cast<uint32_t>(length));
        StoreBlockValue(s.type, v, rec + block_pos + kValueBlockHeader);
        if (PadTo32Bits(length) != length) {
          std::memset(rec + block_pos + length, kValueBlockPadByte, PadTo32Bits(length) - length);
        }
        block_pos += PadTo32Bits(length);
      }
      pos += kValueSize;
    }
  }
  assert(block_pos == size - 4);
  StoreBig32(rec + block_pos, static_cast<uint32_t>(size));
}

// Headers are read through ByteReader (a few words per set); a set's values
// are read straight from the bytes once the walk of the headers has proved
// they are all there.
absl::StatusOr<Timestamp> DecodeResultTimestamp(int version,
                                                std::span<const uint8_t> payload,
                                                uint64_t record_offset) {
  if (version != kLogVersion2 && version != kLogVersion3) {
    return absl::UnimplementedError(
        absl::StrCat("archive version ", version, " not supported"));
  }
  ByteReader r(payload, record_offset + 4);
  Timestamp t;
  if (version == kLogVersion2) {
    t.sec = r.ReadBigI32();
    const uint64_t at = r.offset();
    const uint32_t usec = r.ReadBig32();
    if (!r.ok()) return AsDataLoss(r.status());
    if (usec >= kUsecPerSec) {
      return DataLossAt(at, absl::StrCat("result microseconds ", usec, " out of range"));
    }
    t.nsec = usec * 1000;
    return t;
  }
  t.sec = static_cast<int64_t>(V3SecondsWordSwap(r.ReadBig64()));
  const uint64_t at = r.offset();
  t.nsec = r.ReadBig32();
  if (!r.ok()) return AsDataLoss(r.status());
  if (t.nsec >= kNsecPerSec) {
    return DataLossAt(at, absl::StrCat("result nanoseconds ", t.nsec, " out of range"));
  }
  return t;
}

// One piece: one pass of one cursor over a record, the hot path of every
// replay (bench/README.md, replay_bench); its checks share the bounds found.
absl::Status DecodeResultInto(int version, std::span<const uint8_t> payload,
                              uint64_t record_offset, DecodedResult* out) {
  if (version != kLogVersion2 && version != kLogVersion3) {
    return absl::UnimplementedError(
        absl::StrCat("archive version ", version, " not supported"));
  }
  const uint64_t base = record_offset + 4;  // file offset of payload[0]
  ByteReader r(payload, base);
  if (version == kLogVersion2) {
    out->timestamp.sec = r.ReadBigI32();
    const uint64_t at = r.offset();
    const uint32_t usec = r.ReadBig32();
    if (usec >= kUsecPerSec) {
      return DataLossAt(at, absl::StrCat("result microseconds ", usec,
                                         " out of range"));
    }
    out->timestamp.nsec = usec * 1000;
  } else {
    out->timestamp.sec =
        static_cast<int64_t>(V3SecondsWordSwap(r.ReadBig64()));
    const uint64_t at = r.offset();
    out->timestamp.nsec = r.ReadBig32();
    if (out->timestamp.nsec >= kNsecPerSec) {
      return DataLossAt(at, absl::StrCat("result nanoseconds ",
                                         out->timestamp.nsec,
                                         " out of range"));
    }
  }
  const uint64_t numpmid_at = r.offset();
  const int32_t numpmid = r.ReadBigI32();
  if (!r.ok()) return AsDataLoss(r.status());
  // Each set takes at least kValueSetNoValuesSize bytes: a count that
  // cannot fit is rejected before anything is allocated for it.
  if (numpmid < 0 ||
      static_cast<uint64_t>(numpmid) > r.remaining() / kValueSetNoValuesSize) {
    return DataLossAt(numpmid_at,
                      absl::StrCat("numpmid ", numpmid, " impossible with ",
                                   r.remaining(), " bytes left"));
  }
  out->sets.resize(numpmid);

  // The set headers first (the values skipped), to know where the value
  // blocks begin; then each set's values in one pass, a PM_VAL_DPTR value's
  // block found and checked as it is read. Errors come in the order of a
  // walk of the headers, then of the values.
  const size_t sets_start = r.position();
  for (DecodedValueSet& set : out->sets) {
    set.pmid = r.ReadBig32();
    const uint64_t numval_at = r.offset();
    set.numval = r.ReadBigI32();
    if (!r.ok()) return AsDataLoss(r.status());
    if (set.numval <= 0) {  // no valfmt word, no values
      set.valfmt = 0;
      set.values.clear();
      continue;
    }
    const uint64_t valfmt_at = r.offset();
    set.valfmt = r.ReadBigI32();
    if (!r.ok()) return AsDataLoss(r.status());
    if (set.valfmt != kValInsitu && set.valfmt != kValDptr && set.valfmt != kValSptr) {
      return DataLossAt(valfmt_at, absl::StrCat("pmid ", set.pmid,
                                                ": bad valfmt ", set.valfmt));
    }
    if (static_cast<uint64_t>(set.numval) > r.remaining() / kValueSize) {
      return DataLossAt(numval_at,
                        absl::StrCat("pmid ", set.pmid, ": numval ",
                                     set.numval, " impossible with ",
                                     r.remaining(), " bytes left"));
    }
    r.Skip(static_cast<size_t>(set.numval) * kValueSize);
  }
  if (!r.ok()) return AsDataLoss(r.status());

  const size_t sets_end = r.position();
  size_t end = sets_end;  // end of the last block, padded
  // The word counts 32-bit units from 8 bytes before the record's length
  // field (kDptrPduBias), i.e. from 12 bytes before the payload.
  constexpr uint64_t kBias = kDptrPduBias + 4;
  const uint8_t* const data = payload.data();
  const size_t size = payload.size();
  const uint8_t* p = data + sets_start;
  for (DecodedValueSet& set : out->sets) {
    if (set.numval <= 0) {
      p += kValueSetNoValuesSize;
      continue;
    }
    p += kValueSetHeader;
    set.values.resize(set.numval);
    if (set.valfmt == kValInsitu) {
      for (DecodedValue& v : set.values) {
        v.inst = static_cast<int32_t>(LoadBig32(p));
        v.insitu = LoadBig32(p + 4);
        v.block_type = 0;
        v.block = {};
        p += kValueSize;
      }
      continue;
    }
    for (DecodedValue& v : set.values) {
      v.inst = static_cast<int32_t>(LoadBig32(p));
      v.insitu = 0;
      const uint8_t* word_at = p + 4;
      p += kValueSize;
      const uint32_t word = LoadBig32(word_at);
      const uint64_t from_record = uint64_t{word} * 4;
      if (from_record < kBias + sets_end ||
          from_record - kBias + kValueBlockHeader > size) {
        return DataLossAt(base + static_cast<uint64_t>(word_at - data),
                          absl::StrCat("value block offset ", word,
                                       " words lies outside the value "
                                       "blocks (payload bytes ",
                                       sets_end, " to ", size, ")"));
      }
      const size_t pos = static_cast<size_t>(from_record - kBias);
      const uint32_t header = LoadBig32(data + pos);
      const uint32_t length = header & kValueBlockMaxLength;
      if (length < kValueBlockHeader) {
        return DataLossAt(base + pos,
                          absl::StrCat("value block length ", length, " < ",
                                       kValueBlockHeader));
      }
      const size_t left = size - pos - kValueBlockHeader;
      if (length - kValueBlockHeader > left) {
        return DataLossAt(base + pos,
                          absl::StrCat("value block length ", length,
                                       " runs past the record end (",
                                       left + kValueBlockHeader,
                                       " bytes left)"));
      }
      v.block_type = static_cast<uint8_t>(header >> 24);
      v.block = std::span<const uint8_t>(data + pos + kValueBlockHeader,
                                         length - kValueBlockHeader);
      end = std::max(end, PadTo32Bits(pos + length));
    }
  }
  if (end != payload.size()) {
    if (end < payload.size()) {
      return DataLossAt(base + end, absl::StrCat(payload.size() - end,
                                                 " unexpected bytes left"));
    }
    return DataLossAt(base + payload.size(),
                      "last value block is not padded to 32 bits");
  }
  return absl::OkStatus();
}

absl::StatusOr<DecodedResult> DecodeResult(int version,
                                           std::span<const uint8_t> payload,
                                           uint64_t record_offset) {
  DecodedResult result;
  if (absl::Status s = DecodeResultInto(version, payload, record_offset, &result);
      !s.ok()) {
    return s;
  }
  return result;
}

absl::StatusOr<ResultValue> ValueFromDecoded(const DecodedValue& v,
                                             int32_t valfmt, int32_t type) {
  ResultValue out;
  out.inst = v.inst;
  if (valfmt == kValInsitu) {
    switch (type) {
      case kType32:
        out.i64 = static_cast<int32_t>(v.insitu);
        return out;
      case kTypeU32:
        out.u64 = v.insitu;
        return out;
      case kTypeFloat:  // PCP's "old style insitu" float
        out.f64 = std::bit_cast<float>(v.insitu);
        return out;
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            "instance ", v.inst, ": type ", type, " value stored INSITU"));
    }
  }
  if (valfmt != kValDptr && valfmt != kValSptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("instance ", v.inst, ": bad valfmt ", valfmt));
  }
  // A block of type 0 is taken as the descriptor's type, as libpcp's
  // pmExtractValue takes it: archives of the 1990s wrote such blocks.
  const bool type_ok =
      v.block_type == (static_cast<uint32_t>(type) & 0xff) || v.block_type == 0 ||
      (IsAggregate(type) && IsAggregate(v.block_type));
  if (!type_ok || IsInsituType(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("instance ", v.inst, ": value block of type ",
                     v.block_type, " for a metric of type ", type));
  }
  auto want_size = [&](size_t n) -> absl::Status {
    if (v.block.size() == n) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("instance ", v.inst, ": type ", type, " value block has ",
                     v.block.size(), " bytes, expected ", n));
  };
  switch (type) {
    case kType64:
    case kTypeU64:
    case kTypeDouble: {
      if (absl::Status s = want_size(8); !s.ok()) return s;
      const uint64_t bits = BlockBits64(v);
      if (type == kType64) out.i64 = static_cast<int64_t>(bits);
      if (type == kTypeU64) out.u64 = bits;
      if (type == kTypeDouble) out.f64 = std::bit_cast<double>(bits);
      return out;
    }
    case kTypeFloat:
      if (absl::Status s = want_size(4); !s.ok()) return s;
      out.f64 = std::bit_cast<float>(BlockBits32(v));
      return out;
    case kTypeString: {
      // The bytes up to the first NUL, or all of them: libpcp's
      // pmExtractValue copies the block and terminates it, so a string
      // stored without its NUL (PCP QA's value-test) reads as its bytes.
      const auto* begin = reinterpret_cast<const char*>(v.block.data());
      const auto* nul = v.block.empty()
                            ? nullptr
                            : static_cast<const char*>(std::memchr(begin, 0, v.block.size()));
      out.bytes.assign(begin, nul != nullptr ? nul : begin + v.block.size());
      return out;
    }
    default:
      out.bytes.assign(reinterpret_cast<const char*>(v.block.data()),
                       v.block.size());
      return out;
  }
}

absl::StatusOr<ValueSet> ValueSetFromDecoded(const DecodedValueSet& set,
                                             int32_t type) {
  ValueSet out;
  out.pmid = set.pmid;
  out.type = type;
  if (set.numval < 0) {
    out.error = set.numval;
    return out;
  }
  out.values.reserve(set.values.size());
  for (const DecodedValue& v : set.values) {
    absl::StatusOr<ResultValue> value = ValueFromDecoded(v, set.valfmt, type);
    if (!value.ok()) {
      return WithContext(value.status(), absl::StrCat("pmid ", set.pmid));
    }
    out.values.push_back(*std::move(value));
  }
  return out;
}

}  // namespace mmvlog::format

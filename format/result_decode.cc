#include "format/result_decode.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "format/byte_reader.h"
#include "format/errors.h"

namespace mmvlog::format {
namespace {

size_t Padded(size_t n) { return (n + 3) & ~size_t{3}; }

// A payload that ends inside a field is damage within a complete frame, not
// a torn tail (as DecodeResult reports it).
absl::Status AsDataLoss(const absl::Status& s) {
  if (s.code() != absl::StatusCode::kOutOfRange) return s;
  return absl::DataLossError(absl::StrCat(s.message(), " (record ends early)"));
}

}  // namespace

// The same checks, in the same order and with the same messages, as
// DecodeResult; what differs is where things go. Headers are read through
// ByteReader (a few words per set); a set's values are read straight from
// the bytes once the numval check has proved they are all there. Between the
// two passes a PM_VAL_DPTR value's `block` points at its own 8-byte pmValue
// (where its offset word is, and the file offset errors name), so no
// side list of block references is needed.
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
  if (numpmid < 0 ||
      static_cast<uint64_t>(numpmid) > r.remaining() / kValueSetNoValuesSize) {
    return DataLossAt(numpmid_at,
                      absl::StrCat("numpmid ", numpmid, " impossible with ",
                                   r.remaining(), " bytes left"));
  }
  out->sets.resize(numpmid);

  bool any_dptr = false;
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
    if (set.valfmt != kValInsitu && set.valfmt != kValDptr) {
      return DataLossAt(valfmt_at, absl::StrCat("pmid ", set.pmid,
                                                ": bad valfmt ", set.valfmt));
    }
    if (static_cast<uint64_t>(set.numval) > r.remaining() / kValueSize) {
      return DataLossAt(numval_at,
                        absl::StrCat("pmid ", set.pmid, ": numval ",
                                     set.numval, " impossible with ",
                                     r.remaining(), " bytes left"));
    }
    set.values.resize(set.numval);
    const uint8_t* p = r.ReadBytes(set.values.size() * kValueSize).data();
    if (set.valfmt == kValInsitu) {
      for (DecodedValue& v : set.values) {
        v.inst = static_cast<int32_t>(LoadBig32(p));
        v.insitu = LoadBig32(p + 4);
        v.block_type = 0;
        v.block = {};
        p += kValueSize;
      }
    } else {
      any_dptr = true;
      for (DecodedValue& v : set.values) {
        v.inst = static_cast<int32_t>(LoadBig32(p));
        v.insitu = 0;
        v.block = std::span<const uint8_t>(p, kValueSize);  // see above
        p += kValueSize;
      }
    }
  }
  if (!r.ok()) return AsDataLoss(r.status());

  const size_t sets_end = r.position();
  size_t end = sets_end;  // end of the last block, padded
  if (any_dptr) {
    // The word counts 32-bit units from 8 bytes before the record's length
    // field (kDptrPduBias), i.e. from 12 bytes before the payload.
    constexpr uint64_t kBias = kDptrPduBias + 4;
    const uint8_t* const data = payload.data();
    const size_t size = payload.size();
    for (DecodedValueSet& set : out->sets) {
      if (set.numval <= 0 || set.valfmt != kValDptr) continue;
      for (DecodedValue& v : set.values) {
        const uint8_t* word_at = v.block.data() + 4;
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
        end = std::max(end, Padded(pos + length));
      }
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

}  // namespace mmvlog::format

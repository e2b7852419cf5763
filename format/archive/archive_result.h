// pmResult records: the records after the label in an archive volume (.0,
// .1, ...). Normative: LOGARCHIVE(5), "ARCHIVE VOLUME RECORDS" (pmResult,
// pmValueSet, pmValue, pmValueBlock), versions 2 and 3, plus the byte-level
// facts in archive_format.h that LOGARCHIVE(5) leaves out or gets wrong
// (kDptrPduBias, kValueSetNoValuesSize, kValueBlockPadByte, IsInsituType,
// V3SecondsWordSwap), each checked
// against archives written by PCP 6.0.3.
//
// Record payload layout:
//   timestamp (v2: sec32 usec32; v3: sec64 in PCP's word order, see
//   V3SecondsWordSwap, then nsec32), numpmid,
//   numpmid pmValueSets:  pmid, numval, [valfmt, numval x (inst, value)]
//                         (valfmt and values only when numval > 0),
//   then every pmValueBlock, in value order, each padded to 32 bits.
// A record with numpmid 0 is a <mark>.
#ifndef MMVLOG_FORMAT_ARCHIVE_ARCHIVE_RESULT_H_
#define MMVLOG_FORMAT_ARCHIVE_ARCHIVE_RESULT_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/archive/archive_format.h"
#include "format/endian.h"
#include "format/archive/archive_types.h"

namespace mmvlog::format {

// One value of one instance. Which field holds the value depends on the
// type of the ValueSet it is in:
//   kType32, kType64            -> i64
//   kTypeU32, kTypeU64          -> u64
//   kTypeFloat, kTypeDouble     -> f64 (a FLOAT is stored as float)
//   kTypeString                 -> bytes, without the NUL (the encoder adds
//                                  it; the decoder strips it)
//   kTypeAggregate and others   -> bytes, raw
// The unused fields stay zero/empty.
struct ResultValue {
  int32_t inst = kInNull;
  int64_t i64 = 0;
  uint64_t u64 = 0;
  double f64 = 0;
  std::string bytes;

  bool operator==(const ResultValue&) const = default;
};

// The values of one metric.
struct ValueSet {
  uint32_t pmid = 0;
  int32_t type = kType32;  // PM_TYPE_* of the metric's descriptor
  // < 0: a PCP error code for the whole metric, stored in numval; `values`
  // must then be empty. 0 with no values: "no values".
  int32_t error = 0;
  std::vector<ResultValue> values;

  bool operator==(const ValueSet&) const = default;
};

// One sample. No sets: a <mark> record.
struct Result {
  Timestamp timestamp;  // v2 keeps microseconds: nsec is truncated
  std::vector<ValueSet> sets;

  bool operator==(const Result&) const = default;
};

// Appends the framed record for `r` to `out`, laid out as PCP 6.0.3 does:
// pmValueBlocks after all pmValueSets in value order, padded to 32 bits with
// kValueBlockPadByte, DPTR offsets per kDptrPduBias, 32-bit types INSITU
// and everything else in a block (IsInsituType).
// REQUIRES: version is 2 or 3; v2: timestamp.sec fits int32;
// timestamp.nsec < 1e9; every set has error <= 0, and no values if error
// < 0; each value fits a block (< kValueBlockMaxLength); the record fits in
// 32 bits.
void EncodeResult(int version, const Result& r, std::vector<uint8_t>* out);

// The exact number of bytes EncodeResult appends (including framing).
size_t EncodedResultSize(int version, const Result& r);

// A decoded pmValue. Spans point into the payload given to DecodeResult
// (or DecodeResultInto).
struct DecodedValue {
  int32_t inst = 0;
  uint32_t insitu = 0;     // valfmt kValInsitu: the 32-bit value
  uint8_t block_type = 0;  // valfmt kValDptr: the block's type byte
  // valfmt kValDptr: the value bytes, without the 4-byte block header and
  // without padding.
  std::span<const uint8_t> block;
};

// The bits of an 8- or 4-byte value block. A block of type 0 (archives of
// the 1990s, rewritten on little-endian hosts) is in the writer's host
// order: libpcp does not convert it from network order (its
// __ntohpmValueBlock converts by type), so pmval, pmrep and every libpcp
// client read it as the host's (PCP QA's 960624.08.17_v2: disk.all.write
// 677360 there, where pmdumplog prints the bytes in network order).
// REQUIRES: v.block.size() is 8 (BlockBits64) or 4 (BlockBits32).
inline uint64_t BlockBits64(const DecodedValue& v) {
  return v.block_type == 0 ? LoadNative<uint64_t>(v.block.data()) : LoadBig64(v.block.data());
}
inline uint32_t BlockBits32(const DecodedValue& v) {
  return v.block_type == 0 ? LoadNative<uint32_t>(v.block.data()) : LoadBig32(v.block.data());
}

struct DecodedValueSet {
  uint32_t pmid = 0;
  int32_t numval = 0;  // < 0: a PCP error code, no values
  int32_t valfmt = 0;  // kValInsitu or kValDptr; 0 when numval <= 0
  std::vector<DecodedValue> values;
};

struct DecodedResult {
  Timestamp timestamp;
  std::vector<DecodedValueSet> sets;

  bool is_mark() const { return sets.empty(); }
};

// Decodes one record payload (framing removed) of a version 2 or 3 volume.
// `record_offset` is the file offset of the record's leading length
// (Frame::offset); errors name file offsets (record_offset + 4 + position
// in the payload). The returned spans point into `payload`.
// Every count, offset and length is validated; in particular a pmValueBlock
// that lies outside the record, overlaps the pmValueSets, or has a length
// < 4, is DataLoss. Bytes after the last block (beyond its padding) are
// DataLoss too. Errors: Unimplemented (version), DataLoss (anything
// inconsistent, including a payload that ends early).
absl::StatusOr<DecodedResult> DecodeResult(int version,
                                           std::span<const uint8_t> payload,
                                           uint64_t record_offset);

// The same decoding into a caller-owned `*out`, replacing what it held and
// reusing its vectors, so a stream of records of the same shape allocates
// nothing after the first (DecodeResult is this into a fresh DecodedResult).
// The spans in `out` point into `payload`. On error `*out` holds a partial
// decoding and must not be used. Errors: as DecodeResult.
absl::Status DecodeResultInto(int version, std::span<const uint8_t> payload,
                              uint64_t record_offset, DecodedResult* out);

// Just the timestamp of one record payload (framing removed), without
// decoding the rest: for code that moves whole records (the pusher's <mark>
// at a gap, how far behind it is). Errors: Unimplemented (version),
// DataLoss (payload too short for a timestamp, sub-second part out of
// range), naming file offsets as DecodeResult does.
absl::StatusOr<Timestamp> DecodeResultTimestamp(int version,
                                                std::span<const uint8_t> payload,
                                                uint64_t record_offset);

// Converts a decoded value of a set with `valfmt` to a ResultValue for a
// metric of `type` (the ResultValue field used is as for ValueSet).
// Accepts what PCP's readers accept: a block of exactly `type` and the
// right size, INSITU for 32-bit types, and also an INSITU FLOAT (PCP's "old
// style insitu" encoding). A STRING block must end with its NUL.
// Errors: InvalidArgument when the format, block type or size does not
// match `type`.
absl::StatusOr<ResultValue> ValueFromDecoded(const DecodedValue& v,
                                             int32_t valfmt, int32_t type);

// Decodes a whole set with ValueFromDecoded (numval < 0 becomes `error`).
absl::StatusOr<ValueSet> ValueSetFromDecoded(const DecodedValueSet& set,
                                             int32_t type);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_ARCHIVE_RESULT_H_

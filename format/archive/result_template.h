// ResultTemplate: the encoded record of a result whose layout stays the same
// from sample to sample (the same metrics and instances, and values of the
// same sizes), so a recorder encodes it once and afterwards rewrites only
// the timestamp and the value bytes in place: no per-value structs, no
// re-encoding of set headers, instance numbers or block headers.
//
// Fixed-size values (numbers) always fit their slot. A STRING value fits
// its pmValueBlock while its padded size is the same (StoreString says when
// it does not: the layout changed, and a new template is needed), so a
// string that changes but keeps its length, or nearly, costs a copy.
//
// The bytes are exactly EncodeResult's for the same result (tested).
// Pure: no I/O.
#ifndef MMVLOG_FORMAT_ARCHIVE_RESULT_TEMPLATE_H_
#define MMVLOG_FORMAT_ARCHIVE_RESULT_TEMPLATE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "format/archive/archive_result.h"
#include "format/archive/archive_types.h"

namespace mmvlog::format {

// Where one value set's values live in the record: value k's bytes start at
// first + k * stride (the INSITU word, or the bytes inside the value's
// pmValueBlock), stored big-endian as the set's type says. A STRING set
// (stride 0) has its values' pmValueBlocks, header first, at blocks[k]:
// store them with StoreString.
struct ValueSlots {
  size_t first = 0;
  size_t stride = 0;
  uint32_t count = 0;
  int32_t type = kType32;
  std::vector<uint32_t> blocks;  // STRING sets only
};

// One value set of a template: the metric, its type and its instances (in
// order; kInNull for a singular metric). `error` < 0 is a set with that
// error code and no values, as in ValueSet. A STRING set gives the size of
// each value's bytes with its NUL (strlen + 1) in `sizes`, in the order of
// `instances`.
struct SetLayout {
  uint32_t pmid = 0;
  int32_t type = kType32;
  int32_t error = 0;
  std::span<const int32_t> instances;
  std::span<const uint32_t> sizes;
};

class ResultTemplate {
 public:
  // The record for `sets` with every value zero (every string that many
  // NULs), to be stored through sets(). nullopt when a set with values has a
  // type whose size can change other than STRING (AGGREGATE, EVENT...), or
  // a STRING set without a size for each value: such results are encoded
  // whole each time. REQUIRES: what EncodeResult requires.
  static std::optional<ResultTemplate> FromLayout(int version, Timestamp timestamp,
                                                  std::span<const SetLayout> sets);

  // The same for the layout of `r`, with r's values stored.
  static std::optional<ResultTemplate> Make(int version, const Result& r);

  // v2 keeps microseconds (nsec is truncated), as EncodeResult.
  void SetTimestamp(Timestamp t);

  // Stores `text` (without its NUL, which is added) as value k of STRING
  // set `set`. False, and nothing stored, when its pmValueBlock would have
  // another padded size than the one there: the record's layout changed.
  // REQUIRES: sets()[set] is a STRING set with more than k values.
  bool StoreString(size_t set, size_t k, std::span<const uint8_t> text);

  // One slot per set of the result, in order.
  const std::vector<ValueSlots>& sets() const { return sets_; }
  size_t values() const { return values_; }
  Timestamp timestamp() const { return timestamp_; }

  // The framed record, for writing; mutable for the value stores below.
  std::span<const uint8_t> record() const { return bytes_; }
  uint8_t* data() { return bytes_.data(); }

 private:
  // Stores one value of r into its slot.
  void Store(const ValueSlots& slots, size_t k, const ResultValue& v);

  int version_ = kLogVersion2;
  Timestamp timestamp_;
  std::vector<uint8_t> bytes_;
  std::vector<ValueSlots> sets_;
  size_t values_ = 0;
};

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_RESULT_TEMPLATE_H_

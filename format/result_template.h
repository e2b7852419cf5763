// ResultTemplate: the encoded record of a result whose layout stays the same
// from sample to sample (the same metrics and instances, fixed-size values),
// so a recorder encodes it once and afterwards rewrites only the timestamp
// and the value bytes in place: no per-value structs, no re-encoding of set
// headers, instance numbers or block headers.
//
// The bytes are exactly EncodeResult's for the same result (tested).
// Pure: no I/O.
#ifndef MMVLOG_FORMAT_RESULT_TEMPLATE_H_
#define MMVLOG_FORMAT_RESULT_TEMPLATE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "format/archive_result.h"
#include "format/archive_types.h"

namespace mmvlog::format {

// Where one value set's values live in the record: value k's bytes start at
// first + k * stride (the INSITU word, or the bytes inside the value's
// pmValueBlock), stored big-endian as the set's type says.
struct ValueSlots {
  size_t first = 0;
  size_t stride = 0;
  uint32_t count = 0;
  int32_t type = kType32;
};

// One value set of a template: the metric, its type and its instances (in
// order; kInNull for a singular metric). `error` < 0 is a set with that
// error code and no values, as in ValueSet.
struct SetLayout {
  uint32_t pmid = 0;
  int32_t type = kType32;
  int32_t error = 0;
  std::span<const int32_t> instances;
};

class ResultTemplate {
 public:
  // The record for `sets` with every value zero, to be stored through
  // sets(). nullopt when a set with values has a type whose size can change
  // (STRING, AGGREGATE, EVENT...): such results are encoded whole each time.
  // REQUIRES: what EncodeResult requires.
  static std::optional<ResultTemplate> FromLayout(int version, Timestamp timestamp,
                                                  std::span<const SetLayout> sets);

  // The same for the layout of `r`, with r's values stored.
  static std::optional<ResultTemplate> Make(int version, const Result& r);

  // v2 keeps microseconds (nsec is truncated), as EncodeResult.
  void SetTimestamp(Timestamp t);

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

#endif  // MMVLOG_FORMAT_RESULT_TEMPLATE_H_

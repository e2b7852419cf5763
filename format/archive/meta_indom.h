// The instance domain records of a PCP archive's .meta file: v2
// TYPE_INDOM_V2 (microsecond timestamp), v3 TYPE_INDOM (full set) and v3
// TYPE_INDOM_DELTA (the change since the previous observation).
// LOGARCHIVE(5) "METADATA FILE (.meta) RECORDS"; format/archive/archive_meta.h
// gathers every record kind and decodes a payload by its tag.
//
// Layout after the tag: timestamp (v2 or v3 form), indom, numinst, numinst
// instance ids, numinst string offsets (-1: deleted, delta records only),
// then the string table of NUL-terminated names. Pure: nothing here does I/O.
#ifndef MMVLOG_FORMAT_ARCHIVE_META_INDOM_H_
#define MMVLOG_FORMAT_ARCHIVE_META_INDOM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_types.h"
#include "format/byte_reader.h"

namespace mmvlog::format {

// One instance of an instance domain observation.
struct InDomInstance {
  int32_t inst = 0;      // >= 0; libpcp rejects negative ids
  std::string name;      // external name; empty when `deleted`
  bool deleted = false;  // delta records only: the instance has gone

  bool operator==(const InDomInstance&) const = default;
};

// An instance domain observed at `timestamp` (TYPE_INDOM_V2, TYPE_INDOM) or
// the change since the previous observation (v3 TYPE_INDOM_DELTA, `delta`):
// added instances with their names, and deleted ones. pmdumplog 6.0.3 applies
// a delta to the latest full record (the first record of an indom must be a
// full one). LOGIMPORT 6.0.3 never writes deltas: it rewrites the full set.
struct InDom {
  Timestamp timestamp;  // v2 keeps microseconds: nsec is truncated
  uint32_t indom = 0;
  bool delta = false;  // v3 TYPE_INDOM_DELTA
  std::vector<InDomInstance> instances;

  bool operator==(const InDom&) const = default;
};

// v2: TYPE_INDOM_V2 (timestamp in microseconds); v3: TYPE_INDOM, or
// TYPE_INDOM_DELTA when `indom.delta` (deleted instances: string offset -1,
// no string). Instances are written in the given order. Appends one framed
// record to `out`; on error appends nothing. InvalidArgument for a version
// other than 2 or 3, a v2 delta, a negative instance id, a deleted instance
// outside a delta or with a name, a name containing NUL, or a domain too
// large for the record's 32-bit counts.
absl::Status EncodeInDom(int version, const InDom& indom,
                         std::vector<uint8_t>* out);

// Decodes the rest of an instance domain payload from `r`, positioned after
// its tag, which is one of kInDomV2, kInDom, kInDomDelta and selects the
// layout. DataLoss (with offsets) for a sub-second field out of range, a
// count that does not fit, a negative instance id, a string offset outside
// the table (or -1 outside a delta) or a name without its NUL.
absl::StatusOr<InDom> DecodeInDomBody(MetaType tag, ByteReader& r);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_META_INDOM_H_

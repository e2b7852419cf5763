// The metric descriptor record of a PCP archive's .meta file (TYPE_DESC),
// the same in v2 and v3: a pmDesc with every name of the metric.
// LOGARCHIVE(5) "METADATA FILE (.meta) RECORDS"; format/archive/archive_meta.h
// gathers every record kind and decodes a payload by its tag.
//
// Layout after the tag: pmid, type, indom, sem, units, numnames, then per
// name its length and its bytes (no NUL). Pure: nothing here does I/O.
#ifndef MMVLOG_FORMAT_ARCHIVE_META_DESC_H_
#define MMVLOG_FORMAT_ARCHIVE_META_DESC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/archive/archive_format.h"
#include "format/byte_reader.h"

namespace mmvlog::format {

// A metric descriptor (pmDesc) with every name of the metric (TYPE_DESC).
struct Desc {
  uint32_t pmid = 0;
  int32_t type = 0;  // kType*
  uint32_t indom = kIndomNull;
  int32_t sem = 0;                 // kSem*
  uint32_t units = 0;              // pmUnits word (format/pm_units.h)
  std::vector<std::string> names;  // usually one; none shows as <noname>

  bool operator==(const Desc&) const = default;
};

// Appends one framed TYPE_DESC record to `out`; on error appends nothing.
// InvalidArgument for an empty name or one containing NUL.
absl::Status EncodeDesc(const Desc& desc, std::vector<uint8_t>* out);

// Decodes the rest of a TYPE_DESC payload from `r`, positioned after the
// tag; the reader must end with the record. Errors name file offsets (as
// `r` counts them): a name count or length that does not fit, trailing
// bytes, or the reader's own OutOfRange for a short payload (the caller,
// DecodeMetaRecord, reports that as DataLoss). A name with a NUL inside is
// cut there, as libpcp keeps it.
absl::StatusOr<Desc> DecodeDescBody(ByteReader& r);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_META_DESC_H_

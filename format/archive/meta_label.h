// The label records of a PCP archive's .meta file: v2 TYPE_LABEL_V2 and v3
// TYPE_LABEL, a timestamped group of label sets for one entity (the
// context, a domain, a cluster, an item, an indom or its instances).
// LOGARCHIVE(5) "METADATA FILE (.meta) RECORDS"; format/archive/archive_meta.h
// gathers every record kind and decodes a payload by its tag. Building a
// label set from JSON as libpcp does is format/archive/label_json.h.
//
// Layout after the tag: timestamp (v2 or v3 form), type, ident, nsets, then
// per set: inst, jsonlen, json (no NUL), nlabels (negative: a PMAPI error
// standing in for the labels), nlabels entries of kLabelEntrySize bytes.
// Pure: nothing here does I/O.
#ifndef MMVLOG_FORMAT_ARCHIVE_META_LABEL_H_
#define MMVLOG_FORMAT_ARCHIVE_META_LABEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_types.h"
#include "format/byte_reader.h"

namespace mmvlog::format {

// One label of a set: where its name and value lie in the set's json.
// Offsets count from the json's first byte; the name excludes its quotes, a
// string value includes them ({"a":"x"}: name (2,1), value (5,3)).
struct LabelEntry {
  uint16_t name_offset = 0;
  uint8_t name_length = 0;
  uint8_t flags = 0;  // label type bit | kLabelOptional | kLabelCompound
  uint16_t value_offset = 0;
  uint16_t value_length = 0;

  bool operator==(const LabelEntry&) const = default;
};

// A label set: JSONB text ({"agent":"mmv","hostname":"x"}: no whitespace,
// names sorted) and one entry per label, in name order.
struct LabelSet {
  int32_t inst = kInNull;  // the instance for kLabelInstances, else PM_IN_NULL
  std::string json;
  std::vector<LabelEntry> labels;
  // On disk, a negative label count is a PMAPI error code standing in for
  // the labels (pmGetInstancesLabels). Non-zero only with `labels` empty.
  int32_t error = 0;

  bool operator==(const LabelSet&) const = default;
};

// A timestamped group of label sets for one entity (TYPE_LABEL_V2,
// TYPE_LABEL). pmlogger writes all instance label sets of an indom in one
// record; LOGIMPORT writes one record per set.
struct LabelRecord {
  Timestamp timestamp;
  uint32_t type = 0;  // one of kLabelContext .. kLabelInstances
  // kLabelContextIdent for context labels; the domain number for domain
  // labels; PmidBuild(domain, cluster, 0) for cluster labels; the PMID for
  // item labels; the indom for indom and instances labels.
  uint32_t ident = 0;
  std::vector<LabelSet> sets;

  bool operator==(const LabelRecord&) const = default;
};

// v2: TYPE_LABEL_V2; v3: TYPE_LABEL. Sets are written as given
// (MakeLabelSet in label_json.h builds them as PCP does). Appends one framed
// record to `out`; on error appends nothing. InvalidArgument for a version
// other than 2 or 3, an unknown label type, a set whose json is too long or
// contains NUL, too many labels, an error code with labels, or entries that
// point outside the set's json.
absl::Status EncodeLabelRecord(int version, const LabelRecord& record,
                               std::vector<uint8_t>* out);

// Decodes the rest of a label payload from `r`, positioned after its tag
// (kLabelV2 or kLabel, which selects the timestamp layout). DataLoss (with
// offsets) for a sub-second field out of range, an unknown label type,
// counts or lengths that do not fit, a json with NUL, label entries outside
// the json, or trailing bytes.
absl::StatusOr<LabelRecord> DecodeLabelRecordBody(MetaType tag, ByteReader& r);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_META_LABEL_H_

// The records of a PCP archive's .meta file, versions 2 and 3: metric
// descriptors, instance domains (full, and v3 deltas), label sets and help
// text. Normative source: LOGARCHIVE(5) "METADATA FILE (.meta) RECORDS"
// (shared/spec/LOGARCHIVE.5.txt), corrected where it differs from what libpcp
// writes; format/archive_format.h records each correction with its evidence.
//
// Encoders append one framed record (length, payload, length) to a
// caller-owned buffer; DecodeMetaRecord takes one payload with the framing
// already removed (RecordScanner in archive_framing.h). Nothing here does I/O.
#ifndef MMVLOG_FORMAT_ARCHIVE_META_H_
#define MMVLOG_FORMAT_ARCHIVE_META_H_

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/archive_format.h"
#include "format/archive_types.h"

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

// Help text of a metric or an instance domain (TYPE_TEXT).
struct HelpText {
  uint32_t type = 0;  // (kTextOneLine or kTextHelp) | (kTextPmid or kTextIndom)
  uint32_t ident = 0;  // the PMID or the indom
  std::string text;    // stored with a NUL terminator; must not contain NUL

  bool operator==(const HelpText&) const = default;
};

using MetaRecord = std::variant<Desc, InDom, LabelRecord, HelpText>;

// Each encoder appends one framed record to `out`. On error nothing is
// appended. Return values: OK, or InvalidArgument when the value cannot be
// represented (a v2 delta indom, a negative instance id, a name containing
// NUL, a label set too large for its 16-bit offsets or whose entries point
// outside its json, a version other than 2 or 3, ...).

// TYPE_DESC; the same in v2 and v3.
absl::Status EncodeDesc(const Desc& desc, std::vector<uint8_t>* out);

// v2: TYPE_INDOM_V2 (timestamp in microseconds); v3: TYPE_INDOM, or
// TYPE_INDOM_DELTA when `indom.delta` (deleted instances: string offset -1,
// no string). Instances are written in the given order.
absl::Status EncodeInDom(int version, const InDom& indom,
                         std::vector<uint8_t>* out);

// v2: TYPE_LABEL_V2; v3: TYPE_LABEL. Sets are written as given; MakeLabelSet
// builds them as PCP does.
absl::Status EncodeLabelRecord(int version, const LabelRecord& record,
                               std::vector<uint8_t>* out);

// TYPE_TEXT; the same in v2 and v3.
absl::Status EncodeHelpText(const HelpText& text, std::vector<uint8_t>* out);

// Decodes one .meta payload (framing removed). `record_offset` is the file
// offset of the record's leading length field; error messages name it and
// the offset of the offending field. The record's tag selects its layout,
// so, as libpcp does, a v2 tag in a v3 archive (or the reverse) is decoded
// (pmlogcheck reports such records as "unexpected record type").
// Return values: the record; InvalidArgument if `version` is not 2 or 3;
// DataLoss (with offsets) for an unknown tag, a payload shorter or longer
// than its contents, or contents libpcp rejects or cannot use (negative
// counts, a negative instance id, a string offset outside the string table
// or a name without its NUL, offset -1 outside a delta record, too many
// labels or too long a json, label offsets outside the json, a text without
// its NUL or with an invalid type).
absl::StatusOr<MetaRecord> DecodeMetaRecord(int version,
                                            std::span<const uint8_t> payload,
                                            uint64_t record_offset);

// Builds a label set from a JSON object whose values are strings, numbers,
// true, false, null or arrays of these, as libpcp does (__pmAddLabels
// merging into a set, which is what LOGIMPORT and pmdammv do): whitespace
// outside strings removed, labels sorted by name (bytewise), each label's
// flags set to `flags` (e.g. kLabelItem | kLabelOptional), values kept as
// written (1.50 stays 1.50, "\u00e9" stays escaped). "{}" gives an empty
// set with json "{}".
// Return values: the set; InvalidArgument for malformed JSON, a name that is
// not [A-Za-z][A-Za-z0-9_]* of at most kMaxLabelNameLength bytes, a duplicate
// name, more than kMaxLabels labels, input of 65534 bytes or more or a
// result over 65531 bytes (libpcp's own limits), or a nested object (PCP 6.0.3
// flattens those into "compound" labels inconsistently: {"a":{"b":{"c":1}}}
// becomes "a.c").
absl::StatusOr<LabelSet> MakeLabelSet(int32_t inst, absl::string_view json,
                                      uint8_t flags);

// Merges JSON label objects, later objects winning per name, into one
// compact object with sorted names: {"a":1} and {"b":"x"} give
// {"a":1,"b":"x"}. No objects give "{}".
// Return values: the JSON; InvalidArgument as for MakeLabelSet (limits on
// count and length are left to MakeLabelSet).
absl::StatusOr<std::string> MergeLabelJson(
    const std::vector<std::string>& objects);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_META_H_

// Label sets from JSON as libpcp builds them (__pmAddLabels merging into a
// set, which is what LOGIMPORT and pmdammv do): a small JSON reader for
// label objects, PCP's label name rule, compaction, sorting and the entry
// offsets of each label. The records that carry label sets are
// format/meta_label.h. Pure: nothing here does I/O.
#ifndef MMVLOG_FORMAT_LABEL_JSON_H_
#define MMVLOG_FORMAT_LABEL_JSON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/meta_label.h"

namespace mmvlog::format {

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

#endif  // MMVLOG_FORMAT_LABEL_JSON_H_

// Label sets from JSON as libpcp builds them (__pmAddLabels merging into a
// set, which is what LOGIMPORT and pmdammv do): a small JSON reader for
// label objects, PCP's label name rule, compaction, sorting and the entry
// offsets of each label. The records that carry label sets are
// format/archive/meta_label.h. Pure: nothing here does I/O.
#ifndef MMVLOG_FORMAT_ARCHIVE_LABEL_JSON_H_
#define MMVLOG_FORMAT_ARCHIVE_LABEL_JSON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/archive/meta_label.h"

namespace mmvlog::format {

// How a set's json is laid out. kSorted: by name, as libpcp writes a set it
// merged the object into (pmiPutLabel and LOGIMPORT do that, as does every
// __pmAddLabels after an identifier's first). kAsWritten: in the order
// written, as libpcp keeps the first object added to an empty set
// (pmdammv's first label payload of an identifier). The entries are sorted
// by name either way.
enum class LabelOrder { kSorted, kAsWritten };

// Builds a label set from a JSON object whose values are strings, numbers,
// true, false, null, arrays of these or objects, as libpcp does: whitespace
// outside strings removed, each label's flags set to `flags` (e.g.
// kLabelItem | kLabelOptional), values kept as written (1.50 stays 1.50,
// "\u00e9" stays escaped). A nested object (PCP's "compound" label) is kept
// as written, with one entry per innermost name, flagged kLabelCompound and
// sorted under its top-level name; an empty object is a label of its own,
// value {}, flagged compound. "{}" gives an empty set with json "{}". Names
// follow PCP 7.2: a label, at any depth, whose name is not [A-Za-z0-9_]+ of
// at most kMaxLabelNameLength bytes is left out with its value, as 7.2's
// libpcp skips it (6.0.3 refused the whole object).
// Return values: the set; InvalidArgument for malformed JSON, an object
// none of whose names is valid, a duplicate name, more than kMaxLabels
// labels, input of 65534 bytes or more or a result over 65531 bytes
// (libpcp's own limits).
absl::StatusOr<LabelSet> MakeLabelSet(int32_t inst, absl::string_view json,
                                      uint8_t flags,
                                      LabelOrder order = LabelOrder::kSorted);

// Merges JSON label objects, later objects winning per name, into one
// compact object with sorted names: {"a":1} and {"b":"x"} give
// {"a":1,"b":"x"}. No objects give "{}".
// Return values: the JSON; InvalidArgument as for MakeLabelSet (limits on
// count and length are left to MakeLabelSet).
absl::StatusOr<std::string> MergeLabelJson(
    const std::vector<std::string>& objects);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_LABEL_JSON_H_

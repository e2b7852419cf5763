// The label set pmdammv builds for one identifier (a cluster, an item, an
// indom, an instance) from several MMV label payloads: libpcp's
// __pmAddLabels called once per payload, in file order, into a set that
// starts empty (PCP 7.2 labels.c l.249-326, merging with __pmMergeLabelSets
// l.892-970). Each payload is first a set of its own (MakeLabelSet, with its
// own flags). Pure: nothing here does I/O.
#ifndef MMVLOG_FORMAT_ARCHIVE_LABEL_MERGE_H_
#define MMVLOG_FORMAT_ARCHIVE_LABEL_MERGE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "format/archive/meta_label.h"

namespace mmvlog::format {

// One set is returned as it is, for instance `inst` (a nested object kept as
// written, as a first __pmAddLabels keeps it). Several are merged as libpcp
// merges them: later sets win per name, and every label is written flat, a
// compound one under its dotted name ({"item_label3":{"a":1}} then
// {"item_label3":{"b":2}} give {"item_label3.a":1,"item_label3.b":2}, as
// pmlogger records such an instance in 6.0.3 and 7.2), sorted by name
// (bytewise), each label keeping its flags (type, optional, compound).
// Where PCP's merge goes wrong this writes what it means: an object nested
// two deep merges as "a.b.c" (PCP: "a.c", at times with garbage names), a
// compound name merged a third time is written once (PCP: twice), a name
// given first as a value and then as an object keeps both (PCP: drops the
// value) (tests/pcp:label_json_oracle_test states these).
// REQUIRES: `sets` is not empty; each set as MakeLabelSet builds it.
// Return values: the set; InvalidArgument for a flattened name over
// kMaxLabelNameLength bytes, more than kMaxLabels labels, or a merged json
// over 65531 bytes (libpcp's limits).
absl::StatusOr<LabelSet> MergeLabelSets(int32_t inst, const std::vector<LabelSet>& sets);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_LABEL_MERGE_H_

// The LABELS section of a version 3 MMV file (mmv(5)): flags (one of INDOM,
// CLUSTER, ITEM, INSTANCES, maybe OPTIONAL), identity, instance and a JSON
// payload in a fixed field. Rules M15, M27, M28 of format/mmv/mmv_reader.h.
#ifndef MMVLOG_FORMAT_MMV_MMV_LABELS_H_
#define MMVLOG_FORMAT_MMV_MMV_LABELS_H_

#include "absl/status/status.h"
#include "format/mmv/mmv_file.h"
#include "format/mmv/mmv_parse.h"

namespace mmvlog::format {

// Parses the LABELS section `s` of `p->bytes` into `p->file.labels`.
// REQUIRES: ParseMmvIndoms and ParseMmvMetrics ran (labels name both).
absl::Status ParseMmvLabels(const MmvSection& s, MmvParse* p);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_MMV_LABELS_H_

// The METRICS section of an MMV file (mmv(5)): name (v1: a fixed field;
// v2, v3: in the STRINGS section), item, type, semantics, units, indom and
// help texts of each metric. Rules M15, M18, M19, M23, M29 of
// format/mmv/mmv_reader.h; a repeated item is flagged, not refused.
#ifndef MMVLOG_FORMAT_MMV_MMV_METRICS_H_
#define MMVLOG_FORMAT_MMV_MMV_METRICS_H_

#include "absl/status/status.h"
#include "format/mmv/mmv_file.h"
#include "format/mmv/mmv_parse.h"

namespace mmvlog::format {

// Parses the METRICS section `s` of `p->bytes` into `p->file.metrics`,
// filling `p->metric_at`. REQUIRES: ParseMmvIndoms ran (metrics name indoms).
absl::Status ParseMmvMetrics(const MmvSection& s, MmvParse* p);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_MMV_METRICS_H_

// Which metrics and instances a replay shows: metric names or globs as PCP's
// tools take them (a plain name also selects its subtree), the logger's own
// bookkeeping left out unless asked for, and -i's instances by external name
// or its first word (as PCP matches "1 minute" by "1").
#ifndef MMVLOG_ARCHIVER_REPLAY_SELECTION_H_
#define MMVLOG_ARCHIVER_REPLAY_SELECTION_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace mmvlog::archiver {

struct Selection {
  // Metric names or fnmatch(3) globs; none: every metric but the logger's
  // bookkeeping (pmcd.pmlogger.*, pmcd.pid, pmcd.seqnum: the prologue and
  // epilogue records), unless logger_records.
  std::vector<std::string> metrics;
  bool logger_records = false;
  // -i: only singular metrics and these instances ("" none: every instance).
  std::vector<std::string> instances;

  bool SelectsMetric(absl::string_view name) const;
  // Whether an instance named `name` (external name) is shown.
  bool SelectsInstance(absl::string_view name) const;
};

// Whether `name` is a metric of pmlogger's prologue/epilogue records.
bool IsLoggerMetric(absl::string_view name);

// Whether the external instance name `instance`, or its first word, is
// `wanted`.
bool InstanceNamed(absl::string_view instance, absl::string_view wanted);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_SELECTION_H_

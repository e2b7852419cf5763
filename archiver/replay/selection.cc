#include "archiver/replay/selection.h"

#include <fnmatch.h>

#include <algorithm>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {

bool IsLoggerMetric(absl::string_view name) {
  return absl::StartsWith(name, "pmcd.pmlogger.") || name == "pmcd.pid" || name == "pmcd.seqnum";
}

bool Selection::SelectsMetric(absl::string_view name) const {
  if (metrics.empty()) return logger_records || !IsLoggerMetric(name);
  const std::string n(name);
  for (const std::string& g : metrics) {
    if (::fnmatch(g.c_str(), n.c_str(), 0) == 0) return true;
    // A plain metric name also selects its subtree, as PCP tools do.
    if (absl::StartsWith(name, absl::StrCat(g, "."))) return true;
  }
  return false;
}

bool InstanceNamed(absl::string_view instance, absl::string_view wanted) {
  return instance == wanted || instance.substr(0, instance.find(' ')) == wanted;
}

bool Selection::SelectsInstance(absl::string_view name) const {
  return instances.empty() ||
         std::any_of(instances.begin(), instances.end(),
                     [&](const std::string& w) { return InstanceNamed(name, w); });
}

}  // namespace mmvlog::archiver

// libFuzzer target: pmlogger configurations through pmcpp -rs and the
// grammar, then resolved by LogPlan against a fixed set of metrics. The
// input is files separated by a line "%%FILE%%": the configuration first,
// then the files it may %include as "a", "b", "c", ...
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "archiver/schedule/log_plan.h"
#include "format/text/logger_config.h"
#include "format/text/pmcpp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts = absl::StrSplit(text, "%%FILE%%\n");
  if (parts.empty()) parts.emplace_back();  // an empty input splits into nothing
  std::map<std::string, std::string> files;
  for (size_t i = 1; i < parts.size() && i <= 26; ++i) {
    files[std::string(1, static_cast<char>('a' + i - 1))] = parts[i];
  }
  mmvlog::format::PmcppOptions o;
  o.load = [&files](const std::string& path) -> absl::StatusOr<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return absl::NotFoundError(path);
    return it->second;
  };
  o.include_dirs = {"dir"};
  absl::StatusOr<mmvlog::format::LoggerConfig> config =
      mmvlog::format::ParseLoggerConfigText(parts[0], "cfg", o);
  if (!config.ok()) return 0;
  using mmvlog::archiver::OfferedMetric;
  std::vector<OfferedMetric> metrics = {
      {"mmv.a.x", 1, false, {}},
      {"mmv.a.y", 2, true, {{0, "zero"}, {1, "one"}, {2, "two words"}}},
      {"mmv.b.z", 3, true, {{7, "seven"}}},
  };
  mmvlog::archiver::LogPlan plan(*config, absl::Seconds(1));
  (void)plan.Start(metrics);
  metrics.push_back({"mmv.b.later", 4, true, {{1, "one"}}});
  metrics.push_back({"mmv.later.q", 5, false, {}});
  (void)plan.Update(metrics);
  (void)plan.Describe(metrics);
  return 0;
}

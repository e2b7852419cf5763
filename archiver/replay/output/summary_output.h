// replay's default output: the archives and host, the time of the first
// and last row shown, how many samples and <mark>s (gaps), and per metric
// with values its type, semantics, units, instances and value count.
// Counts per column, whatever the length.
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_SUMMARY_OUTPUT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_SUMMARY_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

#include "archiver/replay/output.h"

namespace mmvlog::archiver {

class SummaryOutput : public Output {
 public:
  explicit SummaryOutput(std::FILE* to) : text_(to) {}

  void Begin(const ReplayHeader& header) override;
  bool TakeRow(const Row& row) override;
  absl::Status End(const ReplayEnd& end) override;

 private:
  OutputText text_;
  std::optional<format::Timestamp> first_, last_;
  uint64_t samples_ = 0, marks_ = 0;
  std::vector<uint64_t> values_;  // per column
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_SUMMARY_OUTPUT_H_

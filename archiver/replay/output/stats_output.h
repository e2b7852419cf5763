// replay -o stats: per column, over the rows shown, the minimum, mean,
// maximum and last of its numbers (counters as rates unless raw) and how
// many there were, with the units; columns with no number are left out.
// Running statistics: a few numbers per column, whatever the length.
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_STATS_OUTPUT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_STATS_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <vector>

#include "archiver/replay/output.h"

namespace mmvlog::archiver {

class StatsOutput : public Output {
 public:
  StatsOutput(std::FILE* to, int64_t max_rows) : text_(to), max_rows_(max_rows) {}

  void Begin(const ReplayHeader& header) override;
  bool TakeRow(const Row& row) override;
  absl::Status End(const ReplayEnd& end) override;

 private:
  struct Running {
    double lo = 0, hi = 0, sum = 0, last = 0;
    uint64_t n = 0;
  };
  OutputText text_;
  int64_t max_rows_;
  int64_t rows_ = 0;
  std::vector<Running> columns_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_STATS_OUTPUT_H_

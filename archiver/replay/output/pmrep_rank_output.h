// replay -2 / -3 of a pmrep metric set (pmrep --overall-rank and
// --overall-rank-alt, pmrep.py overall_ranking): no rows, but at the end,
// per metric (strings left out), the instances of the |rank| best values
// seen over the whole replay (highest when rank > 0, lowest when < 0; a
// metric without instances: its one best), each instance once. -2 prints
// a line per instance ("metric  instance  units  value", columns as wide
// as their longest text); -3 a line per metric, `metric,,"'inst1','inst2'"`.
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_RANK_OUTPUT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_RANK_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "archiver/replay/output.h"
#include "archiver/replay/output/pmrep_run_text.h"
#include "archiver/replay/pmrep_report.h"

namespace mmvlog::archiver {

class PmrepRankOutput : public Output {
 public:
  // `rank`: pmrep's -J (not 0); `delimiter`: the table's; at most
  // `max_rows` rows taken (0: all).
  // `run`: -x, the extended header first.
  PmrepRankOutput(std::FILE* to, PmrepCells cells, int64_t rank, bool alt, std::string delimiter,
                  int64_t max_rows, std::optional<PmrepRunAsked> run)
      : text_(to), cells_(std::move(cells)), rank_(rank), alt_(alt),
        delimiter_(std::move(delimiter)), max_rows_(max_rows), run_(std::move(run)) {}

  void Begin(const ReplayHeader& header) override;
  bool TakeRow(const Row& row) override;
  bool WantsEmptyRows() const override { return true; }
  absl::Status End(const ReplayEnd& end) override;

 private:
  struct Ranked {
    size_t column;  // in cells_.columns()
    std::string name;
    PmrepCell cell;
  };
  OutputText text_;
  PmrepCells cells_;
  int64_t rank_;
  bool alt_;
  std::string delimiter_;
  int64_t max_rows_;
  std::optional<PmrepRunAsked> run_;
  int64_t rows_ = 0;
  std::vector<size_t> present_;
  // Per metric shown: the best so far, best first (pmrep's all_ranked).
  std::vector<std::vector<Ranked>> best_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_RANK_OUTPUT_H_

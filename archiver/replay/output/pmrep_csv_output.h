// replay -o csv of a pmrep metric set (:SET, or compact specs): what
// `pmrep -o csv` prints (pmrep write_header_csv, write_csv). A header
// "Time" then, per column, the metric's name (and "-instance") in double
// quotes; a line per row: the time in `timefmt` (strftime; %f is the
// microseconds, as Python's), then per column the number as pmrep's
// fetchgroup converts it (pmrep_report.h) or nothing, a string in double
// quotes. Columns are separated by `delimiter`, which is replaced by a
// space in names (and by "_" in strings, when it is not white space). A
// DISCRETE metric with no value at all at a grid time repeats its last
// cells (the fetchgroup keeps them).
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_CSV_OUTPUT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_CSV_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "archiver/replay/output.h"
#include "archiver/replay/output/pmrep_run_text.h"
#include "archiver/replay/pmrep_report.h"

namespace mmvlog::archiver {

struct PmrepCsvFormat {
  bool header = true;
  std::string delimiter = ",";
  std::string timefmt = "%Y-%m-%d %H:%M:%S";
  // pmrep -k: "Host,Interval," before the header's "Time"; each row begins
  // with the host and the whole seconds since the row before (rounded; 0
  // at the first), and its time ends with the zone's UTC offset at the
  // first row, as pmrep writes it ("UTC-4", "UTC+5:30").
  bool extended = false;
  // pmrep -x: its extended header first (what the command line said of
  // the run; the rest comes from the replay's header).
  std::optional<PmrepRunAsked> run;
  // pmrep -1: each row's columns those with a value (PmrepPresentColumns),
  // the header written again when they change or every `repeat_header`
  // rows (0: only then).
  bool dynamic_header = false;
  int repeat_header = 0;
};

class PmrepCsvOutput : public Output {
 public:
  // At most `max_rows` lines after the header (0: all).
  PmrepCsvOutput(std::FILE* to, PmrepCsvFormat format, PmrepCells cells,
                 int64_t max_rows)
      : text_(to), format_(std::move(format)), cells_(std::move(cells)), max_rows_(max_rows) {}

  void Begin(const ReplayHeader& header) override;
  bool TakeRow(const Row& row) override;
  // At the records (pmrep -u), a record holding only what the formulas
  // read still gives pmrep a row (its fetch returned something).
  bool WantsEmptyRows() const override { return true; }
  absl::Status End(const ReplayEnd& end) override;
  void Flush() override { text_.Flush(); }

 private:
  OutputText text_;
  PmrepCsvFormat format_;
  PmrepCells cells_;
  int64_t max_rows_;
  int64_t rows_ = 0;
  double prev_seconds_ = 0;  // extended: the row before's time
  std::string offset_;       // extended: " UTC-4", found at the first row
  void WriteHeader(const std::vector<size_t>* shown);
  std::vector<size_t> present_, prev_present_;  // dynamic: the columns shown
  int lines_ = 0;                                // dynamic: rows since the header
  std::string line_;                             // a row's beginning
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_CSV_OUTPUT_H_

// replay of a pmrep metric set on a terminal: the table `pmrep` prints
// (pmrep's stdout output, its standard layout: write_header_stdout,
// write_stdout_std). Header lines of the columns' labels, instance names
// (when a metric has instances and instinfo) and units (unitinfo), each
// right-aligned in its column's width and cut to it; then a line a row:
// the time when asked (timefmt, left-aligned), then each cell: an integer
// that fits, a real with as many of its decimals as fit (at most the
// column's precision), "xxx" for a number too wide, "N/A" for no value, a
// string cut to the width. Every line starts with the delimiter (two
// spaces unless the set says). The header is repeated every N rows
// (repeat_header; "auto" as pmrep does without a terminal: every 24 lines
// of screen less the header's).
//
// With colxrow (the sets of sar, mpstat, pidstat ...), columns and rows
// swap as pmrep swaps them: a line per instance a row (the colxrow column
// names it, "=" for singular metrics), a column per label (metrics of one
// label share it), "~" where a metric has no such instance.
//
// pmrep's other layouts (separate and dynamic headers, extended headers,
// sorting) are not made.
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_TEXT_OUTPUT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_TEXT_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "archiver/replay/output.h"
#include "archiver/replay/output/pmrep_run_text.h"
#include "archiver/replay/pmrep_report.h"

namespace mmvlog::archiver {

struct PmrepTextFormat {
  bool header = true;
  bool unitinfo = true;
  bool instinfo = true;
  bool timestamp = false;
  std::string delimiter = "  ";
  std::string timefmt = "%H:%M:%S";
  int repeat_header = 0;  // rows between headers; 0 never; -1 "auto"
  std::optional<std::string> colxrow;  // the instance column's title
  std::optional<PmrepRunAsked> run;    // -x: the extended header first
  // -g: the columns numbered and listed ("[ 1] - disk.dev.read["sda"] -
  // count/s"), the header a line of their numbers (not with colxrow).
  bool separate_header = false;
  // -1: the columns of each row those with a value (PmrepPresentColumns),
  // the header written again when they change (not with colxrow).
  bool dynamic_header = false;
  int width_option = 0;  // -w (0: none): a row without values is "N/A" this wide
  // -6 with colxrow: the metrics (their index among those shown; true:
  // highest first) whose values order each row's instances, the others
  // after them in the order of the row before.
  std::vector<std::pair<size_t, bool>> sort_metrics;
};

class PmrepTextOutput : public Output {
 public:
  PmrepTextOutput(std::FILE* to, PmrepTextFormat format, PmrepCells cells,
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
  void WriteHeader();
  void WriteSeparateHeader();
  void WriteRow(const std::string& time, const std::vector<std::string>& cells);
  // The columns a header names: every column, or (-1) those of the row.
  size_t ShownCount() const { return format_.dynamic_header ? present_.size() : columns().size(); }
  size_t Shown(size_t k) const { return format_.dynamic_header ? present_[k] : k; }
  // Column i's instance as the header names it (-1: the fetchgroup's now).
  const std::string& ShownInstance(size_t i) const {
    return format_.dynamic_header ? cells_.InstanceName(*header_.columns, i)
                                  : columns()[i].instance;
  }
  void WriteSwapped(const std::string& time, const std::vector<std::string>& cells);
  void SortInstances(const std::vector<PmrepCell>& taken);
  std::string CellText(size_t i, const PmrepCell& cell) const;
  const std::vector<PmrepColumn>& columns() const { return cells_.columns(); }

  OutputText text_;
  PmrepTextFormat format_;
  PmrepCells cells_;
  int64_t max_rows_;
  int64_t rows_ = 0;
  int lines_ = 0;          // rows since the header
  bool repeat_auto_ = false;
  size_t time_width_ = 0;  // of a formatted time, with timestamp
  // colxrow: the labels in order, each with its metrics' columns by
  // instance name; the instance names in order ("" singular).
  struct Label {
    std::string text, unit;
    int width = 3;
    std::vector<std::vector<std::pair<std::string, size_t>>> metrics;
  };
  std::vector<Label> labels_;
  std::vector<std::string> instances_;
  int colxrow_width_ = 8;  // the instance column's
  // -1: the columns shown (present_) and those of the row before; whether
  // a row came before (the header after one is set apart by a blank line).
  std::vector<size_t> present_, prev_present_;
  bool any_row_ = false;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_TEXT_OUTPUT_H_

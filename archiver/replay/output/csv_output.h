// replay -o csv: a header line, "Time" and per column its label and, when
// it has units, " (units)"; then one line per row (a <mark> is none): the
// time, then per column its number (counters as rates unless raw; raw:
// the value exactly, integers as integers), a string as stored (quoted when
// it holds a comma, a quote or a newline), an aggregate or event array as
// JSON, or an empty cell. As pmrep -o csv: on a -t grid every grid time is
// a line, cells without a value empty, and a DISCRETE metric with no value
// at all at a grid time repeats the cells it printed last (pmrep's
// fetchgroup keeps a discrete metric's last values; PCP 7.2 can turn that
// off with PCP_DISCRETE_ONCE).
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_CSV_OUTPUT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_CSV_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "archiver/replay/output.h"

namespace mmvlog::archiver {

class CsvOutput : public Output {
 public:
  // At most `max_rows` lines after the header (0: all); `header`: print
  // the header line.
  CsvOutput(std::FILE* to, int64_t max_rows, bool header = true)
      : text_(to), max_rows_(max_rows), header_line_(header) {}

  void Begin(const ReplayHeader& header) override;
  bool TakeRow(const Row& row) override;
  absl::Status End(const ReplayEnd& end) override;
  void Flush() override { text_.Flush(); }

  // The header line, without its newline.
  static std::string HeaderLine(const ColumnSet& columns, bool raw);
  // Appends the text of cell `c` of `row` (no comma) to `out`.
  static void AppendCell(const ColumnSet& columns, const Row& row, size_t c, bool raw,
                         std::string* out);
  // Appends the cells of `row` (each with its leading comma) to `out`.
  static void AppendCells(const ColumnSet& columns, const Row& row, bool raw, std::string* out);

 private:
  OutputText text_;
  int64_t max_rows_;
  bool header_line_;
  int64_t rows_ = 0;
  std::vector<uint8_t> discrete_metric_;  // per metric
  std::vector<std::string> last_cell_;    // per column of a discrete metric: its last text
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_CSV_OUTPUT_H_

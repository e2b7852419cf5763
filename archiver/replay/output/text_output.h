// replay -o text: a table as pmval(1) prints one: the time of day with
// milliseconds ("10:05:00.250") and one column per metric and instance,
// numbers as pmval's printreal formats them (three or four significant
// digits, "1.234E+05" beyond 9999 or below 0.1), integers whole, strings
// in quotes, "?" where an instance has no value and "!" for a counter that
// went down. Counters (unless raw) are rates as pmval shows them: a time
// counter as a utilisation (seconds per second).
//
// Rows are the ones pmval prints: on a -t grid, a counter's rate needs a
// value at this grid time and the one before, so its first grid time, and
// the first after a gap, are no row (pmval's "No values available" lines,
// and the line it prints nothing for, are left out); other metrics need a
// value at the grid time. With several metrics, a row is printed when any
// of them has one. -s counts pmval's iterations: a counter's first grid
// time with a value and the one after it are one iteration.
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_TEXT_OUTPUT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_TEXT_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "archiver/replay/output.h"

namespace mmvlog::archiver {

class TextOutput : public Output {
 public:
  // At most `max_iterations` of pmval's (0: all; negative: none, as
  // pmval -s 0 prints only its header).
  TextOutput(std::FILE* to, int64_t max_iterations) : text_(to), max_(max_iterations) {}

  void Begin(const ReplayHeader& header) override;
  bool TakeRow(const Row& row) override;
  absl::Status End(const ReplayEnd& end) override;
  void Flush() override { text_.Flush(); }

  // pmval's printreal: `v` in a field `width` wide.
  static std::string RealText(double v, int width, bool counter);

 private:
  OutputText text_;
  int64_t max_;
  int64_t iterations_ = 0;
  std::vector<int> width_;        // per column
  std::vector<uint8_t> rate_;     // per metric: a counter shown as a rate
  std::vector<double> divisor_;   // per metric: a time counter's rate to a utilisation
  std::vector<uint8_t> had_;      // per metric: a value at the previous grid time
  std::vector<uint8_t> has_;
  // Per metric: a value in an earlier record since the start or the last
  // <mark> (rows at the records, pmval -U: a rate's first record is only
  // its previous value, not a line).
  std::vector<uint8_t> seen_;
  // Per column at the records: its previous number and that record's time
  // as pmtimespecToReal gives it; pmval -U rates over these doubles (CSV
  // and JSON keep RecordRows' exact rates).
  std::vector<uint8_t> rec_kind_;
  std::vector<uint64_t> rec_bits_;
  std::vector<double> rec_real_;
  // Per column, its value at the previous grid time (kNoValue: none), and
  // that time: pmval rates a grid row itself, with its own arithmetic.
  std::vector<uint8_t> prev_kind_;
  std::vector<uint64_t> prev_bits_;
  format::Timestamp prev_time_;
  // pmval's state for the first rate metric (for -s): waiting for a first
  // value, whose grid time and the next are one iteration.
  bool need_prev_ = true;
  bool pending_pair_ = false;
  int first_rate_ = -1;
  bool any_row_ = false;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_TEXT_OUTPUT_H_

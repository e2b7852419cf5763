// replay -o text: a table as pmval(1) prints one: the time of day with
// milliseconds ("10:05:00.250") and one column per metric and instance,
// numbers as pmval's printreal formats them (three or four significant
// digits, "1.234E+05" beyond 9999 or below 0.1), integers whole, strings
// in quotes, "?" where an instance has no value and "!" for a counter that
// went down. Counters (unless raw) are rates as pmval shows them: a time
// counter as a utilisation (seconds per second).
//
// Rows are the ones pmval prints, found as pmval finds them: each row (a
// -t grid time, or a record holding the metric, or a <mark>) is one of its
// fetches, and pmval's loop (pmval.c main) decides what it prints: a
// value, "No values available" (no value at a grid time, a set without
// values in a record, and a rate's first value after such a line or after
// values were shown), "Archive logging suspended" at a <mark>, or nothing
// (a rate's first value, a set holding a PCP error). A rate needs two
// consecutive fetches with values. -s counts pmval's iterations: a rate's
// first value and the fetch after it are one. With several metrics each
// keeps its own state; a row shows the metrics that print a value ("?"
// for the others), or "No values available" when none does but one says
// so, and -s follows the first metric.
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
  bool WantsEmptyRows() const override { return true; }

  // pmval's printreal: `v` in a field `width` wide.
  static std::string RealText(double v, int width, bool counter);

 private:
  // What pmval prints for one metric at one fetch.
  enum Print : uint8_t { kNothing, kValues, kNoValues, kSuspended };
  // A fetch's outcome for one metric.
  enum Fetch : uint8_t { kNone, kGotValues, kGotNoValues, kGotError, kGotMark };
  // pmval's loop state for one metric (pmval.c main and getvals).
  struct Loop {
    bool have_prev = false;  // havePrev
    bool no_values = false;  // no_values
    bool reporting = false;  // reporting
    bool second = false;     // the next fetch is the second of an iteration
    double prev_real = 0;    // the time of the value held, as a double
  };
  // Runs metric `m`'s loop on `f`; sets *starts when the fetch begins one of
  // pmval's iterations.
  Print Step(size_t m, Fetch f, bool* starts);
  // The cells of metric `m`'s columns at `row` (rates against the value held).
  void AppendCells(const Row& row, size_t m, double real_now, std::vector<std::string>* cells);

  OutputText text_;
  int64_t max_;
  int64_t iterations_ = 0;
  std::vector<int> width_;        // per column
  std::vector<uint8_t> rate_;     // per metric: a counter shown as a rate
  std::vector<double> divisor_;   // per metric: a time counter's rate to a utilisation
  std::vector<Loop> loop_;        // per metric
  // Per column, the value held as the previous one (pmval's rslt2).
  std::vector<uint8_t> prev_kind_;
  std::vector<uint64_t> prev_bits_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_TEXT_OUTPUT_H_

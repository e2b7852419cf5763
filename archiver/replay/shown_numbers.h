// How each column's number is worked out for the outputs, as RecordRows
// (at the records) and the Interpolator (on a grid) both work it out:
// whether it gets one at all (a derived metric's operand that is not
// shown is only read), whether as a rate (a counter, unless raw), and the
// rate's multiplier.
#ifndef MMVLOG_ARCHIVER_REPLAY_SHOWN_NUMBERS_H_
#define MMVLOG_ARCHIVER_REPLAY_SHOWN_NUMBERS_H_

#include <cstdint>
#include <vector>

#include "archiver/replay/columns.h"

namespace mmvlog::archiver {

struct ShownNumbers {
  // `shown` marks (nonzero) the columns shown; nullptr: every column.
  ShownNumbers(const ColumnSet& columns, bool raw, const std::vector<uint8_t>* shown);

  std::vector<uint8_t> number;    // per column: shown (as a number or a rate)
  std::vector<uint8_t> rate;      // per column: shown as a rate
  std::vector<double> multiplier;  // per column: RateMultiplier
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_SHOWN_NUMBERS_H_

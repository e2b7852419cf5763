// Rows at the recorded samples (replay without -t, as pmrep -u shows
// them): one row per record holding a chosen value, and one per <mark>;
// a record holding only a chosen metric's set without values is a row
// without values, its empty_sets saying which (pmval -U shows it).
// Counters (unless raw) are shown as a rate per second against the
// column's previous value, (v - previous) / seconds between the two, with
// no rate across a <mark> and none when the counter went down (a reset,
// never a negative or absurd rate). Keeps one value per column.
#ifndef MMVLOG_ARCHIVER_REPLAY_RECORD_ROWS_H_
#define MMVLOG_ARCHIVER_REPLAY_RECORD_ROWS_H_

#include <cstdint>
#include <vector>

#include "archiver/replay/columns.h"
#include "archiver/replay/row.h"
#include "archiver/replay/sample_stream.h"
#include "archiver/replay/shown_numbers.h"

namespace mmvlog::archiver {

class RecordRows {
 public:
  // Keeps a reference to `columns`. Counters are shown as rates unless
  // `raw`; where `shown` is given, only the columns it marks (nonzero) are
  // shown, and the others get no number or rate worked out (their kinds
  // and bits are still given: a derived metric's operands).
  // `strict_singular`: ReplayPlan::strict_singular.
  RecordRows(const ColumnSet& columns, bool raw, const std::vector<uint8_t>* shown = nullptr,
             bool strict_singular = false);

  // The row of `s`, or nullptr when it is none (no chosen value, no mark).
  // Valid until the next call.
  const Row* Take(const Sample& s);

 private:
  // Column c's rate against its previous value, into row_.
  void Rate(uint32_t c, const SampleValue& v, int64_t now_ns);

  const ColumnSet& columns_;
  bool strict_singular_ = false;
  ShownNumbers shown_;
  std::vector<uint32_t> metric_;  // per column, its metric's index
  // No column is shown as a number or rate (every one a derived metric's
  // operand): a row is then only kinds and bits.
  bool none_shown_ = false;
  // Per column, its previous value since the last <mark>.
  std::vector<uint8_t> prev_kind_;
  std::vector<uint64_t> prev_bits_;
  std::vector<int64_t> prev_ns_;
  Row row_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_RECORD_ROWS_H_

// A row of a replay, as every output takes it: a time, and per column the
// value (as recorded, or interpolated on a -t grid) and the number shown
// for it (counters as rates unless raw). A row is as wide as the ColumnSet
// and reused from row to row: memory follows the width, not the length.
#ifndef MMVLOG_ARCHIVER_REPLAY_ROW_H_
#define MMVLOG_ARCHIVER_REPLAY_ROW_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "archiver/replay/value.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {

// A metric's set in a record that holds no value (Row::empty_sets); or
// values, but none of an instance with a column (no name in the metadata:
// pmdumplog's "???"), so that the row has none of them.
enum EmptySet : uint8_t { kNotEmpty = 0, kEmptySet, kErrorSet, kUnnamedValues };

// What a cell shows as a number.
enum NumberState : uint8_t {
  kNoNumber = 0,     // no value, a string, or no rate (first sample, a gap)
  kNumber,           // numbers[c]
  kNegativeRate,     // a counter that went down: pmval shows "!", pmrep nothing
};

struct Row {
  format::Timestamp time;
  bool mark = false;  // a <mark>: a gap in the recording (record rows only)
  bool grid = false;  // a point of a -t grid
  std::vector<uint8_t> kinds;  // per column, ValueKind
  std::vector<uint64_t> bits;  // per column; kString: index in `strings`
  std::vector<std::string> strings;
  std::vector<uint8_t> shown;  // per column, NumberState
  std::vector<double> numbers;
  // Rows at the records: per metric, whether the record holds its set
  // without values (kEmptySet: numval 0; kErrorSet: a PCP error). Empty
  // elsewhere. A row with no value and no mark is one of these.
  std::vector<uint8_t> empty_sets;
  // Rows at the records where the record lists some metric's instances in
  // another order than its columns: each value's column, in the record's
  // order (libpcp's avg() sums in it, scalar() takes its first). Empty
  // elsewhere: the columns' order is the record's.
  std::vector<uint32_t> record_order;
  // Rows at the records for pmrep's outputs (RecordRows' strict_singular):
  // the numbers of singular metrics stored under an instance (archives of
  // the 1990s), kept out of the cells as pmrep's fetchgroup leaves them
  // out, for derived metrics, which libpcp computes from them.
  struct OffNull {
    uint32_t column;
    uint8_t kind;
    uint64_t bits;
  };
  std::vector<OffNull> off_null;
  // Rows at the records: values of chosen metrics' instances that have no
  // column (no indom record names them; Sample::unnamed_values), in the
  // record's order, which no output shows and derived metrics read.
  struct Unnamed {
    uint32_t metric;
    int32_t inst;
    uint8_t kind;
    uint32_t before;  // the metric's values with a column before it in the record
    uint64_t bits;    // kString: index in `strings`
  };
  std::vector<Unnamed> unnamed;

  ValueKind kind(size_t c) const { return static_cast<ValueKind>(kinds[c]); }
  bool has(size_t c) const { return kinds[c] != kNoValue; }
  absl::string_view text(size_t c) const { return strings[bits[c]]; }
  // Empties every cell of a row `width` columns wide.
  void Clear(size_t width) {
    kinds.assign(width, kNoValue);
    bits.resize(width);
    shown.assign(width, kNoNumber);
    numbers.resize(width);
    strings.clear();
    empty_sets.clear();
    record_order.clear();
    off_null.clear();
    unnamed.clear();
  }
  size_t ValueCount() const {
    size_t n = 0;
    for (uint8_t k : kinds) n += k != kNoValue;
    return n;
  }
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_ROW_H_

// Replay: reads one or more archives (ours or PCP's, v2 or v3, compressed
// volumes too) as one timeline and turns them into rows of values per
// metric and instance, with counters as rates the way pmval and pmrep show
// them: (v - previous) / seconds between the two samples. A counter that
// goes down is a reset and gives no rate (never a negative or absurd one),
// and no rate is ever computed across a <mark> record. A damaged archive
// among several is reported and skipped.
//
// The timeline is stored densely, row after row: a row holds one 9-byte
// cell (a kind byte and 8 bytes of value) per column known when it was read,
// so reading and printing cost no allocation or look-up per value. Strings
// live in one pool, referred to by index.
#ifndef MMVLOG_ARCHIVER_REPLAY_REPLAY_H_
#define MMVLOG_ARCHIVER_REPLAY_REPLAY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "format/archive_meta.h"
#include "format/archive_types.h"

namespace mmvlog::archiver {

// One value as stored: exactly one of i, u, d, s is meaningful, by kind
// (kNone: no value). Metrics of types 32 and 64 are kInt, U32 and U64
// kUint, FLOAT and DOUBLE kDouble, anything else kString (the bytes).
struct StoredValue {
  enum Kind : uint8_t { kNone = 0, kInt, kUint, kDouble, kString };
  Kind kind = kNone;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  // kString: the bytes, pointing into the Timeline's strings (valid while
  // the Timeline lives and is not changed).
  absl::string_view s;

  bool has_value() const { return kind != kNone; }
  double AsDouble() const;  // 0 for strings
  std::string Text() const;  // exact: integers in decimal, doubles shortest
};

// A (metric, instance) column.
struct Column {
  uint32_t pmid = 0;
  int32_t inst = -1;
  std::string metric;    // name
  std::string instance;  // external name, "" for singular metrics
  size_t desc = 0;       // index of the metric's descriptor in Timeline::descs
  std::string label() const { return instance.empty() ? metric : metric + "[" + instance + "]"; }
};

// One record: a sample or a <mark>. Its cells are cells [first, first +
// width) of the Timeline, for columns 0 .. width - 1; columns added later
// have no value in it.
struct Row {
  format::Timestamp time;
  bool mark = false;  // a <mark>: a gap in the recording
  size_t first = 0;
  size_t width = 0;
};

struct Timeline {
  std::string host;
  std::vector<std::string> archives;  // in time order
  std::vector<std::string> problems;  // skipped archives, torn tails
  // Archives damaged where they were being read (a bad record, a broken
  // compressed stream): what came before is in the timeline, the rest is
  // not. An error, not a warning: replay exits 1 once it has shown the rest.
  std::vector<std::string> damaged;
  std::vector<format::Desc> descs;    // every metric seen
  std::map<uint32_t, size_t> desc_of_pmid;
  // Help text of the metrics in descs, by PMID: the one-line and the long
  // text, "" where the archive has none.
  std::map<uint32_t, std::pair<std::string, std::string>> help;
  // Names of the PMIDs event records may hold as parameters: every metric
  // in the .meta of an archive with an event metric (parameters are
  // described there but have no values of their own).
  std::map<uint32_t, std::string> param_names;
  std::vector<Column> columns;
  std::vector<Row> rows;

  // The cells of all rows, row after row: each one's kind, and its value's
  // 8 bytes (int64, uint64 or the double's bits; for kString the index of
  // the string in `strings`).
  std::vector<uint8_t> kinds;
  std::vector<uint64_t> bits;
  std::vector<std::string> strings;

  const format::Desc* Desc(uint32_t pmid) const {
    auto it = desc_of_pmid.find(pmid);
    return it == desc_of_pmid.end() ? nullptr : &descs[it->second];
  }
  const format::Desc& ColumnDesc(size_t column) const { return descs[columns[column].desc]; }

  // The kind of the value of `column` in row `row` (kNone: no value).
  StoredValue::Kind Kind(size_t row, size_t column) const {
    const Row& r = rows[row];
    return column < r.width ? static_cast<StoredValue::Kind>(kinds[r.first + column])
                            : StoredValue::kNone;
  }
  bool Has(size_t row, size_t column) const { return Kind(row, column) != StoredValue::kNone; }
  // The value (kind kNone when there is none).
  StoredValue Value(size_t row, size_t column) const;
  // The number of values in row `row`.
  size_t ValueCount(size_t row) const;

  // Appends a row with no values, one cell wide per column so far.
  void AddRow(format::Timestamp time, bool mark);
  // Appends a column and returns its index. The last row, if any, gets a
  // cell for it (with no value), so the row being read can hold it.
  size_t AddColumn(Column column);
  // Sets the value of `column` in `row` (a string is copied into `strings`).
  // REQUIRES: column < rows[row].width, v.kind != kNone.
  void Set(size_t row, size_t column, const StoredValue& v);
  // The same for a number, given as its 8 bytes (see `bits`).
  // REQUIRES: as Set; kind is kInt, kUint or kDouble.
  void SetBits(size_t row, size_t column, StoredValue::Kind kind, uint64_t value_bits) {
    const size_t cell = rows[row].first + column;
    kinds[cell] = kind;
    bits[cell] = value_bits;
  }
  // Makes room for `cells` cells in all (a hint, to avoid regrowing).
  void ReserveCells(size_t cells) {
    kinds.reserve(cells);
    bits.reserve(cells);
  }
};

// Reads `names` (archives by any of their file names, or directories of
// archives) into one timeline. Only metrics matching one of `globs` become
// columns; with no globs, every metric but the logger's own bookkeeping
// (pmcd.pmlogger.*, pmcd.pid, pmcd.seqnum: the prologue and epilogue
// records), unless `logger_records`. A record with no value of a chosen
// metric is no row, as pmrep skips it. Errors only when nothing at all is
// readable.
absl::StatusOr<Timeline> ReadTimeline(const std::vector<std::string>& names,
                                      const std::vector<std::string>& globs,
                                      bool logger_records = false);

// The times of the first and last rows ReadTimeline would return, found by
// reading each end of the recording only: the first records, and the newest
// archive from its last index entries on. nullopt when that cannot be told
// so (no index, damage, no row).
struct TimelineEnds {
  format::Timestamp first;
  format::Timestamp last;
};
std::optional<TimelineEnds> ReadTimelineEnds(const std::vector<std::string>& names,
                                             const std::vector<std::string>& globs,
                                             bool logger_records = false);

// ReadTimeline for a window that starts at `from` (-S, or a grid's origin):
// each archive is entered at its last index entry before `from` (a late
// window in a big volume, compressed or not, costs what it holds, not the
// volume). The rows before `from` may be missing; every row at or after it,
// its columns in their order, and everything shown from them (rates, values
// carried onto a grid) are ReadTimeline's. Where that cannot be known from
// what was read (a column first seen late, a column with no value before
// `from`), the whole recording is read instead.
absl::StatusOr<Timeline> ReadTimelineFrom(const std::vector<std::string>& names,
                                          const std::vector<std::string>& globs, bool logger_records,
                                          format::Timestamp from);

// Whether `name` is a metric of pmlogger's prologue/epilogue records.
bool IsLoggerMetric(absl::string_view name);

// The value of `column` in row `r` for display: counters (unless `raw`) as a
// rate per second against the previous row that has the column, with no
// rate across a mark or a reset. nullopt when there is no value.
std::optional<double> NumericValue(const Timeline& t, size_t row, size_t column, bool raw);

// NumericValue for whole rows, for printing them: the same numbers, with
// what cells share (which columns are rates, the time between two rows)
// worked out once rather than per cell. Keeps a reference to `t`, which
// must outlive it and not change.
class RowNumbers {
 public:
  RowNumbers(const Timeline& t, bool raw);

  // NumericValue(t, row, c, raw) for every column c, as element c. Valid
  // until the next call. REQUIRES: row < t.rows.size().
  const std::vector<std::optional<double>>& Of(size_t row);

 private:
  const Timeline& t_;
  std::vector<uint8_t> rate_;  // per column: shown as a rate
  std::vector<std::optional<double>> values_;
};

// The timeline resampled on the grid start, start + step, ... <= end:
// instant and discrete values and strings as the last value at or before the
// grid time (what pmval -t shows), counters linearly between the samples
// either side (so rates come out per step; PCP's own counter interpolation
// differs in details, see issue 5's note); nothing across a <mark> or a
// counter reset, and a grid row after a mark is preceded by a mark row.
// REQUIRES: step > 0.
Timeline Interpolate(const Timeline& t, absl::Time start, absl::Time end, absl::Duration step);

// The same timeline with only the columns of singular metrics and of
// instances named in `names`, by external name or its first word (as PCP
// matches instance names: "1 minute" is also "1"). The names no column has
// are appended to `unmatched`.
Timeline KeepInstances(const Timeline& t, const std::vector<std::string>& names,
                       std::vector<std::string>* unmatched);

// The units of a column as shown: counters' units per second unless raw.
std::string DisplayUnits(const Timeline& t, size_t column, bool raw);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_REPLAY_H_

// Replay: reads one or more archives (ours or PCP's, v2 or v3, compressed
// volumes too) as one timeline and turns them into rows of values per
// metric and instance, with counters as rates the way pmval and pmrep show
// them: (v - previous) / seconds between the two samples. A counter that
// goes down is a reset and gives no rate (never a negative or absurd one),
// and no rate is ever computed across a <mark> record. A damaged archive
// among several is reported and skipped.
#ifndef MMVLOG_ARCHIVER_REPLAY_H_
#define MMVLOG_ARCHIVER_REPLAY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "format/archive_meta.h"
#include "format/archive_types.h"

namespace mmvlog::archiver {

// One value as stored: exactly one of the members is meaningful, by kind.
struct StoredValue {
  enum Kind { kInt, kUint, kDouble, kString } kind = kInt;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string s;
  double AsDouble() const;
  std::string Text() const;  // exact
};

// A (metric, instance) column.
struct Column {
  uint32_t pmid = 0;
  int32_t inst = -1;
  std::string metric;    // name
  std::string instance;  // external name, "" for singular metrics
  std::string label() const { return instance.empty() ? metric : metric + "[" + instance + "]"; }
};

struct Row {
  format::Timestamp time;
  bool mark = false;  // a <mark>: a gap in the recording
  std::map<size_t, StoredValue> values;  // by column index
};

struct Timeline {
  std::string host;
  std::vector<std::string> archives;  // in time order
  std::vector<std::string> problems;  // skipped archives, torn tails
  std::vector<format::Desc> descs;    // every metric seen
  std::map<uint32_t, size_t> desc_of_pmid;
  std::vector<Column> columns;
  std::vector<Row> rows;
  const format::Desc* Desc(uint32_t pmid) const {
    auto it = desc_of_pmid.find(pmid);
    return it == desc_of_pmid.end() ? nullptr : &descs[it->second];
  }
};

// Reads `names` (archives by any of their file names, or directories of
// archives) into one timeline. Only metrics matching one of `globs` (all
// when empty) become columns. Errors only when nothing at all is readable.
absl::StatusOr<Timeline> ReadTimeline(const std::vector<std::string>& names,
                                      const std::vector<std::string>& globs);

// The value of `column` in row `r` for display: counters (unless `raw`) as a
// rate per second against the previous row that has the column, with no
// rate across a mark or a reset. nullopt when there is no value.
std::optional<double> NumericValue(const Timeline& t, size_t row, size_t column, bool raw);

// The timeline resampled on the grid start, start + step, ... <= end:
// instant and discrete values and strings as the last value at or before the
// grid time (what pmval -t shows), counters linearly between the samples
// either side (so rates come out per step; PCP's own counter interpolation
// differs in details, see issue 5's note); nothing across a <mark> or a
// counter reset, and a grid row after a mark is preceded by a mark row.
// REQUIRES: step > 0.
Timeline Interpolate(const Timeline& t, absl::Time start, absl::Time end, absl::Duration step);

// The units of a column as shown: counters' units per second unless raw.
std::string DisplayUnits(const Timeline& t, size_t column, bool raw);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_H_

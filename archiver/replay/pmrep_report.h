// What pmrep shows for a metric set: its columns, in its order, each with
// the conversion pmrep's fetchgroup makes and the text rules of its output
// (pcp/pmconfig.py validate_metrics, pmrep write_csv). Policy only: the
// options and metrics come resolved (format/text/pmrep_conf.h reads the
// files, cmd/ merges them with the command line), the values come in rows.
//
// Per metric, as pmconfig.py decides: the columns are its instances (all,
// or those its spec or -i names: a number matches an instance whose name
// starts with that number, anything else is a regular expression matched
// against the whole name, in the order they are named); the units are the
// spec's, else the scale option for its dimension, else its own; a counter
// shown as a rate (not raw) has " / s" added to its units, so that the
// conversion is a rate; the number is a double unless the units are the
// metric's own and it is no rate (then its own type, truncated from the
// double the conversion made); precision from the spec, else the options;
// the value filter from the options only (limit_filter, -8/-9: a spec's
// limit field is read by pmrep but never applied, and so here too).
#ifndef MMVLOG_ARCHIVER_REPLAY_PMREP_REPORT_H_
#define MMVLOG_ARCHIVER_REPLAY_PMREP_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "archiver/replay/columns.h"
#include "archiver/replay/pmrep_instance_names.h"
#include "archiver/replay/row.h"
#include "format/archive/archive_types.h"
#include "format/text/pmrep_conf.h"

namespace mmvlog::archiver {

// pmrep's options that shape a report (pmrep.conf keys, as typed there
// or on the command line), resolved.
struct PmrepOptions {
  std::vector<format::PmrepMetric> metrics;  // [global]'s, then the sets' and the command line's
  bool header = true;
  std::string delimiter;  // "" : "," for CSV
  std::string timefmt;    // "" : "%Y-%m-%d %H:%M:%S" for CSV
  bool raw = false;         // type = raw (-r): every counter as stored
  bool raw_prefer = false;  // type_prefer = raw (-R): where the spec says nothing
  int precision = 3;
  std::optional<int> precision_force;
  std::vector<std::string> instances;  // -i: where the spec names none
  int64_t limit_filter = 0, limit_filter_force = 0;
  // rank (-J): per metric and row, only the N highest values shown (-N:
  // the lowest), after the limit filter (pmconfig.py get_ranked_results).
  int64_t rank = 0;
  // predicate (-N): metrics (comma separated) whose ranked instances are
  // the only ones shown of the other metrics of their instance domains.
  std::string predicate;
  std::string count_scale, space_scale, time_scale;
  std::string count_scale_force, space_scale_force, time_scale_force;
  bool ignore_unknown = false;
  // ignore_incompat (-I): a metric pmrep cannot show (its type, its
  // instance domain, its instances or units) left out, not refused.
  bool ignore_incompat = false;
  bool omit_flat = false;           // omit_flat (-v): metrics without instances left out
  int width = 0;                    // width (-w): where the spec names none
  std::optional<int> width_force;   // width_force (-W)
  // live_filter (-j): a metric's instances all its columns, each row's
  // values only of those whose name its instances (or -i) match then;
  // invert_filter (-n): that filter after the ranking, not before.
  bool live_filter = false, invert_filter = false;
};

// pmrep's live filter of one metric (pmconfig.py filter_instance): its
// instance patterns, each a regular expression over the whole name, or
// for a process ("PID command") the command's base name.
struct PmrepLiveFilter {
  std::vector<std::string> patterns;
  std::vector<std::regex> res;
  bool Keeps(const std::string& name) const;
};

struct PmrepColumn {
  size_t column = 0;  // in the ColumnSet
  std::string name;   // the header's "metric" or "metric-instance"
  bool rate = false;
  double scale = 1, multiplier = 1;
  int32_t type = 0;   // the number's PM_TYPE_* (DOUBLE unless kept)
  // No units text, so pmrep hands the fetchgroup no scale: a value it does
  // not rate-convert is copied whole; with one ("count", "byte"), even one
  // equal to the metric's own, the fetchgroup takes every value through a
  // double (a 64-bit integer above 2^53 rounded).
  bool unscaled = false;
  int precision = 3;
  int64_t limit = 0;  // 0: none; > 0 values below it hidden; < 0 above -limit
  bool discrete = false;
  bool string = false;
  // pmrep's terminal table (its stdout output):
  std::string label;       // the spec's, else "m.u.free" for mem.util.free
  std::string metric_name;  // the metric's (pmrep's key: its -g header names it)
  std::string instance;    // the instance's name, "" for a singular metric
  std::string unit_label;  // "Kbyte", "ms/s", "count/s" (format_metric_label)
  int width = 3;           // the spec's, else the options', else the label's; at least 3
  std::shared_ptr<const PmrepLiveFilter> live;  // -j: the metric's filter (null: none)
  size_t metric = 0;       // the shown metric it belongs to (0, 1, ... in order)
};

// The columns of `options.metrics` in `columns`. Errors: InvalidArgument
// for a metric the archives do not have ("Invalid metric NAME (Unknown
// metric name)", unless ignore_unknown), units that do not fit a metric,
// a width, precision or limit that is not an integer; NotFound when no
// column is left.
// `unbound_derived`: derived metrics whose operands the archives lack,
// which a spec naming them (or their subtree) makes pmrep refuse
// (PM_ERR_BADDERIVE).
absl::StatusOr<std::vector<PmrepColumn>> LayOutPmrepColumns(
    const PmrepOptions& options, const ColumnSet& columns,
    const std::vector<std::string>& unbound_derived = {});

// A cell as pmrep converts it: the number of column `col` at `row`, given
// the previous row (nullptr at the first) and the seconds between them;
// nullopt where pmrep shows nothing (no value, no previous value for a
// rate, a counter that went down, out of the type's range, filtered by
// the limit).
std::optional<double> PmrepNumber(const PmrepColumn& col, const Row& row, const Row* prev,
                                  double seconds);

// A string value of a metric with units (`col` not unscaled) as pmrep's
// fetchgroup gives it: read as a double (libpcp's __pmStringValue: strtod's
// whole text, not "0x" and hexadecimal digits), converted to the column's
// units, and printed back with "%.17e"; nullopt where the text is not a
// number, which pmrep shows as no value. `erange`: errno is ERANGE (set
// by a value out of range; libpcp never clears it within a fetch, so every
// value read after one fails too).
std::optional<std::string> PmrepStringThroughDouble(const PmrepColumn& col, absl::string_view text,
                                                    bool* erange);

// A cell as pmrep's fetchgroup gives it to pmrep's outputs.
struct PmrepCell {
  enum Kind : uint8_t { kNone, kNumber, kString } kind = kNone;
  double number = 0;
  // A 64-bit integer shown in its own type, unscaled (no units text) and
  // no rate: the fetchgroup copies it whole (2^64 - 1 stays so, where a
  // double would round it), its bits here.
  bool exact = false;
  uint64_t integer = 0;
  std::string text;  // kString: the value as stored
};

// The cells of each row, in the columns' order: numbers converted
// (PmrepNumber, rates against the row before), strings as stored, and a
// DISCRETE metric with no value at all at a grid time keeping its last
// cells (the fetchgroup keeps them). Shared by pmrep's CSV and table.
class PmrepCells {
 public:
  explicit PmrepCells(std::vector<PmrepColumn> columns) : columns_(std::move(columns)) {
    for (const PmrepColumn& c : columns_) any_live_ |= c.live != nullptr;
  }
  // pmrep -n: the live filter after the ranking.
  void SetInvertFilter(bool invert) { invert_ = invert; }
  const std::vector<PmrepColumn>& columns() const { return columns_; }
  // Values of instances pmrep's fetchgroup could not name are left out
  // (pmrep_instance_names.h); without it every instance is named.
  void NameInstances(std::unique_ptr<PmrepInstanceNames> names) { names_ = std::move(names); }
  // How far a fetch moves the context's time: the grid's step, 0 at the
  // records (pmrep -u). Set before the first Take.
  void SetContextStep(int64_t ns) { context_step_ns_ = ns; }
  // pmrep's rank (PmrepOptions::rank); 0: every value.
  void SetRank(int64_t rank) { rank_ = rank; }
  // pmrep's predicate (PmrepOptions::predicate) over `set`'s metrics.
  // Errors as pmrep's: a name not among the shown metrics, one without
  // instances, one of strings.
  absl::Status SetPredicate(const std::string& predicate, const ColumnSet& set);
  // The name pmrep's fetchgroup gives column `i`'s instance at the last
  // Take (its cache's; -1's header shows it), else the column's own.
  const std::string& InstanceName(const ColumnSet& set, size_t i) const;
  // The cells of `row`, a row of `set`'s columns; valid until the next call.
  const std::vector<PmrepCell>& Take(const ColumnSet& set, const Row& row);
  // After a Take: a column with column `i`'s type, precision and
  // conversion, one of the few such (a wide row's numbers read them from
  // a few columns in the cache, not from each of its own).
  const PmrepColumn& Format(size_t i) const { return columns_[conversions_[set_columns_[i].conversion]]; }

 private:
  const std::vector<PmrepCell>& Ranked(const ColumnSet& set, const std::vector<PmrepCell>& base);
  // -j: the values of `cells` whose instance the filter leaves out, blank.
  void FilterLive(const ColumnSet& set, std::vector<PmrepCell>& cells) const;
  // Ranks columns_[begin, end) (one metric's) in ranked_.
  void RankGroup(const ColumnSet& set, size_t begin, size_t end);
  std::vector<PmrepColumn> columns_;
  std::vector<PmrepCell> cells_;
  // cells_ with the values rank_ leaves out blank (cells_ keeps them: a
  // DISCRETE metric's kept cells are the fetchgroup's, not the ranked).
  std::vector<PmrepCell> ranked_;
  std::vector<PmrepCell> live_;  // -j: cells_ filtered
  bool any_live_ = false, invert_ = false;
  int64_t rank_ = 0;
  std::vector<size_t> order_;
  // Per shown metric: a predicate, its limit (taken off its columns: a
  // predicate's limit applies after ranking), and its instance domain.
  std::vector<uint8_t> predicate_;
  std::vector<int64_t> predicate_limit_;
  std::vector<uint32_t> predicate_indoms_;
  // (indom << 32 | instance) the predicates leave this row.
  absl::flat_hash_set<uint64_t> allowed_;
  std::vector<uint8_t> any_;  // per metric of the set: a value in this row
  // Per metric of the set: its last set was a PCP error (the fetchgroup's
  // status stays so, and a DISCRETE metric keeps no cells, until values come).
  std::vector<uint8_t> failed_;
  std::unique_ptr<PmrepInstanceNames> names_;
  int64_t context_step_ns_ = 0;
  std::vector<int32_t> present_;
  // Per shown metric: the names its outputs hold.
  std::vector<PmrepInstanceNames::Known> outputs_;
  // The previous row's time, kinds and values (rates read only them).
  Row prev_;
  bool have_prev_ = false;
  // What each row reads, per column, packed (built at the first Take: a
  // walk of 10,000 PmrepColumns, 256 bytes each with their texts, missed
  // the cache at every column): the column, its metric in the set and
  // among the shown, its instance, whether the metric has an instance
  // domain, and which of the distinct conversions (the first column of
  // columns_ with its rate, scale, multiplier, type, limit, precision) is
  // its.
  struct SetColumn {
    uint32_t column;
    uint32_t metric;
    uint32_t shown;
    int32_t inst;
    uint32_t conversion;
    bool indom, discrete, string;
  };
  void IndexSet(const ColumnSet& set);
  // The cells of through_double_ (strings of metrics with units) as the
  // fetchgroup converts them, in its order.
  void StringsThroughDouble(const Row& row);
  std::vector<uint32_t> through_double_;
  std::vector<SetColumn> set_columns_;
  std::vector<uint32_t> conversions_;  // index in columns_
  // The last column of each shown metric that has an instance domain,
  // last first: the metrics whose names a row fetches.
  std::vector<uint32_t> indom_lasts_;
  const ColumnSet* indexed_ = nullptr;
  size_t indexed_width_ = 0;
};

// pmrep's order of two cells with values (its rank, overall rank and sort
// metric sort by it): a string's text, else the number (an exact 64-bit
// integer as the integer Python holds); a NaN before every number.
bool PmrepValueBefore(const PmrepColumn& ca, const PmrepCell& a, const PmrepColumn& cb,
                      const PmrepCell& b);

// pmrep's dynamic header (-1): the columns of `cells` holding a value (its
// results after limits and rank), metric by metric, each metric's by
// instance number (the fetchgroup's order), into `out`.
void PmrepPresentColumns(const std::vector<PmrepColumn>& columns, const ColumnSet& set,
                         const std::vector<PmrepCell>& cells, std::vector<size_t>* out);

// The seconds between two rows as pmrep's fetchgroup takes them
// (pmtimespecSub: seconds and nanoseconds apart, summed in long double).
double PmrepSeconds(format::Timestamp before, format::Timestamp now);

// A row's time as pmrep prints it: strftime as Python's datetime does (%f
// is the microseconds).
std::string PmrepTime(const std::string& fmt, format::Timestamp t, absl::TimeZone zone);

// The text of a number as pmrep writes it to CSV: integers as integers,
// doubles with `precision` decimals, "inf", "-inf", "NaN".
std::string PmrepNumberText(const PmrepColumn& col, double v);
// The same for a cell of kNumber, exact integers as they are.
std::string PmrepNumberText(const PmrepColumn& col, const PmrepCell& cell);
// The same, appended to `out`.
void AppendPmrepNumber(const PmrepColumn& col, const PmrepCell& cell, std::string* out);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_PMREP_REPORT_H_

#include "archiver/replay/pmrep_report.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cfloat>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <regex>
#include <set>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "archiver/replay/value.h"
#include "format/archive/archive_format.h"
#include "format/pm_units.h"
#include "format/units_spec.h"

namespace mmvlog::archiver {
namespace {

bool AllDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

absl::string_view FirstWord(absl::string_view s) {
  const size_t sp = s.find(' ');
  return sp == absl::string_view::npos ? s : s.substr(0, sp);
}

// The metric's columns that `wanted` names, in pmrep's order (check_metric):
// per name, a number matches the first instance whose first word is that
// number; otherwise (or when none did) a regular expression over the whole
// name. InvalidArgument for a bad expression.
absl::StatusOr<std::vector<size_t>> ChooseInstances(const ColumnSet& set, const ReplayMetric& m,
                                                    const std::vector<std::string>& wanted) {
  std::vector<size_t> out;
  for (const std::string& r : wanted) {
    bool hit = false;
    if (AllDigits(r) && !m.columns.empty() &&
        AllDigits(FirstWord(set.columns()[m.columns[0]].instance))) {
      for (size_t c : m.columns) {
        const absl::string_view first = FirstWord(set.columns()[c].instance);
        int64_t a = 0, b = 0;
        if (absl::SimpleAtoi(first, &a) && absl::SimpleAtoi(r, &b) && a == b) {
          out.push_back(c);
          hit = true;
          break;
        }
      }
    }
    if (hit) continue;
    std::regex re;
    try {
      re = std::regex(r, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid regex '", r, "': ", e.what()));
    }
    for (size_t c : m.columns) {
      if (std::regex_match(set.columns()[c].instance, re)) out.push_back(c);
    }
  }
  return out;
}

// The units text pmrep converts to when the spec names none: the scale
// option for the metric's dimension (forced, or where the spec is silent),
// else the metric's own.
std::string UnitsText(const PmrepOptions& o, const format::PmrepMetric& spec,
                      const format::PmUnits& u) {
  const bool count = u.dim_count == 1 && u.dim_space == 0 && u.dim_time == 0;
  const bool space = u.dim_space == 1 && u.dim_count == 0 && u.dim_time == 0;
  const bool time = u.dim_time == 1 && u.dim_count == 0 && u.dim_space == 0;
  auto pick = [&](const std::string& force, const std::string& scale) -> std::string {
    if (!force.empty()) return force;
    if (!scale.empty() && spec.unit.empty()) return scale;
    return spec.unit.empty() ? format::UnitsToString(u) : spec.unit;
  };
  if (count) return pick(o.count_scale_force, o.count_scale);
  if (space) return pick(o.space_scale_force, o.space_scale);
  if (time) return pick(o.time_scale_force, o.time_scale);
  return spec.unit.empty() ? format::UnitsToString(u) : spec.unit;
}

absl::StatusOr<int64_t> SpecInteger(const std::string& text, const std::string& metric,
                                    bool non_negative) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(text, &v) || (non_negative && v < 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(non_negative ? "Non-negative integer" : "Integer", " expected: ", metric));
  }
  return v;
}

// "m.u.free" for mem.util.free: the first letter of each part but the
// last, then the last (pmconfig.py's default label).
std::string ShortLabel(const std::string& name) {
  std::vector<std::string> parts = absl::StrSplit(name, '.');
  std::string out;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!parts[i].empty()) out += parts[i][0];
    out += '.';
  }
  return out + parts.back();
}

// pmconfig.py's format_metric_label: "millisec / s" -> "ms/s".
std::string FormatUnitLabel(const std::string& label) {
  if (label.find(" / ") == std::string::npos) return label;
  return absl::StrReplaceAll(label, {{"nanosec", "ns"}, {"microsec", "us"}, {"millisec", "ms"},
                                     {"sec", "s"}, {"hour", "h"}, {" / ", "/"}});
}

bool Numeric(int32_t type) {
  return type == format::kType32 || type == format::kTypeU32 || type == format::kType64 ||
         type == format::kTypeU64 || type == format::kTypeFloat || type == format::kTypeDouble;
}

// One metric's columns (pmconfig.py's validate_metrics, one iteration).
absl::Status AddMetric(const PmrepOptions& o, const format::PmrepMetric& spec,
                       const ColumnSet& set, const ReplayMetric& m, const std::string& name,
                       std::vector<PmrepColumn>* out) {
  const format::Desc& d = m.desc;
  if (!Numeric(d.type) && d.type != format::kTypeString) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid metric ", name, " (Unknown or illegal metric type)"));
  }
  std::vector<size_t> cols = m.columns;
  if (d.indom != format::kIndomNull && cols.empty()) {
    // pmGetInDom finds no instance domain record.
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid metric ", name,
        " (PM_ERR_INDOM_LOG Instance domain identifier not defined in the PCP archive log)."));
  }
  const std::vector<std::string>& wanted = spec.instances.empty() ? o.instances : spec.instances;
  const bool indom = d.indom != format::kIndomNull && !cols.empty() &&
                     set.columns()[cols[0]].inst != -1;
  if (o.omit_flat && !indom) return absl::OkStatus();  // pmconfig.py's check_metric
  std::shared_ptr<const PmrepLiveFilter> base_live;
  if (indom && !wanted.empty() && o.live_filter) {
    // -j: every instance a column, the patterns matched at each row.
    auto live = std::make_shared<PmrepLiveFilter>();
    for (const std::string& r : wanted) {
      try {
        live->res.emplace_back(r, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid regex '", r, "': ", e.what(), "."));
      }
      live->patterns.push_back(r);
    }
    base_live = std::move(live);
  } else if (indom && !wanted.empty()) {
    absl::StatusOr<std::vector<size_t>> chosen = ChooseInstances(set, m, wanted);
    if (!chosen.ok()) return chosen.status();
    if (chosen->empty()) return absl::OkStatus();  // pmrep leaves the metric out
    cols = *std::move(chosen);
  }
  const bool string = d.type == format::kTypeString;
  bool raw = spec.type.empty() ? o.raw_prefer : spec.type == "raw";
  if (o.raw) raw = true;
  const format::PmUnits units = format::UnitsFromWord(d.units);
  std::string label = UnitsText(o, spec, units);
  if (!raw && !string && d.sem == format::kSemCounter && label.find('/') == std::string::npos) {
    label += " / s";
  }
  PmrepColumn base;
  base.live = std::move(base_live);
  base.type = format::kTypeDouble;
  if (!string) {
    absl::StatusOr<format::ScaleConversion> conv = format::ConvertToSpec(units, label);
    if (!conv.ok()) return absl::InvalidArgumentError(absl::StrCat(name, ": ", conv.status().message()));
    base.rate = conv->rate;
    base.scale = conv->scale;
    base.multiplier = conv->multiplier;
    absl::StatusOr<format::UnitsSpec> typed = format::ParseUnitsSpec(label);
    if (typed.ok() && format::UnitsToString(typed->units) == format::UnitsToString(units)) {
      base.type = d.type;
    }
    if (!raw && d.sem == format::kSemCounter) base.type = format::kTypeDouble;
    // No units text at all (a dimensionless metric shown raw): pmrep hands
    // the fetchgroup no scale (pmapi's `scale if scale else None`), and
    // the fetchgroup then rate-converts a counter whatever pmrep asked, into
    // the metric's own type (a comparison's 0/1, a constant counter).
    if (label.empty() && d.sem == format::kSemCounter) base.rate = true;
    base.unscaled = label.empty();
  } else {
    base.type = format::kTypeString;
    base.string = true;
    // With units text ("count": a string metric with units), pmrep hands
    // the fetchgroup a scale, and the fetchgroup converts the string
    // through a double (PmrepStringThroughDouble).
    base.unscaled = label.empty();
    if (!label.empty()) {
      absl::StatusOr<format::ScaleConversion> conv = format::ConvertToSpec(units, label);
      if (!conv.ok()) return absl::InvalidArgumentError(absl::StrCat(name, ": ", conv.status().message()));
      base.scale = conv->scale;
      base.multiplier = conv->multiplier;
    }
  }
  base.precision = o.precision;
  if (!spec.precision.empty()) {
    absl::StatusOr<int64_t> p = SpecInteger(spec.precision, name, false);
    if (!p.ok()) return p.status();
    base.precision = static_cast<int>(*p);
  }
  if (o.precision_force) base.precision = *o.precision_force;
  // A spec's own limit never takes effect in pmrep (pmconfig.py keeps the
  // precision in the limit's slot before reading it): the options' do.
  base.limit = o.limit_filter;
  if (o.limit_filter_force != 0) base.limit = o.limit_filter_force;
  if (string) base.limit = 0;
  base.discrete = d.sem == format::kSemDiscrete;
  base.label = spec.label.empty() ? ShortLabel(name) : spec.label;
  base.unit_label = FormatUnitLabel(label);
  int64_t width = o.width;
  if (!spec.width.empty()) {
    absl::StatusOr<int64_t> w = SpecInteger(spec.width, name, true);
    if (!w.ok()) return w.status();
    width = *w;
  }
  if (o.width_force) width = *o.width_force;
  if (width == 0) width = static_cast<int64_t>(base.label.size());
  base.width = static_cast<int>(std::max<int64_t>(width, 3));  // "xxx" must fit
  base.metric = out->empty() ? 0 : out->back().metric + 1;
  base.metric_name = name;
  for (size_t c : cols) {
    PmrepColumn col = base;
    col.column = c;
    col.name = indom ? absl::StrCat(name, "-", set.columns()[c].instance) : name;
    col.instance = indom ? set.columns()[c].instance : "";
    out->push_back(std::move(col));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<PmrepColumn>> LayOutPmrepColumns(
    const PmrepOptions& options, const ColumnSet& columns,
    const std::vector<std::string>& unbound_derived) {
  std::vector<PmrepColumn> out;
  std::set<size_t> used;  // metrics shown (pmrep ignores a metric named twice)
  for (const format::PmrepMetric& spec : options.metrics) {
    // The metrics the spec names, by any of their PMIDs' names, in
    // libpcp's walk of the namespace (a subtree lists its metrics so);
    // each under the first of its names the walk meets. A PMID shown
    // already is not shown again (pmconfig.py ignores duplicate PMIDs).
    auto named = [&](const std::string& n) {
      return n == spec.name || absl::StartsWith(n, absl::StrCat(spec.name, "."));
    };
    struct Match {
      size_t rank, metric;
      const std::string* name;
    };
    // -I: check_metric's lookup fails for them (PM_ERR_BADDERIVE), and
    // it returns, leaving them out.
    for (const std::string& n : unbound_derived) {
      if (named(n) && !options.ignore_incompat) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid metric ", n, " (PM_ERR_BADDERIVE Derived metric definition failed)."));
      }
    }
    std::vector<Match> matches;
    for (size_t i = 0; i < columns.metrics().size(); ++i) {
      const ReplayMetric& m = columns.metrics()[i];
      std::optional<Match> best;
      auto consider = [&](const std::string& n) {
        if (!named(n)) return;
        const size_t rank = columns.PmnsRank(n);
        if (!best || rank < best->rank) best = Match{rank, i, &n};
      };
      consider(m.name);
      for (const std::string& n : m.desc.names) consider(n);
      if (best) matches.push_back(*best);
    }
    std::stable_sort(matches.begin(), matches.end(),
                     [](const Match& a, const Match& b) { return a.rank < b.rank; });
    const bool found = !matches.empty();
    for (const Match& match : matches) {
      if (!used.insert(match.metric).second) continue;
      absl::Status s = AddMetric(options, spec, columns, columns.metrics()[match.metric],
                                 *match.name, &out);
      // -I: pmconfig.py's check_metric returns, and its finalizing drops
      // the metric, where they would have refused it.
      if (!s.ok() && !options.ignore_incompat) return s;
    }
    if (!found && !options.ignore_unknown && !(options.ignore_incompat && !spec.formula.empty())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid metric ", spec.name,
          spec.formula.empty() ? " (PM_ERR_NAME Unknown metric name)."
                               : " (PM_ERR_BADDERIVE Derived metric definition failed)."));
    }
  }
  if (out.empty()) return absl::NotFoundError("No matching instances found");
  return out;
}

namespace {
// PmrepNumber of column `c` converted as `col` says (PmrepCells reads the
// conversion from one column of those that share it).
std::optional<double> ConvertNumber(const PmrepColumn& col, size_t c, const Row& row,
                                    const Row* prev, double seconds) {
  const ValueKind kind = row.kind(c);
  if (kind == kNoValue || kind == kString) return std::nullopt;
  double v = NumberOf(kind, row.bits[c]);
  if (col.rate) {
    if (prev == nullptr) return std::nullopt;
    const ValueKind pk = prev->kind(c);
    if (pk == kNoValue || pk == kString) return std::nullopt;
    double delta = v - NumberOf(pk, prev->bits[c]);
    if (delta < 0) return std::nullopt;  // the fetchgroup does not unwrap by default
    delta /= std::max(seconds, 1e-9);
    v = delta;
  }
  v = v * col.scale * col.multiplier;
  switch (col.type) {
    case format::kType32:
      if (v > INT_MAX || v < INT_MIN) return std::nullopt;
      v = static_cast<double>(static_cast<int32_t>(v));
      break;
    case format::kTypeU32:
      if (v > UINT_MAX || v < 0) return std::nullopt;
      v = static_cast<double>(static_cast<uint32_t>(v));
      break;
    // libpcp's bounds are (double)LLONG_MAX and (double)ULLONG_MAX, 2^63
    // and 2^64, so exactly those pass to the cast, which x86-64 makes
    // -2^63 and 0 (a C cast there would be undefined).
    case format::kType64:
      if (v > 0x1p63 || v < -0x1p63) return std::nullopt;
      v = v == 0x1p63 ? -0x1p63 : static_cast<double>(static_cast<int64_t>(v));
      break;
    case format::kTypeU64:
      if (v > 0x1p64 || v < 0) return std::nullopt;
      v = v == 0x1p64 ? 0 : static_cast<double>(static_cast<uint64_t>(v));
      break;
    case format::kTypeFloat:
      // A FLOAT metric's own value is copied as it is (pmExtractValue of a
      // FLOAT to a FLOAT checks nothing: an infinity stays "inf"); a value
      // worked out in double is range-checked on its way back to a float.
      if (std::fabs(v) > FLT_MAX && (col.rate || col.scale != 1 || col.multiplier != 1)) {
        return std::nullopt;
      }
      v = static_cast<double>(static_cast<float>(v));
      break;
    default:
      break;
  }
  if (col.limit > 0 && v < static_cast<double>(col.limit)) return std::nullopt;
  if (col.limit < 0 && v > static_cast<double>(-col.limit)) return std::nullopt;
  return v;
}
}  // namespace

std::optional<double> PmrepNumber(const PmrepColumn& col, const Row& row, const Row* prev,
                                  double seconds) {
  return ConvertNumber(col, col.column, row, prev, seconds);
}

std::optional<std::string> PmrepStringThroughDouble(const PmrepColumn& col, absl::string_view text,
                                                    bool* erange) {
  // The C string the value holds (up to a NUL).
  const std::string buf(text.substr(0, text.find('\0')));
  // __pmStringValue to a double: after white space and a '-', "0x" and
  // hexadecimal digits only is refused (strtod would read them otherwise);
  // anything else must be all strtod's, and errno not ERANGE: which libpcp
  // never clears, so one value out of range fails those after it.
  size_t p = 0;
  while (p < buf.size() && absl::ascii_isspace(static_cast<unsigned char>(buf[p]))) ++p;
  if (p < buf.size() && buf[p] == '-') ++p;
  if (p + 1 < buf.size() && buf[p] == '0' && (buf[p + 1] == 'x' || buf[p + 1] == 'X') &&
      std::all_of(buf.begin() + static_cast<ptrdiff_t>(p) + 2, buf.end(),
                  [](char ch) { return absl::ascii_isxdigit(static_cast<unsigned char>(ch)); })) {
    return std::nullopt;
  }
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(buf.c_str(), &end);
  if (errno == ERANGE) *erange = true;
  if (*end != '\0' || *erange) return std::nullopt;
  v = v * col.scale * col.multiplier;
  // __pmStuffDoubleValue into a string.
  char out[64];
  std::snprintf(out, sizeof out, "%.17e", v);
  return std::string(out);
}

void PmrepCells::StringsThroughDouble(const Row& row) {
  // The fetchgroup's order: the metrics last added first, each one's
  // values in the fetch's order (the record's).
  std::vector<uint32_t> position(row.kinds.size(), 0);
  for (size_t k = 0; k < row.record_order.size(); ++k) position[row.record_order[k]] = k;
  std::stable_sort(through_double_.begin(), through_double_.end(), [&](uint32_t a, uint32_t b) {
    const SetColumn& x = set_columns_[a];
    const SetColumn& y = set_columns_[b];
    if (x.shown != y.shown) return x.shown > y.shown;
    return row.record_order.empty() ? x.column < y.column : position[x.column] < position[y.column];
  });
  bool erange = false;  // errno: clear at a fetch's start (as pmrep shows)
  for (uint32_t i : through_double_) {
    PmrepCell& cell = cells_[i];
    const SetColumn& sc = set_columns_[i];
    if (std::optional<std::string> t = PmrepStringThroughDouble(
            columns_[conversions_[sc.conversion]], row.text(sc.column), &erange)) {
      cell.kind = PmrepCell::kString;
      cell.text = *std::move(t);
    }
  }
}

void PmrepCells::IndexSet(const ColumnSet& set) {
  indexed_ = &set;
  indexed_width_ = set.columns().size();
  set_columns_.clear();
  conversions_.clear();
  indom_lasts_.clear();
  absl::flat_hash_map<std::tuple<bool, bool, uint64_t, uint64_t, int32_t, int64_t, int>, uint32_t>
      seen;
  for (size_t i = 0; i < columns_.size(); ++i) {
    const PmrepColumn& c = columns_[i];
    const Column& col = set.columns()[c.column];
    auto [at, added] = seen.try_emplace(
        std::make_tuple(c.rate, c.unscaled, std::bit_cast<uint64_t>(c.scale),
                        std::bit_cast<uint64_t>(c.multiplier), c.type, c.limit, c.precision),
        static_cast<uint32_t>(conversions_.size()));
    if (added) conversions_.push_back(static_cast<uint32_t>(i));
    set_columns_.push_back({static_cast<uint32_t>(c.column), static_cast<uint32_t>(col.metric),
                            static_cast<uint32_t>(c.metric), col.inst, at->second,
                            set.metrics()[col.metric].desc.indom != format::kIndomNull,
                            c.discrete, c.string});
  }
  for (size_t i = columns_.size(); i-- > 0;) {
    if (i + 1 < columns_.size() && columns_[i + 1].metric == columns_[i].metric) continue;
    if (set_columns_[i].indom) indom_lasts_.push_back(static_cast<uint32_t>(i));
  }
}

const std::vector<PmrepCell>& PmrepCells::Take(const ColumnSet& set, const Row& row) {
  if (indexed_ != &set || indexed_width_ != set.columns().size()) IndexSet(set);
  cells_.resize(columns_.size());
  any_.assign(set.metrics().size(), 0);
  for (const SetColumn& sc : set_columns_) any_[sc.metric] |= row.has(sc.column);
  failed_.resize(set.metrics().size(), 0);
  for (size_t m = 0; m < set.metrics().size(); ++m) {
    if (m < row.empty_sets.size() && row.empty_sets[m] == kUnnamedValues) any_[m] = 1;
    if (m < row.empty_sets.size() && row.empty_sets[m] == kErrorSet) {
      failed_[m] = 1;
    } else if (any_[m]) {
      failed_[m] = 0;
    }
  }
  const double seconds = have_prev_ ? PmrepSeconds(prev_.time, row.time) : 0;
  if (names_ != nullptr && !columns_.empty()) {
    // The fetchgroup takes the metrics last added first, each against the
    // cache the ones before it left.
    const int64_t context_ns =
        row.time.sec * 1000000000 + static_cast<int64_t>(row.time.nsec) + context_step_ns_;
    outputs_.resize(columns_.back().metric + 1);
    for (uint32_t i : indom_lasts_) {
      const size_t shown = set_columns_[i].shown;
      const size_t metric = set_columns_[i].metric;
      const format::Desc& desc = set.metrics()[metric].desc;
      const std::vector<size_t>& cols = set.metrics()[metric].columns;
      const bool discrete = desc.sem == format::kSemDiscrete;
      if (names_->Settled(desc.indom)) {
        if (!discrete || std::any_of(cols.begin(), cols.end(), [&](size_t k) { return row.has(k); })) {
          outputs_[shown] = names_->Current(desc.indom);
        }
        continue;
      }
      present_.clear();
      for (size_t col : cols) {
        if (row.has(col)) present_.push_back(set.columns()[col].inst);
      }
      names_->Fetch(desc.indom, discrete, present_, context_ns, &outputs_[shown]);
    }
  }
  const Row* prev = have_prev_ ? &prev_ : nullptr;
  through_double_.clear();
  for (size_t i = 0; i < set_columns_.size(); ++i) {
    const SetColumn& sc = set_columns_[i];
    PmrepCell& cell = cells_[i];
    if (sc.discrete && !any_[sc.metric] && !failed_[sc.metric]) continue;  // kept
    cell.kind = PmrepCell::kNone;
    if (failed_[sc.metric]) continue;
    if (names_ != nullptr && sc.inst >= 0 && sc.indom &&
        !PmrepInstanceNames::Named(outputs_[sc.shown], sc.inst)) {
      continue;  // no name: pmrep leaves the value out
    }
    const PmrepColumn& c = columns_[conversions_[sc.conversion]];
    if (sc.string) {
      if (row.kind(sc.column) != kString) continue;
      if (c.unscaled) {
        cell.kind = PmrepCell::kString;
        cell.text = std::string(row.text(sc.column));
      } else {
        through_double_.push_back(static_cast<uint32_t>(i));
      }
      continue;
    }
    if (std::optional<double> v = ConvertNumber(c, sc.column, row, prev, seconds)) {
      cell.kind = PmrepCell::kNumber;
      cell.number = *v;
      const ValueKind k = row.kind(sc.column);
      cell.exact = (c.type == format::kType64 || c.type == format::kTypeU64) && c.unscaled &&
                   !c.rate && c.scale == 1 && c.multiplier == 1 && (k == kInt || k == kUint);
      cell.integer = row.bits[sc.column];
    }
  }
  if (!through_double_.empty()) StringsThroughDouble(row);
  // What PmrepNumber reads of the row before: its kinds and bits (a copy
  // of every array, numbers and texts too, was a tenth of a wide replay).
  prev_.time = row.time;
  prev_.kinds = row.kinds;
  prev_.bits = row.bits;
  have_prev_ = true;
  const bool ranks = rank_ != 0 || !predicate_indoms_.empty();
  if (!any_live_) return ranks ? Ranked(set, cells_) : cells_;
  // pmconfig.py get_ranked_results: the live filter before the ranking,
  // or after it when inverted (-n).
  live_ = cells_;
  if (!invert_) {
    FilterLive(set, live_);
    return ranks ? Ranked(set, live_) : live_;
  }
  if (ranks) live_ = Ranked(set, cells_);
  FilterLive(set, live_);
  return live_;
}

void PmrepCells::FilterLive(const ColumnSet& set, std::vector<PmrepCell>& cells) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i].live == nullptr || cells[i].kind == PmrepCell::kNone) continue;
    if (set.columns()[columns_[i].column].inst < 0) continue;  // a singular value
    if (!columns_[i].live->Keeps(InstanceName(set, i))) cells[i].kind = PmrepCell::kNone;
  }
}

bool PmrepLiveFilter::Keeps(const std::string& name) const {
  // A process's command by its base name, for a pattern of letters,
  // digits and ". _ -" only (get_proc_basename).
  const size_t sp = name.find(' ');
  const bool process = sp != std::string::npos && sp > 0 &&
                       std::all_of(name.begin(), name.begin() + sp,
                                   [](char ch) { return ch >= '0' && ch <= '9'; });
  if (process) {
    std::string cmd = name.substr(sp + 1);
    cmd = cmd.substr(0, cmd.find(' '));
    if (!cmd.empty() && cmd.front() == '(') {
      cmd = cmd.size() >= 2 ? cmd.substr(1, cmd.size() - 2) : "";  // a kernel thread
    } else {
      if (!cmd.empty() && cmd.front() == '-') cmd.erase(0, 1);
      if (!cmd.empty() && cmd.back() == ':') cmd.pop_back();
      if (const size_t slash = cmd.rfind('/'); slash != std::string::npos) cmd.erase(0, slash + 1);
    }
    for (const std::string& p : patterns) {
      std::string bare;
      for (char ch : p) {
        if (ch != '.' && ch != '_' && ch != '-') bare += ch;
      }
      const bool alnum = !bare.empty() && std::all_of(bare.begin(), bare.end(), [](char ch) {
        return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
      });
      if (alnum && p == cmd) return true;
    }
  }
  for (const std::regex& re : res) {
    if (std::regex_match(name, re)) return true;
  }
  return false;
}

bool PmrepValueBefore(const PmrepColumn& ca, const PmrepCell& a, const PmrepColumn& cb,
            const PmrepCell& b) {
  if (a.kind == PmrepCell::kString || b.kind == PmrepCell::kString) return a.text < b.text;
  if (a.exact && b.exact) {
    if (ca.type == format::kType64 && cb.type == format::kType64) {
      return static_cast<int64_t>(a.integer) < static_cast<int64_t>(b.integer);
    }
    if (ca.type == format::kTypeU64 && cb.type == format::kTypeU64) return a.integer < b.integer;
  }
  // A NaN before every number: an order std::sort can keep (Python's
  // sorted() gives none for a NaN either).
  if (std::isnan(a.number) || std::isnan(b.number)) {
    return std::isnan(a.number) && !std::isnan(b.number);
  }
  return a.number < b.number;
}


const std::vector<PmrepCell>& PmrepCells::Ranked(const ColumnSet& set,
                                                  const std::vector<PmrepCell>& base) {
  // pmconfig.py get_ranked_results: each metric ranked (RankGroup); with
  // predicates, they are ranked first, then their limit applied, and a
  // metric of a predicate's instance domain keeps only the instances the
  // predicates kept there instead.
  ranked_ = base;
  auto group_end = [&](size_t begin) {
    size_t end = begin;
    while (end < columns_.size() && columns_[end].metric == columns_[begin].metric) ++end;
    return end;
  };
  auto indom_of = [&](size_t i) {
    return set.metrics()[set.columns()[columns_[i].column].metric].desc.indom;
  };
  allowed_.clear();
  auto key = [](uint32_t indom, int32_t inst) {
    return uint64_t{indom} << 32 | static_cast<uint32_t>(inst);
  };
  for (size_t begin = 0; begin < columns_.size(); begin = group_end(begin)) {
    const size_t m = columns_[begin].metric;
    if (m >= predicate_.size() || !predicate_[m]) continue;
    const size_t end = group_end(begin);
    RankGroup(set, begin, end);
    const int64_t limit = predicate_limit_[m];
    for (size_t i = begin; i < end; ++i) {
      if (ranked_[i].kind == PmrepCell::kNone) continue;
      allowed_.insert(key(indom_of(i), set.columns()[columns_[i].column].inst));
      const double v = ranked_[i].number;
      if ((limit > 0 && v < static_cast<double>(limit)) ||
          (limit < 0 && v > static_cast<double>(-limit))) {
        ranked_[i].kind = PmrepCell::kNone;
      }
    }
  }
  for (size_t begin = 0; begin < columns_.size(); begin = group_end(begin)) {
    const size_t m = columns_[begin].metric;
    if (m < predicate_.size() && predicate_[m]) continue;
    const size_t end = group_end(begin);
    const uint32_t indom = indom_of(begin);
    if (std::find(predicate_indoms_.begin(), predicate_indoms_.end(), indom) ==
        predicate_indoms_.end()) {
      RankGroup(set, begin, end);
      continue;
    }
    for (size_t i = begin; i < end; ++i) {
      if (!allowed_.contains(key(indom, set.columns()[columns_[i].column].inst))) {
        ranked_[i].kind = PmrepCell::kNone;
      }
    }
  }
  return ranked_;
}

// Its values sorted as Python's stable sorted() does (highest first for a
// positive rank, lowest for a negative one), the first |rank| kept; equal
// values in the order the fetchgroup gives them, by instance number (so at
// the records and on a grid: not the record's order, nor the domain's).
void PmrepCells::RankGroup(const ColumnSet& set, size_t begin, size_t end) {
  if (rank_ == 0) return;
  const size_t keep = static_cast<size_t>(rank_ < 0 ? -rank_ : rank_);
  order_.clear();
  for (size_t i = begin; i < end; ++i) {
    if (ranked_[i].kind != PmrepCell::kNone) order_.push_back(i);
  }
  if (order_.size() <= keep) return;
  std::sort(order_.begin(), order_.end(), [&](size_t x, size_t y) {
    const bool xy = rank_ > 0 ? PmrepValueBefore(columns_[y], ranked_[y], columns_[x], ranked_[x])
                              : PmrepValueBefore(columns_[x], ranked_[x], columns_[y], ranked_[y]);
    const bool yx = rank_ > 0 ? PmrepValueBefore(columns_[x], ranked_[x], columns_[y], ranked_[y])
                              : PmrepValueBefore(columns_[y], ranked_[y], columns_[x], ranked_[x]);
    if (xy != yx) return xy;
    const int32_t ix = set.columns()[columns_[x].column].inst;
    const int32_t iy = set.columns()[columns_[y].column].inst;
    return ix != iy ? ix < iy : x < y;
  });
  for (size_t k = keep; k < order_.size(); ++k) ranked_[order_[k]].kind = PmrepCell::kNone;
}

absl::Status PmrepCells::SetPredicate(const std::string& predicate, const ColumnSet& set) {
  if (predicate.empty()) return absl::OkStatus();
  indexed_ = nullptr;  // limits change
  const size_t shown = columns_.empty() ? 0 : columns_.back().metric + 1;
  predicate_.assign(shown, 0);
  predicate_limit_.assign(shown, 0);
  for (absl::string_view name : absl::StrSplit(predicate, ',')) {
    bool found = false;
    for (PmrepColumn& c : columns_) {
      const ReplayMetric& m = set.metrics()[set.columns()[c.column].metric];
      if (m.name != name) continue;
      if (!found) {
        if (m.desc.indom == format::kIndomNull) {
          return absl::InvalidArgumentError("Predicate metric must have instances.");
        }
        if (m.desc.type == format::kTypeString) {
          return absl::InvalidArgumentError("Predicate metric values must be numeric.");
        }
        predicate_[c.metric] = 1;
        predicate_limit_[c.metric] = c.limit;
        if (std::find(predicate_indoms_.begin(), predicate_indoms_.end(), m.desc.indom) ==
            predicate_indoms_.end()) {
          predicate_indoms_.push_back(m.desc.indom);
        }
      }
      found = true;
      c.limit = 0;  // applied after ranking
    }
    if (!found) {
      return absl::InvalidArgumentError(absl::StrCat("Predicate metric ", name, " filtered out."));
    }
  }
  return absl::OkStatus();
}

const std::string& PmrepCells::InstanceName(const ColumnSet& set, size_t i) const {
  const PmrepColumn& c = columns_[i];
  if (c.metric < outputs_.size()) {
    const int32_t inst = set.columns()[c.column].inst;
    if (const std::string* name = PmrepInstanceNames::NameOf(outputs_[c.metric], inst)) {
      return *name;
    }
  }
  return c.instance;
}

void PmrepPresentColumns(const std::vector<PmrepColumn>& columns, const ColumnSet& set,
                         const std::vector<PmrepCell>& cells, std::vector<size_t>* out) {
  out->clear();
  size_t begin = 0;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0 && columns[i].metric != columns[i - 1].metric) begin = out->size();
    if (cells[i].kind == PmrepCell::kNone) continue;
    out->push_back(i);
    // Kept in instance order as they come (an insertion: few are out of it).
    for (size_t k = out->size() - 1; k > begin; --k) {
      if (set.columns()[columns[(*out)[k - 1]].column].inst <=
          set.columns()[columns[(*out)[k]].column].inst) {
        break;
      }
      std::swap((*out)[k - 1], (*out)[k]);
    }
  }
}

double PmrepSeconds(format::Timestamp before, format::Timestamp now) {
  // As pmtimespecSub: the seconds' difference and the nanoseconds' (which
  // may be negative) summed in long double, rounded once to double.
  const int64_t nsec = static_cast<int64_t>(now.nsec) - static_cast<int64_t>(before.nsec);
  return static_cast<double>(static_cast<double>(now.sec - before.sec) +
                             static_cast<long double>(nsec) / 1000000000.0L);
}

std::string PmrepTime(const std::string& fmt, format::Timestamp t, absl::TimeZone zone) {
  std::string f = fmt;
  if (f.find("%f") != std::string::npos) {
    f = absl::StrReplaceAll(f, {{"%f", absl::StrFormat("%06d", t.nsec / 1000)}});
  }
  return absl::FormatTime(f, absl::FromUnixSeconds(t.sec), zone);
}

void AppendPmrepNumber(const PmrepColumn& col, const PmrepCell& cell, std::string* out) {
  if (cell.exact) {
    if (col.type == format::kType64) {
      absl::StrAppend(out, static_cast<int64_t>(cell.integer));
    } else {
      absl::StrAppend(out, cell.integer);
    }
    return;
  }
  const double v = cell.number;
  switch (col.type) {
    case format::kType32:
    case format::kType64:
      absl::StrAppend(out, static_cast<int64_t>(v));
      return;
    case format::kTypeU32:
    case format::kTypeU64:
      absl::StrAppend(out, static_cast<uint64_t>(v));
      return;
    default:
      break;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "inf" : "-inf");
    return;
  }
  if (std::isnan(v)) {
    out->append("NaN");
    return;
  }
  // printf's "%.*f" (std::to_chars gives the same digits, correctly
  // rounded, ties to even, without printf's cost: most of a wide set's
  // replay was printf): the largest double has 309 digits.
  const int precision = col.precision < 0 ? 6 : col.precision;  // printf's default
  char buf[352];
  if (precision <= 32) {
    out->append(buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, precision).ptr);
    return;
  }
  std::string wide(312 + static_cast<size_t>(precision), '\0');
  wide.resize(std::to_chars(wide.data(), wide.data() + wide.size(), v, std::chars_format::fixed,
                            precision).ptr - wide.data());
  out->append(wide);
}

std::string PmrepNumberText(const PmrepColumn& col, const PmrepCell& cell) {
  std::string out;
  AppendPmrepNumber(col, cell, &out);
  return out;
}

std::string PmrepNumberText(const PmrepColumn& col, double v) {
  PmrepCell cell;
  cell.kind = PmrepCell::kNumber;
  cell.number = v;
  return PmrepNumberText(col, cell);
}

}  // namespace mmvlog::archiver

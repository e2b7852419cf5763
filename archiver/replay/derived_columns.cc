#include "archiver/replay/derived_columns.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/pm_units.h"

namespace mmvlog::archiver {
namespace {

// A number's bits of `kind` (kUint, kInt or kDouble) as libpcp's derived
// metrics hold it.
long double NumberOfBits(ValueKind kind, uint64_t bits) {
  if (kind == kUint) return static_cast<long double>(bits);
  if (kind == kInt) return static_cast<long double>(static_cast<int64_t>(bits));
  return std::bit_cast<double>(bits);
}

uint64_t InstKey(uint32_t indom, int32_t inst) {
  return (static_cast<uint64_t>(indom) << 32) | static_cast<uint32_t>(inst);
}

// The metric names a tree reads values of.
void Operands(const format::DeriveNode& n, std::vector<std::string>* out) {
  switch (n.op) {
    case format::DeriveOp::kName:
    case format::DeriveOp::kAvg:
    case format::DeriveOp::kCount:
    case format::DeriveOp::kMax:
    case format::DeriveOp::kMin:
    case format::DeriveOp::kSum:
      out->push_back(n.text);
      break;
    default:
      break;
  }
  for (const auto& a : n.args) Operands(*a, out);
}

bool Chooses(const std::vector<std::string>& names, const std::string& metric) {
  Selection s;
  s.metrics = names;
  return s.SelectsMetric(metric);
}

// The operand metrics node `n` names (m in `by_name`), into `out`.
void ReadsOf(const format::DeriveNode& n, const absl::flat_hash_map<std::string, size_t>& by_name,
             std::vector<size_t>& out) {
  if (n.op == format::DeriveOp::kName) {
    if (auto it = by_name.find(n.text); it != by_name.end()) out.push_back(it->second);
  }
  for (const auto& a : n.args) ReadsOf(*a, by_name, out);
}

// The order of a metric's instances in libpcp's interpolated result
// (interp.c): a hash of the instances pmGetInDomArchive lists (`columns`'
// order), with as many buckets as instances, each added at the head of its
// bucket's chain, walked bucket by bucket. avg() sums in it (in float, so
// the order shows in the last bits) and scalar() takes its first, on a
// grid; at a record, libpcp keeps the record's order.
std::vector<size_t> InterpolatedOrder(const std::vector<size_t>& columns,
                                      const std::vector<Column>& all) {
  const size_t buckets = columns.size();
  std::vector<size_t> order(columns.rbegin(), columns.rend());  // the later first in a chain
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return static_cast<uint32_t>(all[a].inst) % buckets <
           static_cast<uint32_t>(all[b].inst) % buckets;
  });
  return order;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DerivedColumns>> DerivedColumns::Prepare(
    const std::vector<format::DerivedDefinition>& defs, const ArchiveSet& archives,
    const Selection& user, const DeriveRules& rules) {
  auto out = std::unique_ptr<DerivedColumns>(new DerivedColumns());
  format::DeriveLookup lookup = [&](const std::string& name) -> std::optional<format::DeriveDesc> {
    for (const ArchiveEntry& a : archives.archives()) {
      const ArchiveMetadata& meta = a.catalog->meta;
      auto it = meta.pmid_by_name.find(name);
      if (it == meta.pmid_by_name.end()) continue;
      if (const format::Desc* d = meta.Desc(it->second)) {
        format::PmUnits units = format::UnitsFromWord(d->units);
        if (!rules.extra_units) units.extra_unit = units.extra_scale = 0;
        return format::DeriveDesc{d->type, d->sem, units, d->indom};
      }
    }
    return std::nullopt;
  };
  std::vector<std::string> operands;
  std::set<std::string> defined;  // the first definition of a name wins (pmLookupName finds it)
  for (const format::DerivedDefinition& def : defs) {
    if (def.optional && user.metrics.empty()) continue;
    if (!user.metrics.empty() && !Chooses(user.metrics, def.name)) continue;
    if (defined.count(def.name) != 0) continue;
    // A name the archives have is theirs: pmrep registers a definition
    // only where pmLookupName fails.
    if (lookup(def.name).has_value()) continue;
    auto d = std::make_unique<Derived>();
    d->name = def.name;
    d->expr = def.expr;
    d->parse = format::ParseDerived(def.expr);
    if (def.optional && d->parse.error.has_value()) continue;
    if (d->parse.error.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(def.where, ": derived metric ", def.name, ": syntax error\n",
                       format::FormatDeriveSyntaxError(def.expr, *d->parse.error)));
    }
    d->check = format::CheckDerived(*d->parse.tree, lookup, rules.lazy_ternary);
    if (def.optional && d->check.bound == nullptr) {
      out->unbound_.push_back(def.name);
      continue;
    }
    if (d->check.bound == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          def.where, ": Semantic error: derived metric ", def.name, ": ", d->check.error));
    }
    d->eval = std::make_unique<format::DeriveEvaluator>(*d->check.bound, &out->shared_);
    Operands(*d->parse.tree, &operands);
    defined.insert(def.name);
    out->derived_.push_back(std::move(d));
  }
  std::erase_if(out->unbound_, [&](const std::string& n) { return defined.count(n) != 0; });
  out->all_raw_ = user.metrics.empty();
  for (const std::string& name : user.metrics) {
    // A subtree or pattern may hold derived and archive metrics both
    // (kernel: kernel.cpu.util.* and kernel.percpu.*): only a derived
    // metric's own name is not looked for in the archives.
    bool derived = false;
    for (const auto& d : out->derived_) derived |= name == d->name;
    if (!derived) out->raw_names_.push_back(name);
  }
  out->operand_selection_ = user;
  if (!out->all_raw_) {
    out->operand_selection_.metrics = out->raw_names_;
    for (const std::string& o : operands) out->operand_selection_.metrics.push_back(o);
    // Constants only: libpcp fetches no metric, and an archive's fetch
    // then steps through every record, the logger's prologue too (its
    // only record in some archives).
    if (out->operand_selection_.metrics.empty()) out->operand_selection_.logger_records = true;
  }
  return out;
}

void DerivedColumns::Bind(const ColumnSet& operands) {
  std::vector<ReplayMetric> metrics;
  std::vector<Column> columns;
  raw_source_.clear();
  raw_metric_source_.clear();
  for (size_t m = 0; m < operands.metrics().size(); ++m) {
    const ReplayMetric& om = operands.metrics()[m];
    operand_metric_[om.name] = m;
    for (const std::string& alias : om.desc.names) operand_metric_.try_emplace(alias, m);
    for (size_t c : om.columns) {
      instance_name_[InstKey(om.desc.indom, operands.columns()[c].inst)] =
          operands.columns()[c].instance;
    }
    // Shown under the name it was asked by (an operand may have come first
    // by another of its PMID's names).
    std::string shown_as = om.name;
    if (!all_raw_) {
      shown_as.clear();
      for (const std::string& n : om.desc.names.empty() ? std::vector<std::string>{om.name}
                                                         : om.desc.names) {
        if (!raw_names_.empty() && Chooses(raw_names_, n)) {
          shown_as = n;
          break;
        }
      }
      if (shown_as.empty()) continue;
    }
    ReplayMetric sm = om;
    sm.name = shown_as;
    sm.columns.clear();
    for (size_t c : om.columns) {
      Column col = operands.columns()[c];
      col.metric = metrics.size();
      sm.columns.push_back(columns.size());
      raw_source_.push_back(c);
      columns.push_back(std::move(col));
    }
    raw_metric_source_.push_back(m);
    metrics.push_back(std::move(sm));
  }
  uint32_t item = 0;
  for (const auto& d : derived_) {
    const format::DeriveDesc& desc = d->check.bound->desc;
    ReplayMetric dm;
    dm.name = d->name;
    // PCP's derived metrics' PMIDs: domain 511, cluster 0, item 1...
    dm.desc.pmid = (511u << 22) | ++item;
    dm.desc.type = desc.type;
    dm.desc.sem = desc.sem;
    dm.desc.indom = desc.indom;
    dm.desc.units = format::UnitsToWord(desc.units);
    dm.desc.names = {d->name};
    dm.oneline = d->expr;
    d->metric = metrics.size();
    d->column_of_inst.clear();
    d->column_at.clear();
    d->reads.clear();
    ReadsOf(*d->check.bound->node, operand_metric_, d->reads);
    auto add = [&](int32_t inst, const std::string& instance) {
      if (d->column_of_inst.contains(inst)) return;
      d->column_of_inst[inst] = columns.size();
      dm.columns.push_back(columns.size());
      columns.push_back({dm.desc.pmid, inst, d->metric, instance});
    };
    if (desc.indom == format::kIndomNull) {
      add(-1, "");
    } else {
      // Its instances: those of the operands over its instance domain.
      for (const ReplayMetric& om : operands.metrics()) {
        if (om.desc.indom != desc.indom) continue;
        for (size_t c : om.columns) add(operands.columns()[c].inst, operands.columns()[c].instance);
      }
    }
    metrics.push_back(std::move(dm));
  }
  shown_ = ColumnSet::Compose(std::move(metrics), std::move(columns), operands);
  prev_has_.assign(shown_.size(), 0);
  prev_value_.assign(shown_.size(), 0);
  prev_time_.assign(shown_.size(), 0);
}

std::vector<uint8_t> DerivedColumns::ShownOperands(size_t operand_columns) const {
  std::vector<uint8_t> shown(operand_columns, 0);
  for (size_t from : raw_source_) {
    if (from < shown.size()) shown[from] = 1;
  }
  return shown;
}

const Row::OffNull* DerivedColumns::OffNullOf(const Row& in, const std::vector<size_t>& columns) {
  if (in.off_null.empty() || columns.size() != 1) return nullptr;
  for (const Row::OffNull& o : in.off_null) {
    if (o.column == columns[0]) return &o;
  }
  return nullptr;
}

void DerivedColumns::MarkUnnamed(const Derived& d, const Row& in) {
  if (in.empty_sets.empty()) return;
  for (size_t m : d.reads) {
    if (in.empty_sets[m] != kUnnamedValues) continue;
    row_.empty_sets.resize(shown_.metrics().size(), kNotEmpty);
    row_.empty_sets[d.metric] = kUnnamedValues;
    return;
  }
}

const std::vector<size_t>& DerivedColumns::OperandOrder(const ColumnSet& operands, const Row& in,
                                                        size_t m) {
  const std::vector<size_t>& own = operands.metrics()[m].columns;
  if (in.grid) return operand_grid_same_[m] ? own : operand_grid_order_[m];
  const bool unnamed = std::any_of(in.unnamed.begin(), in.unnamed.end(),
                                   [m](const Row::Unnamed& u) { return u.metric == m; });
  if (in.record_order.empty() && !unnamed) return own;
  std::vector<size_t>& order = operand_record_order_;
  order.clear();
  if (in.record_order.empty()) {
    order = own;
  } else {
    for (uint32_t c : in.record_order) {
      if (operands.columns()[c].metric == m) order.push_back(c);
    }
  }
  if (!unnamed) return order;
  // The values without a column where the record had them, as past-the-end
  // columns (ValueAt).
  std::vector<size_t>& merged = operand_merged_order_;
  merged.clear();
  const size_t width = operands.size();
  size_t u = 0, named = 0;
  auto take_unnamed = [&](bool all) {
    for (; u < in.unnamed.size(); ++u) {
      if (in.unnamed[u].metric != m) continue;
      if (!all && in.unnamed[u].before > named) break;
      merged.push_back(width + u);
    }
  };
  for (size_t c : order) {
    if (in.has(c)) {
      take_unnamed(false);
      ++named;
    }
    merged.push_back(c);
  }
  take_unnamed(true);
  return merged;
}

DerivedColumns::Operand DerivedColumns::ValueAt(const ColumnSet& operands, const Row& in, size_t c) {
  if (c < operands.size()) {
    return {in.kind(c), in.bits[c], operands.columns()[c].inst};
  }
  const Row::Unnamed& u = in.unnamed[c - operands.size()];
  return {static_cast<ValueKind>(u.kind), u.bits, u.inst};
}

// One piece: a row in, a row out, in the order its cells are filled (raw
// copies, the mark, each derived metric's values and rates).
const Row& DerivedColumns::Project(const ColumnSet& operands, const Row& in, bool raw) {
  row_.Clear(shown_.size());
  row_.time = in.time;
  row_.mark = in.mark;
  row_.grid = in.grid;
  if (!in.empty_sets.empty()) {
    row_.empty_sets.assign(shown_.metrics().size(), kNotEmpty);
    for (size_t i = 0; i < raw_metric_source_.size(); ++i) {
      row_.empty_sets[i] = in.empty_sets[raw_metric_source_[i]];
    }
  }
  for (size_t c = 0; c < raw_source_.size(); ++c) {
    const size_t from = raw_source_[c];
    row_.kinds[c] = in.kinds[from];
    row_.bits[c] = in.bits[from];
    if (in.kinds[from] == kString) {
      row_.bits[c] = row_.strings.size();
      row_.strings.emplace_back(in.text(from));
    }
    row_.shown[c] = in.shown[from];
    row_.numbers[c] = in.numbers[from];
  }
  if (in.mark) {
    // libpcp evaluates nothing at a <mark> (a result of no metrics), so
    // delta() and rate() go across it; a derived counter's rate, the
    // tool's, starts again as a raw counter's does.
    prev_has_.assign(shown_.size(), 0);
    return row_;
  }
  // Seconds from the first row: a double holds them to the nanosecond,
  // where seconds since 1970 would lose a fraction of a microsecond.
  if (!epoch_set_) {
    epoch_ = in.time.sec;
    epoch_set_ = true;
  }
  const double now = static_cast<double>(in.time.sec - epoch_) + in.time.nsec * 1e-9;
  format::DeriveFetch fetch;
  fetch.ns = (in.time.sec - epoch_) * 1000000000 + in.time.nsec;
  fetch.rate_wraps_backwards = rate_wraps_backwards_;
  // A metric named by several nodes is taken from the row once a row.
  ++row_serial_;
  fetch.serial = row_serial_;  // subtrees derived metrics share computed once a row
  if (operand_cache_.size() != operands.metrics().size()) {
    operand_cache_.assign(operands.metrics().size(), {});
    operand_cache_row_.assign(operands.metrics().size(), 0);
    operand_ints_.assign(operands.metrics().size(), {});
    operand_bits_.assign(operands.metrics().size(), {});
    operand_side_by_side_.assign(operands.metrics().size(), 0);
    operand_insts_.assign(operands.metrics().size(), {});
    operand_own_insts_.assign(operands.metrics().size(), {});
    operand_grid_order_.assign(operands.metrics().size(), {});
    operand_grid_same_.assign(operands.metrics().size(), 0);
    for (size_t m = 0; m < operands.metrics().size(); ++m) {
      const std::vector<size_t>& columns = operands.metrics()[m].columns;
      bool side_by_side = !columns.empty();
      for (size_t i = 1; i < columns.size() && side_by_side; ++i) {
        side_by_side = columns[i] == columns[0] + i;
      }
      operand_side_by_side_[m] = side_by_side;
      for (size_t c : columns) operand_own_insts_[m].push_back(operands.columns()[c].inst);
      operand_grid_order_[m] = InterpolatedOrder(columns, operands.columns());
      operand_grid_same_[m] = operand_grid_order_[m] == columns;
    }
    operand_ints_row_.assign(operands.metrics().size(), 0);
    operand_ints_ok_.assign(operands.metrics().size(), 0);
  }
  // The values of operand metric `name` at this row, taken once a row.
  auto values = [&](const std::string& name) -> const format::DeriveValues* {
    auto it = operand_metric_.find(name);
    if (it == operand_metric_.end()) return nullptr;
    format::DeriveValues& cached = operand_cache_[it->second];
    if (operand_cache_row_[it->second] == row_serial_) return &cached;
    operand_cache_row_[it->second] = row_serial_;
    const std::vector<size_t>& columns = OperandOrder(operands, in, it->second);
    // Written in place, then cut (push_back kept the loop from being inlined).
    cached.resize(columns.size());
    format::DeriveValue* w = cached.data();
    for (size_t c : columns) {
      const auto [k, bits, inst] = ValueAt(operands, in, c);
      long double v;
      if (k == kUint || k == kInt || k == kDouble) {
        v = NumberOfBits(k, bits);
      } else if (k == kString) {
        // Its column: the operators a string goes through (instant(),
        // scalar(), x[i], matchinst(), ?:) pass values on as they are, so a
        // string result's value names the column whose text it is; count()
        // counts it, and no arithmetic takes a string.
        v = static_cast<long double>(c);
      } else {
        continue;
      }
      *w++ = {inst, v};
    }
    cached.resize(w - cached.data());
    if (cached.empty()) {
      // A singular value stored under an instance: libpcp's derived
      // values keep that instance through unary operators.
      if (const Row::OffNull* o = OffNullOf(in, columns)) {
        cached.push_back({0, NumberOfBits(static_cast<ValueKind>(o->kind), o->bits)});
      }
    }
    return &cached;
  };
  fetch.metric = values;
  // A record's set that is a PCP error (rows at the records only).
  if (!in.empty_sets.empty()) {
    fetch.failed = [&](const std::string& name) {
      auto it = operand_metric_.find(name);
      return it != operand_metric_.end() && it->second < in.empty_sets.size() &&
             in.empty_sets[it->second] == kErrorSet;
    };
  }
  // The values of an operand of an integer type as integers, taken once a
  // row (nullptr when a value is not an integer).
  fetch.integers = [&](const std::string& name) -> const format::DeriveIntegers* {
    auto it = operand_metric_.find(name);
    if (it == operand_metric_.end()) return nullptr;
    const size_t m = it->second;
    format::DeriveIntegers& cached = operand_ints_[m];
    if (operand_ints_row_[m] == row_serial_) return operand_ints_ok_[m] ? &cached : nullptr;
    operand_ints_row_[m] = row_serial_;
    operand_ints_ok_[m] = 0;
    const std::vector<size_t>& columns = OperandOrder(operands, in, m);
    if (operand_side_by_side_[m] && &columns == &operands.metrics()[m].columns) {
      // Columns side by side (an archive's metric): its values read in
      // place where each is of the one integer kind (no copy a row).
      const uint8_t* k = in.kinds.data() + columns.front();
      const uint8_t first = k[0];
      // Every kind the first when each equals the next (libc's vectorized
      // compare: a loop of bytes was 5% of a scalar replay).
      if ((first == kUint || first == kInt) &&
          std::memcmp(k, k + 1, columns.size() - 1) == 0) {
        cached.bits = std::span<const uint64_t>(in.bits.data() + columns.front(), columns.size());
        cached.insts = operand_own_insts_[m];
        cached.is_signed = first == kInt;
        operand_ints_ok_[m] = 1;
        return &cached;
      }
    }
    std::vector<uint64_t>& gathered = operand_bits_[m];
    std::vector<int32_t>& insts = operand_insts_[m];
    gathered.resize(columns.size());
    insts.resize(columns.size());
    uint64_t* w = gathered.data();
    int32_t* wi = insts.data();
    bool ints = false, uints = false;
    for (size_t c : columns) {
      const Operand o = ValueAt(operands, in, c);
      if (o.kind == kInt) {
        ints = true;
      } else if (o.kind == kUint) {
        uints = true;
      } else if (o.kind == kDouble || o.kind == kString) {
        return nullptr;
      } else {
        continue;  // no value, as for `values`
      }
      *w++ = o.bits;
      *wi++ = o.inst;
    }
    if (w == gathered.data()) {
      if (const Row::OffNull* o = OffNullOf(in, columns)) {
        if (o->kind == kDouble) return nullptr;
        *w++ = o->bits;
        *wi++ = 0;  // under instance 0, as `values` gives it
        (o->kind == kInt ? ints : uints) = true;
      }
    }
    if (ints && uints) return nullptr;
    cached.bits = std::span<const uint64_t>(gathered.data(), w - gathered.data());
    cached.insts = std::span<const int32_t>(insts.data(), wi - insts.data());
    cached.is_signed = ints;
    operand_ints_ok_[m] = 1;
    return &cached;
  };
  fetch.instance = [&](uint32_t indom, int32_t inst) -> std::string {
    auto it = instance_name_.find(InstKey(indom, inst));
    return it == instance_name_.end() ? std::string() : it->second;
  };
  for (const auto& d : derived_) {
    const format::DeriveDesc& desc = d->check.bound->desc;
    const ValueKind kind = KindOfType(desc.type);
    const bool rate = desc.sem == format::kSemCounter && !raw;
    const format::DeriveValues& values = d->eval->Evaluate(fetch);
    if (d->column_at.size() < values.size()) d->column_at.resize(values.size(), {-2, 0});
    // Values only of instances without a column: none shown, as none is.
    bool written = false, no_column = false;
    for (size_t i = 0; i < values.size(); ++i) {
      const format::DeriveValue& v = values[i];
      // A singular value still under its instance (OffNullOf): pmrep's
      // fetchgroup leaves it out, as it does the metric's own.
      if (desc.indom == format::kIndomNull && v.inst != -1 && !in.off_null.empty()) continue;
      const int32_t inst = desc.indom == format::kIndomNull ? -1 : v.inst;
      // The column of the value at this position the row before, else
      // looked up (instances keep their order from row to row).
      std::pair<int32_t, size_t>& at = d->column_at[i];
      if (at.first != inst) {
        auto it = d->column_of_inst.find(inst);
        if (it == d->column_of_inst.end()) {
          no_column = true;
          continue;
        }
        at = {inst, it->second};
      }
      const size_t c = at.second;
      written = true;
      row_.kinds[c] = kind;
      if (kind == kString) {
        row_.bits[c] = row_.strings.size();
        const size_t from = static_cast<size_t>(v.v);
        row_.strings.emplace_back(in.strings[ValueAt(operands, in, from).bits]);
        continue;
      }
      // Converted from long double once (an x87 store each time).
      const double number = static_cast<double>(v.v);
      if (kind == kUint || kind == kInt) {
        row_.bits[c] = format::DeriveIntegerBits(v.v, kind == kInt);
      } else {
        row_.bits[c] = std::bit_cast<uint64_t>(number);
      }
      if (!rate) {
        row_.shown[c] = kNumber;
        row_.numbers[c] = number;
        continue;
      }
      const bool had = prev_has_[c] != 0 && now > prev_time_[c];
      const long double before = prev_value_[c];
      const double dt = now - prev_time_[c];
      prev_has_[c] = 1;
      prev_value_[c] = v.v;
      prev_time_[c] = now;
      if (!had) continue;
      if (v.v < before) {
        row_.shown[c] = kNegativeRate;
        continue;
      }
      row_.shown[c] = kNumber;
      row_.numbers[c] = static_cast<double>((v.v - before) / dt);
    }
    if (values.empty() || (!written && no_column)) MarkUnnamed(*d, in);
    if (in.grid) {
      // On a grid a rate needs the value at the grid time before.
      for (const auto& [inst, c] : d->column_of_inst) {
        if (row_.kinds[c] == kNoValue) prev_has_[c] = 0;
      }
    }
  }
  return row_;
}

}  // namespace mmvlog::archiver

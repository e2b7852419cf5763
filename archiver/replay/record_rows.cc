#include "archiver/replay/record_rows.h"

#include <algorithm>
#include <bit>

#include "absl/time/time.h"

namespace mmvlog::archiver {

RecordRows::RecordRows(const ColumnSet& columns, bool raw, const std::vector<uint8_t>* shown,
                       bool strict_singular)
    : columns_(columns),
      strict_singular_(strict_singular),
      shown_(columns, raw, shown),
      prev_kind_(columns.size(), kNoValue),
      prev_bits_(columns.size()),
      prev_ns_(columns.size()) {
  metric_.reserve(columns.size());
  for (const Column& c : columns.columns()) metric_.push_back(static_cast<uint32_t>(c.metric));
  none_shown_ = std::none_of(shown_.number.begin(), shown_.number.end(), [](uint8_t n) { return n; }) &&
                std::none_of(shown_.rate.begin(), shown_.rate.end(), [](uint8_t r) { return r; });
}

const Row* RecordRows::Take(const Sample& s) {
  if (!s.listed && !s.mark) return nullptr;
  row_.Clear(columns_.size());
  row_.time = s.time;
  row_.mark = s.mark;
  row_.grid = false;
  if (s.mark) {
    prev_kind_.assign(prev_kind_.size(), kNoValue);  // nothing is rated across a gap
    return &row_;
  }
  const bool any_dropped = strict_singular_ && s.off_null;
  auto dropped = [&](const SampleValue& v) { return any_dropped && v.off_null; };
  for (const SampleSet& set : s.sets) {
    if (set.numval > 0 && !s.unnamed && !any_dropped) continue;
    const ptrdiff_t m = columns_.MetricOf(set.pmid);
    if (m < 0) continue;
    if (set.numval > 0) {
      // Values of instances without a column only: the metric's fetch
      // had values (a DISCRETE metric's last ones are not kept).
      const ReplayMetric& rm = columns_.metrics()[m];
      const bool any = std::any_of(s.values.begin(), s.values.end(), [&](const SampleValue& v) {
        return columns_.columns()[v.column].metric == static_cast<size_t>(m) && !dropped(v);
      });
      if (any || rm.columns.empty()) continue;
    }
    row_.empty_sets.resize(columns_.metrics().size(), kNotEmpty);
    row_.empty_sets[m] = set.numval > 0 ? kUnnamedValues : set.numval == 0 ? kEmptySet : kErrorSet;
  }
  const int64_t now_ns = absl::ToUnixNanos(format::ToAbslTime(s.time));
  // Whether each metric's values come in its columns' order (a metric's
  // columns ascend; a lower column may only begin another metric).
  bool in_order = true;
  ptrdiff_t last = -1;
  // The row's arrays through pointers of their own: a store of a byte may
  // alias anything, and the loop would load every vector's pointer again.
  uint8_t* const kinds = row_.kinds.data();
  uint64_t* const bits = row_.bits.data();
  const uint32_t* const metric = metric_.data();
  const uint8_t* const number = shown_.number.data();
  const uint8_t* const rate = shown_.rate.data();
  if (none_shown_ && !any_dropped && s.strings.empty()) {
    // Only kinds and bits to copy (derived metrics' operands, no string
    // among them): the loop below without its tests per value.
    for (const SampleValue& v : s.values) {
      const uint32_t c = v.column;
      in_order &= static_cast<ptrdiff_t>(c) > last || metric[c] != metric[last];
      last = static_cast<ptrdiff_t>(c);
      kinds[c] = v.kind;
      bits[c] = v.bits;
    }
  } else {
    for (const SampleValue& v : s.values) {
      if (any_dropped && v.off_null) {
        if (v.kind != kString) row_.off_null.push_back({v.column, v.kind, v.bits});
        continue;
      }
      const uint32_t c = v.column;
      in_order &= static_cast<ptrdiff_t>(c) > last || metric[c] != metric[last];
      last = static_cast<ptrdiff_t>(c);
      kinds[c] = v.kind;
      if (v.kind == kString) {
        bits[c] = row_.strings.size();
        row_.strings.push_back(s.strings[v.bits]);
        continue;
      }
      bits[c] = v.bits;
      if (rate[c]) {
        Rate(c, v, now_ns);
      } else if (number[c]) {
        row_.shown[c] = kNumber;
        row_.numbers[c] = NumberOf(v.kind, v.bits);
      }
    }
  }
  for (const UnnamedValue& u : s.unnamed_values) {
    uint64_t bits = u.bits;
    if (u.kind == kString) {
      bits = row_.strings.size();
      row_.strings.push_back(s.strings[u.bits]);
    }
    row_.unnamed.push_back({u.metric, u.inst, u.kind, u.before, bits});
  }
  if (!in_order) {
    for (const SampleValue& v : s.values) {
      if (!dropped(v)) row_.record_order.push_back(v.column);
    }
  }
  return &row_;
}

void RecordRows::Rate(uint32_t c, const SampleValue& v, int64_t now_ns) {
  const ValueKind pk = static_cast<ValueKind>(prev_kind_[c]);
  const uint64_t pb = prev_bits_[c];
  const int64_t dt_ns = now_ns - prev_ns_[c];
  prev_kind_[c] = v.kind;
  prev_bits_[c] = v.bits;
  prev_ns_[c] = now_ns;
  if (pk == kNoValue || dt_ns <= 0) return;
  const double dt = static_cast<double>(dt_ns) * 1e-9;
  // A counter that went down (a reset) has no rate: pmval -U shows "!",
  // pmrep and the other outputs nothing.
  double delta;
  if (v.kind == kUint && pk == kUint) {
    if (v.bits < pb) {
      row_.shown[c] = kNegativeRate;
      return;
    }
    delta = static_cast<double>(v.bits - pb);  // exact even above 2^53
  } else if (v.kind == kInt && pk == kInt) {
    if (static_cast<int64_t>(v.bits) < static_cast<int64_t>(pb)) {
      row_.shown[c] = kNegativeRate;
      return;
    }
    delta = static_cast<double>(static_cast<int64_t>(v.bits - pb));  // wrapping, not overflowing
  } else {
    const double a = NumberOf(pk, pb), b = NumberOf(v.kind, v.bits);
    if (b < a) {
      row_.shown[c] = kNegativeRate;
      return;
    }
    delta = b - a;
  }
  row_.shown[c] = kNumber;
  row_.numbers[c] = delta / dt * shown_.multiplier[c];
}

}  // namespace mmvlog::archiver

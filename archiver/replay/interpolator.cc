#include "archiver/replay/interpolator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "format/archive/archive_format.h"

namespace mmvlog::archiver {
namespace {

int64_t Ns(absl::Time t) { return absl::ToUnixNanos(t); }

bool IsNumericType(int32_t type) {
  return type == format::kType32 || type == format::kTypeU32 || type == format::kType64 ||
         type == format::kTypeU64 || type == format::kTypeFloat || type == format::kTypeDouble;
}

// C's conversion of a double to an integer type as x86-64 makes it (what
// libpcp, built for it, gives): truncation towards zero; out of range
// (undefined in C) the processor's "integer indefinite", the least value
// of a signed type (pmval shows -2147483648 for a 32-bit counter
// interpolated across its wrap); an unsigned type through a signed 64-bit
// conversion, as GCC compiles it.
int64_t Cvtt64(double x) {
  if (!(x >= -0x1p63 && x < 0x1p63)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(x);
}

template <typename T>
T Truncate(double x) {
  if constexpr (std::is_same_v<T, int32_t>) {
    if (!(x > -2147483649.0 && x < 2147483648.0)) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(x);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return Cvtt64(x);
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    return static_cast<uint32_t>(Cvtt64(x));
  } else {
    static_assert(std::is_same_v<T, uint64_t>);
    if (x < 0x1p63) return static_cast<uint64_t>(Cvtt64(x));
    return static_cast<uint64_t>(Cvtt64(x - 0x1p63)) ^ (uint64_t{1} << 63);
  }
}

// interp.c's counter interpolation between prior p and next n, f seconds
// after p of the d between them (f = t - tp, d = tn - tp, as interp.c
// takes them), for t strictly between, with PCP_COUNTER_WRAP unset (its
// default).
template <int32_t kType>
uint64_t CounterAt(uint64_t p, uint64_t n, double f, double d) {
  if constexpr (kType == format::kType32) {
    const int32_t a = static_cast<int32_t>(p), b = static_cast<int32_t>(n);
    const int32_t diff = static_cast<int32_t>(static_cast<uint32_t>(b) - static_cast<uint32_t>(a));
    const int32_t v = Truncate<int32_t>(0.5 + a + f * diff / d);
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  } else if constexpr (kType == format::kTypeU32) {
    const uint32_t a = static_cast<uint32_t>(p), b = static_cast<uint32_t>(n);
    const double x = b >= a ? 0.5 + a + f * static_cast<double>(b - a) / d
                            : 0.5 + a - f * static_cast<double>(a - b) / d;
    return Truncate<uint32_t>(x);
  } else if constexpr (kType == format::kType64) {
    const int64_t a = static_cast<int64_t>(p), b = static_cast<int64_t>(n);
    const int64_t diff = static_cast<int64_t>(static_cast<uint64_t>(b) - static_cast<uint64_t>(a));
    return static_cast<uint64_t>(
        Truncate<int64_t>(0.5 + static_cast<double>(a) + f * static_cast<double>(diff) / d));
  } else if constexpr (kType == format::kTypeU64) {
    // interp.c holds U64s in int64_t: the prior value converted to double
    // signed (negative from 2^63), and "next >= prior" as GCC compiles it
    // with signed overflow undefined: the sign of next - prior, wrapped
    // (pmval across sample.wrap.ulonglong's wraps shows both).
    const uint64_t diff = n - p;
    const double pd = static_cast<double>(static_cast<int64_t>(p));
    const double x = static_cast<int64_t>(diff) >= 0 ? 0.5 + pd + f * static_cast<double>(diff) / d
                                                     : 0.5 + pd - f * static_cast<double>(p - n) / d;
    return Truncate<uint64_t>(x);
  } else if constexpr (kType == format::kTypeFloat) {
    const float a = static_cast<float>(std::bit_cast<double>(p));
    const float b = static_cast<float>(std::bit_cast<double>(n));
    const float v = static_cast<float>(a + f * (b - a) / d);
    return std::bit_cast<uint64_t>(static_cast<double>(v));
  } else {
    const double a = std::bit_cast<double>(p), b = std::bit_cast<double>(n);
    return std::bit_cast<uint64_t>(a + f * (b - a) / d);
  }
}

// Calls fn with the type as a constant (std::integral_constant): a loop
// inside fn is compiled for each type.
template <typename Fn>
void WithCounterType(int32_t type, Fn&& fn) {
  using std::integral_constant;
  switch (type) {
    case format::kType32: return fn(integral_constant<int32_t, format::kType32>{});
    case format::kTypeU32: return fn(integral_constant<int32_t, format::kTypeU32>{});
    case format::kType64: return fn(integral_constant<int32_t, format::kType64>{});
    case format::kTypeU64: return fn(integral_constant<int32_t, format::kTypeU64>{});
    case format::kTypeFloat: return fn(integral_constant<int32_t, format::kTypeFloat>{});
    default: return fn(integral_constant<int32_t, format::kTypeDouble>{});
  }
}

uint64_t CounterBetween(int32_t type, uint64_t p, uint64_t n, double t, double tp, double tn) {
  uint64_t v = 0;
  WithCounterType(type, [&](auto k) { v = CounterAt<decltype(k)::value>(p, n, t - tp, tn - tp); });
  return v;
}

}  // namespace

Interpolator::Interpolator(const ColumnSet& columns, format::Timestamp base, const GridSpec& grid,
                           bool raw, const std::vector<uint8_t>* shown)
    : columns_(columns),
      base_sec_(base.sec),
      base_nsec_(base.nsec),
      grid_(grid),
      raw_(raw),
      hist_(columns.size()),
      metric_had_(columns.metrics().size()),
      metric_has_(columns.metrics().size()),
      shown_(columns, raw, shown),
      prev_kind_(columns.size(), kNoValue),
      prev_bits_(columns.size()),
      ahead_until_(columns.size(), INT64_MIN),
      no_more_until_(columns.size(), INT64_MIN) {
  for (size_t c = 0; c < columns.size(); ++c) {
    const format::Desc& d = columns.desc(c);
    const uint32_t metric = static_cast<uint32_t>(columns.columns()[c].metric);
    if (shown_.number[c]) numbers_.push_back(static_cast<uint32_t>(c));
    if (runs_.empty() || runs_.back().metric != metric) {
      Rule rule = kRuleInstant;
      if (d.sem == format::kSemDiscrete) {
        rule = kRuleDiscrete;
      } else if (d.sem == format::kSemCounter) {
        rule = IsNumericType(d.type) ? kRuleCounter : kRuleNoValue;
      }
      runs_.push_back({.begin = static_cast<uint32_t>(c),
                       .end = static_cast<uint32_t>(c),
                       .metric = metric,
                       .type = d.type,
                       .rule = rule,
                       .strings = KindOfType(d.type) == kString});
    }
    runs_.back().end = static_cast<uint32_t>(c + 1);
  }
}

void Interpolator::Keep(size_t column, int64_t ns, double t, ValueKind kind, uint64_t bits,
                        const std::string* text) {
  History& h = hist_[column];
  Event& e = h.Push();
  e.ns = ns;
  e.t = t;
  e.kind = kind;
  e.bits = bits;
  if (kind == kString) {
    if (free_texts_.empty()) {
      e.text = static_cast<uint32_t>(texts_.size());
      texts_.push_back(*text);
    } else {
      e.text = free_texts_.back();
      free_texts_.pop_back();
      texts_[e.text] = *text;
    }
  }
  h.last_ns = ns;
  ++kept_;
}

void Interpolator::Drop(History& h, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const Event& e = h[i];
    if (e.kind == kString) free_texts_.push_back(e.text);
  }
  h.head = (h.head + static_cast<uint32_t>(count)) & h.mask;
  h.count -= static_cast<uint32_t>(count);
  kept_ -= static_cast<int64_t>(count);
}

void Interpolator::History::Grow() {
  const uint32_t capacity = ring == nullptr ? 4 : 2 * (mask + 1);
  std::unique_ptr<Event[]> bigger(new Event[capacity]);
  for (uint32_t i = 0; i < count; ++i) bigger[i] = (*this)[i];
  ring = std::move(bigger);
  head = 0;
  mask = capacity - 1;
}

void Interpolator::Add(const Sample& s) {
  const int64_t ns = Ns(format::ToAbslTime(s.time));
  const double rel = Rel(ns);
  if (ns > last_record_ns_ && last_record_ns_ != INT64_MIN) settled_ns_ = std::max(settled_ns_, ns - 1);
  last_record_ns_ = ns;
  if (s.mark) {
    if (ns <= ahead_mark_until_) return;  // seen ahead
    marks_.push_back(ns);
    last_mark_ns_ = ns;
    return;
  }
  if (s.values.empty()) return;
  if (dense_) {
    if (AddDense(s, ns, rel)) return;
    Materialize();
  }
  wait_floor_ = std::min(wait_floor_, ns);
  for (const SampleValue& v : s.values) {
    if (ns <= ahead_until_[v.column]) continue;  // seen ahead
    Keep(v.column, ns, rel, v.kind, v.bits, v.kind == kString ? &s.strings[v.bits] : nullptr);
    no_more_until_[v.column] = INT64_MIN;
  }
}

bool Interpolator::AddDense(const Sample& s, int64_t ns, double t) {
  const size_t width = hist_.size();
  if (s.values.size() != width) return false;
  Frame f;
  if (!spare_frames_.empty()) {
    f = std::move(spare_frames_.back());
    spare_frames_.pop_back();
  }
  f.kinds.resize(width);
  f.bits.resize(width);
  f.strings.clear();
  bool strings = false;
  for (size_t c = 0; c < width; ++c) {
    const SampleValue& v = s.values[c];
    if (v.column != c) {
      spare_frames_.push_back(std::move(f));
      return false;
    }
    f.kinds[c] = v.kind;
    f.bits[c] = v.bits;
    strings |= v.kind == kString;
  }
  if (strings) f.strings = s.strings;
  f.ns = ns;
  f.t = t;
  // A frame at or before the next grid time supersedes the one before it
  // (P is the latest there): only the next grid time's P is kept of them.
  if (!frames_.empty() && ns <= NextGridNs()) {
    spare_frames_.push_back(std::move(frames_.back()));
    frames_.pop_back();
  }
  frames_.push_back(std::move(f));
  return true;
}

void Interpolator::Materialize() {
  dense_ = false;
  wait_floor_ = INT64_MIN;
  for (const Frame& f : frames_) {
    for (size_t c = 0; c < hist_.size(); ++c) {
      const ValueKind kind = static_cast<ValueKind>(f.kinds[c]);
      Keep(c, f.ns, f.t, kind, f.bits[c], kind == kString ? &f.strings[f.bits[c]] : nullptr);
    }
  }
  frames_.clear();
  spare_frames_.clear();
}

int64_t Interpolator::NextGridNs() const { return Ns(grid_.origin + k_ * grid_.step); }

bool Interpolator::Waiting(size_t c, int64_t g) const {
  // Waiting for N only where P is a value: its last sample is before g
  // and no <mark> has come since.
  const History& h = hist_[c];
  return no_more_until_[c] < g && h.last_ns != INT64_MIN && h.last_ns < g && h.last_ns > last_mark_ns_;
}

bool Interpolator::WantsLookAhead() const {
  if (finished_ || done_ || kept_ <= kKeptBudget) return false;
  const int64_t g = NextGridNs();
  return last_record_ns_ >= g && !Ready(g);
}

bool Interpolator::AddAhead(const Sample& s) {
  if (dense_) Materialize();
  const int64_t g = NextGridNs();
  const int64_t ns = Ns(format::ToAbslTime(s.time));
  if (s.mark) {
    // A <mark> bounds every column.
    marks_.push_back(ns);
    last_mark_ns_ = std::max(last_mark_ns_, ns);
    ahead_mark_until_ = ns;
    return true;
  }
  for (const SampleValue& v : s.values) {
    const size_t c = v.column;
    if (!Waiting(c, g)) continue;
    Keep(c, ns, Rel(ns), v.kind, v.bits, v.kind == kString ? &s.strings[v.bits] : nullptr);
    ahead_until_[c] = ns;
  }
  for (size_t c = 0; c < hist_.size(); ++c) {
    if (Waiting(c, g)) return false;
  }
  return true;
}

void Interpolator::EndAhead() {
  if (dense_) Materialize();
  const int64_t g = NextGridNs();
  for (size_t c = 0; c < hist_.size(); ++c) {
    if (Waiting(c, g)) no_more_until_[c] = INT64_MAX;
  }
}

void Interpolator::NothingMoreNow() {
  if (dense_) Materialize();
  for (size_t c = 0; c < hist_.size(); ++c) {
    if (no_more_until_[c] != INT64_MAX) no_more_until_[c] = std::max(no_more_until_[c], last_record_ns_);
  }
  settled_ns_ = std::max(settled_ns_, last_record_ns_);
}

void Interpolator::Finish() { finished_ = true; }

bool Interpolator::Ready(int64_t g) const {
  if (finished_) return true;
  if (last_record_ns_ < g) return false;  // a later record may still hold values at g
  if (last_record_ns_ == g && settled_ns_ < g) return false;  // or another record at g
  if (last_mark_ns_ >= g) return true;    // a <mark> at or after g bounds every column
  if (dense_) {
    // Every column's last sample is the last frame's.
    return frames_.empty() || frames_.back().ns >= g || frames_.back().ns <= last_mark_ns_;
  }
  if (wait_floor_ >= g) return true;
  // A column waits at g when its wait ends before g: the least of those ends.
  int64_t floor = INT64_MAX;
  for (size_t c = 0; c < hist_.size(); ++c) {
    const int64_t last = hist_[c].last_ns;
    if (last == INT64_MIN || last <= last_mark_ns_) continue;  // P is none or a <mark>: no wait
    floor = std::min(floor, std::max(last, no_more_until_[c]));
  }
  wait_floor_ = floor;
  return floor >= g;
}

const Row* Interpolator::NextRow() {
  if (done_) return nullptr;
  if (grid_.max_points > 0 && k_ >= grid_.max_points) {
    done_ = true;
    return nullptr;
  }
  const absl::Time when = grid_.origin + k_ * grid_.step;
  const int64_t g = Ns(when);
  absl::Time end = grid_.end;
  if (end == absl::InfiniteFuture() && finished_) {
    end = last_record_ns_ == INT64_MIN ? absl::InfinitePast()
                                       : absl::FromUnixNanos(last_record_ns_) + grid_.end_slack;
  }
  if (when > end) {
    if (finished_ || grid_.end != absl::InfiniteFuture()) done_ = true;
    return nullptr;
  }
  if (!Ready(g)) return nullptr;
  row_.Clear(columns_.size());
  row_.time = format::ToTimestamp(when);
  row_.grid = true;
  Fill(g);
  Rates();
  prev_g_ = g;
  ++k_;
  return &row_;
}

void Interpolator::Fill(int64_t g) {
  // The marks that matter: the last one at or before g, and later ones.
  while (marks_.size() > 1 && marks_[1] <= g) marks_.pop_front();
  const bool have_pmark = !marks_.empty() && marks_.front() <= g;
  const int64_t pmark = have_pmark ? marks_.front() : INT64_MIN;
  int64_t nmark = INT64_MAX;
  for (int64_t m : marks_) {
    if (m >= g) {
      nmark = m;
      break;
    }
  }
  // interp.c's seen_mark: a <mark> read since the previous grid time.
  bool mark_since = false;
  if (k_ > 0) {
    for (int64_t m : marks_) mark_since |= m > prev_g_ && m <= g;
  }
  const double t = Rel(g);
  std::fill(metric_has_.begin(), metric_has_.end(), 0);
  if (dense_) {
    FillDense(g, t, have_pmark, pmark, nmark, mark_since);
    metric_had_.swap(metric_has_);
    return;
  }
  uint8_t* const kinds = row_.kinds.data();
  uint64_t* const bits = row_.bits.data();
  const bool prior_values = grid_.prior_values;
  const InstanceLife* const lives = grid_.lifetimes.empty() ? nullptr : grid_.lifetimes.data();
  for (const Run& r : runs_) {
    for (size_t c = r.begin; c < r.end; ++c) {
      History& h = hist_[c];
      size_t size = h.count;
      if (size == 0) continue;
      if (size > 1 && h[1].ns <= g) {  // P moves on: drop the samples before it
        size_t drop = 1;
        while (drop + 1 < size && h[drop + 1].ns <= g) ++drop;
        Drop(h, drop);
        size -= drop;
      }
      const Event* p = &h[0];
      // No P; or a <mark> bounds like a sample, and on a tie the mark wins (no value).
      if (p->ns > g || (have_pmark && pmark >= p->ns)) continue;
      const Event* n = p->ns == g ? p : size > 1 ? &h[1] : nullptr;
      const bool n_value = n != nullptr && n->ns < nmark;
      const Event* use = p;
      switch (r.rule) {
        case kRuleDiscrete:
          if (lives != nullptr && (g < lives[c].birth_ns || g > lives[c].death_ns)) {
            continue;  // an instance not alive at g (interp.c time_caliper)
          }
          // Strings, aggregates and events are always P's (interp.c copies v_prior).
          if (p->kind != kString && p->ns != g && n_value && t > (p->t + n->t) / 2 &&
              !prior_values) {
            use = n;
          }
          break;
        case kRuleNoValue:
          continue;  // a counter of a type that is no number
        case kRuleCounter:
          if (!n_value || (mark_since && metric_had_[r.metric])) continue;
          if (p->kind != kString && p->ns != g && n->ns != g) {
            kinds[c] = p->kind;
            bits[c] = CounterBetween(r.type, p->bits, n->bits, t, p->t, n->t);
            metric_has_[r.metric] = 1;
            continue;
          }
          if (p->kind != kString && p->ns != g) use = n;
          break;
        case kRuleInstant:
          if (!n_value) continue;
          if (p->kind != kString && p->ns != g &&
              (n->ns == g || (t > (p->t + n->t) / 2 && !prior_values))) {
            use = n;
          }
          break;
      }
      kinds[c] = use->kind;
      if (use->kind == kString) {
        bits[c] = row_.strings.size();
        row_.strings.push_back(texts_[use->text]);
      } else {
        bits[c] = use->bits;
      }
      metric_has_[r.metric] = 1;
    }
  }
  metric_had_.swap(metric_has_);
}

void Interpolator::FillDense(int64_t g, double t, bool have_pmark, int64_t pmark, int64_t nmark,
                             bool mark_since) {
  while (frames_.size() > 1 && frames_[1].ns <= g) {  // P moves on
    spare_frames_.push_back(std::move(frames_.front()));
    frames_.pop_front();
  }
  if (frames_.empty()) return;
  const Frame& p = frames_[0];
  // No P; or a <mark> bounds like a sample, and on a tie the mark wins (no value).
  if (p.ns > g || (have_pmark && pmark >= p.ns)) return;
  const Frame* n = p.ns == g ? &p : frames_.size() > 1 ? &frames_[1] : nullptr;
  const bool n_value = n != nullptr && n->ns < nmark;
  // Fill's choices, the same for every column but a string (always P's).
  const bool at_p = p.ns == g;
  const bool nearer_n = n_value && !at_p && t > (p.t + n->t) / 2 && !grid_.prior_values;
  const bool discrete_n = nearer_n;
  const bool instant_n = n_value && !at_p && (n->ns == g || nearer_n);
  const bool interpolate = n_value && !at_p && n->ns != g;
  const bool counter_n = n_value && !at_p;
  const InstanceLife* const lives = grid_.lifetimes.empty() ? nullptr : grid_.lifetimes.data();
  const uint8_t* const had = metric_had_.data();
  uint8_t* const has = metric_has_.data();
  uint8_t* const kinds = row_.kinds.data();
  uint64_t* const bits = row_.bits.data();
  const uint8_t* const pk = p.kinds.data();
  const uint64_t* const pb = p.bits.data();
  const uint8_t* const nk = n != nullptr ? n->kinds.data() : pk;
  const uint64_t* const nb = n != nullptr ? n->bits.data() : pb;
  // The seconds of interp.c's line, as CounterBetween takes them.
  const double f = n != nullptr ? t - p.t : 0, d = n != nullptr ? n->t - p.t : 0;
  auto copy = [&](size_t b, size_t e, bool from_n) {
    const uint8_t* const k = from_n ? nk : pk;
    const uint64_t* const v = from_n ? nb : pb;
    std::copy(k + b, k + e, kinds + b);
    std::copy(v + b, v + e, bits + b);
  };
  auto copy_strings = [&](size_t b, size_t e) {  // P's
    for (size_t c = b; c < e; ++c) {
      kinds[c] = pk[c];
      bits[c] = row_.strings.size();
      row_.strings.push_back(p.strings[pb[c]]);
    }
  };
  for (const Run& run : runs_) {
    const size_t b = run.begin, e = run.end;
    switch (run.rule) {
      case kRuleNoValue:
        continue;  // a counter of a type that is no number
      case kRuleCounter:
        if (!n_value || (mark_since && had[run.metric])) continue;
        if (interpolate) {
          WithCounterType(run.type, [&](auto k) {
            for (size_t c = b; c < e; ++c) {
              kinds[c] = pk[c];
              bits[c] = CounterAt<decltype(k)::value>(pb[c], nb[c], f, d);
            }
          });
        } else {
          copy(b, e, counter_n);
        }
        break;
      case kRuleInstant:
        if (!n_value) continue;
        if (run.strings) {
          copy_strings(b, e);
        } else {
          copy(b, e, instant_n);
        }
        break;
      case kRuleDiscrete:
        if (lives != nullptr) {
          // An instance not alive at g has none (interp.c time_caliper).
          bool any = false;
          for (size_t c = b; c < e; ++c) {
            if (g < lives[c].birth_ns || g > lives[c].death_ns) continue;
            any = true;
            if (run.strings) {
              copy_strings(c, c + 1);
            } else {
              copy(c, c + 1, discrete_n);
            }
          }
          if (!any) continue;
        } else if (run.strings) {
          copy_strings(b, e);
        } else {
          copy(b, e, discrete_n);
        }
        break;
    }
    has[run.metric] = 1;
  }
}

void Interpolator::Rates() {
  // The seconds between the two grid times as pmrep's fetchgroup takes
  // them (pmtimespecSub), so that its roundings are ours.
  double dt = 0;
  if (k_ > 0) {
    const int64_t d = Ns(format::ToAbslTime(row_.time)) - prev_g_;
    dt = static_cast<double>(static_cast<long double>(d / 1000000000) +
                             static_cast<long double>(d % 1000000000) / 1000000000.0L);
  }
  for (const uint32_t c : numbers_) {  // an operand only: its kind and bits are what is read
    const ValueKind kind = row_.kind(c);
    const ValueKind pk = static_cast<ValueKind>(prev_kind_[c]);
    const uint64_t pb = prev_bits_[c];
    prev_kind_[c] = kind == kString ? kNoValue : kind;
    prev_bits_[c] = row_.bits[c];
    if (kind == kNoValue || kind == kString) continue;
    if (!shown_.rate[c]) {
      row_.shown[c] = kNumber;
      row_.numbers[c] = NumberOf(kind, row_.bits[c]);
      continue;
    }
    if (pk == kNoValue || dt <= 0) continue;
    double delta;
    if (kind == kUint && pk == kUint) {
      delta = row_.bits[c] >= pb ? static_cast<double>(row_.bits[c] - pb)
                                 : -static_cast<double>(pb - row_.bits[c]);
    } else if (kind == kInt && pk == kInt) {
      // Wrapping, not overflowing (undefined): a 64-bit counter across its
      // wrap (kenj-pc-2's sample.wrap.longlong) is as pmrep shows it.
      delta = static_cast<double>(static_cast<int64_t>(row_.bits[c] - pb));
    } else {
      delta = NumberOf(kind, row_.bits[c]) - NumberOf(pk, pb);
    }
    row_.shown[c] = delta < 0 ? kNegativeRate : kNumber;
    row_.numbers[c] = delta / dt * shown_.multiplier[c];
  }
}

}  // namespace mmvlog::archiver

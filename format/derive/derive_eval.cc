#include "format/derive/derive_eval.h"

#include <regex.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <limits>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/derive/integer_reduce.h"

namespace mmvlog::format {
namespace {

using Op = DeriveOp;

// An integer wrapped to `bits` bits, signed or not, as C's conversions do.
long double Wrap(long double v, int bits, bool is_signed) {
  if (!std::isfinite(v)) return 0;
  v = std::trunc(v);
  const long double span = std::ldexp(1.0L, bits);
  v = std::fmod(v, span);
  if (v < 0) v += span;
  if (is_signed && v >= span / 2) v -= span;
  return v;
}

// The value of `inst` in `vs`, looked for first at `hint` (instances
// usually come in the same order from fetch to fetch and operand to
// operand, as libpcp also assumes before searching).
const DeriveValue* WithInst(const DeriveValues& vs, int32_t inst, size_t hint = 0) {
  if (hint < vs.size() && vs[hint].inst == inst) return &vs[hint];
  for (const DeriveValue& v : vs) {
    if (v.inst == inst) return &v;
  }
  return nullptr;
}

// Values added to `out` in place: room for `n` made first, cut to those
// added at the end (push_back's growth path kept the loops that add from
// being inlined: 7% of a derived replay).
class InPlace {
 public:
  InPlace(DeriveValues& out, size_t n) : out_(out) {
    out_.resize(n);
    next_ = out_.data();
  }
  ~InPlace() { out_.resize(next_ - out_.data()); }
  InPlace(const InPlace&) = delete;
  InPlace& operator=(const InPlace&) = delete;

  void Add(int32_t inst, long double v) { *next_++ = {inst, v}; }

 private:
  DeriveValues& out_;
  DeriveValue* next_;
};

// sum(), min(), max() or avg() (`op`, of type `type`) over integers, as
// libpcp computes them: sums wrapping in the metric's type, extremes
// compared in it, averages summed in float.
const DeriveValues& IntegerAggregate(DeriveOp op, int32_t type, const DeriveIntegers& in,
                                     DeriveValues& out) {
  const auto& v = in.bits;
  if (op == Op::kAvg) {
    const float n = static_cast<float>(v.size());
    float f = 0;
    if (in.is_signed) {
      for (uint64_t x : v) f += static_cast<float>(static_cast<int64_t>(x)) / n;
    } else {
      for (uint64_t x : v) f += static_cast<float>(x) / n;
    }
    out.push_back({-1, f});
    return out;
  }
  if (op == Op::kSum) {
    const uint64_t sum = SumBits(v);
    out.push_back({-1, CastToType(type, in.is_signed
                                            ? static_cast<long double>(static_cast<int64_t>(sum))
                                            : static_cast<long double>(sum))});
    return out;
  }
  // min() and max() over no value: none (see Aggregate).
  if (v.empty()) return out;
  const bool min = op == Op::kMin;
  out.push_back({-1, in.is_signed ? static_cast<long double>(min ? MinSigned(v) : MaxSigned(v))
                                  : static_cast<long double>(min ? MinUnsigned(v) : MaxUnsigned(v))});
  return out;
}

// An integer's bits as the number they hold.
inline long double Number(uint64_t bits, bool is_signed) {
  return is_signed ? static_cast<long double>(static_cast<int64_t>(bits))
                   : static_cast<long double>(bits);
}

// CastToType, its commonest case (a double: every rate, ratio and average)
// where it is used: the call, with its long double passed on the stack,
// was 6% of a derived replay.
inline long double Cast(int32_t type, long double v) {
  if (type == kTypeDouble) return static_cast<double>(v);
  return CastToType(type, v);
}

// Calls `fn` with binary operator `op` as a function of two T (comparisons
// and && || give 1 or 0; x / y is 0 when x is 0, libpcp's rule): one loop
// per operator, with no switch inside it.
template <typename T, typename Fn>
void WithOperator(DeriveOp op, Fn&& fn) {
  switch (op) {
    case Op::kPlus: return fn([](T x, T y) -> T { return x + y; });
    case Op::kMinus: return fn([](T x, T y) -> T { return x - y; });
    case Op::kStar: return fn([](T x, T y) -> T { return x * y; });
    case Op::kSlash:
      return fn([](T x, T y) -> T {
        if constexpr (std::is_integral_v<T>) {
          if (y == 0) return 0;  // never asked (a quotient is a double); no trap
        }
        return x == 0 ? 0 : x / y;
      });
    case Op::kLt: return fn([](T x, T y) -> T { return x < y; });
    case Op::kLeq: return fn([](T x, T y) -> T { return x <= y; });
    case Op::kEq: return fn([](T x, T y) -> T { return x == y; });
    case Op::kGeq: return fn([](T x, T y) -> T { return x >= y; });
    case Op::kGt: return fn([](T x, T y) -> T { return x > y; });
    case Op::kNeq: return fn([](T x, T y) -> T { return x != y; });
    case Op::kAnd: return fn([](T x, T y) -> T { return x != 0 && y != 0; });
    case Op::kOr: return fn([](T x, T y) -> T { return x != 0 || y != 0; });
    default: return fn([](T, T) -> T { return 0; });
  }
}

// Whether `name` is the instance `wanted` names: the whole name, or its
// first word (pmLookupInDom's rule).
bool Named(const std::string& name, const std::string& wanted) {
  if (name == wanted) return true;
  const size_t space = name.find(' ');
  return space != std::string::npos && name.compare(0, space, wanted) == 0;
}

static_assert(std::numeric_limits<long double>::digits == 64);
// 2^63, whose unit in the last place in long double's 64 bits is 1.
constexpr long double k2to63 = 9223372036854775808.0L;

// Whether `v`, with |v| < 2^64, is an integer: rounding it to one by
// adding and taking away 2^63 (whose unit in the last place, in long
// double's 64 bits, is 1) leaves it as it was. No conversion to an integer
// type, which costs a change of the x87 control word each way.
bool Integral(long double v) {
  if (v >= k2to63 || v <= -k2to63) return true;  // a unit in the last place of 1 or more
  const long double r = v >= 0 ? (v + k2to63) - k2to63 : (v - k2to63) + k2to63;
  return r == v;
}

// The 64 bits of integer `v` (|v| < 2^64; a negative one in two's
// complement), read from long double's significand rather than converted
// (a conversion changes the x87 control word twice): for 2^63 <= |v| <
// 2^64 the significand is |v| itself; below, |v| + 2^63 is exact and its
// significand less 2^63 is |v|.
uint64_t IntegerBits(long double v) {
  // Below 2^53 (most values) a double holds it, and SSE converts that
  // (measured cheaper than the significand read through memory).
  if (v > -9007199254740992.0L && v < 9007199254740992.0L) {
    const double d = static_cast<double>(v);
    if (d == v) return static_cast<uint64_t>(static_cast<int64_t>(d));
  }
  const bool negative = v < 0;
  const long double a = negative ? -v : v;
  const bool high = a >= k2to63;
  const long double w = high ? a : a + k2to63;
  uint64_t m;
  std::memcpy(&m, &w, sizeof m);  // x86's 80-bit format: the significand first
  if (!high) m -= uint64_t{1} << 63;
  return negative ? ~m + 1 : m;
}

}  // namespace

uint64_t DeriveIntegerBitsSlow(long double v, bool is_signed) {
  const bool in_range = is_signed ? v >= -k2to63 && v < k2to63 : v >= 0 && v < 2 * k2to63;
  if (in_range && Integral(v)) return IntegerBits(v);
  return is_signed ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
}

long double CastToType(int32_t type, long double v) {
  // The common case first: a double (every ratio, rate and average).
  if (type == kTypeDouble) return static_cast<double>(v);
  // Most values already are what their type holds: no wrapping to do.
  bool fits = false;
  switch (type) {
    case kTypeU64: fits = v >= 0 && v < 18446744073709551616.0L; break;
    case kType64: fits = v >= -9223372036854775808.0L && v < 9223372036854775808.0L; break;
    case kTypeU32: fits = v >= 0 && v < 4294967296.0L; break;
    case kType32: fits = v >= -2147483648.0L && v < 2147483648.0L; break;
    default: break;
  }
  if (fits && Integral(v)) return v;
  switch (type) {
    case kType32: return Wrap(v, 32, true);
    case kTypeU32: return Wrap(v, 32, false);
    case kType64: return Wrap(v, 64, true);
    case kTypeU64: return Wrap(v, 64, false);
    case kTypeFloat: return static_cast<float>(v);
    case kTypeDouble: return static_cast<double>(v);
    default: return v;
  }
}

namespace {

const DeriveValues& NoValues() {
  static const DeriveValues* const kNone = new DeriveValues();
  return *kNone;
}

}  // namespace

namespace {

// What subtree `b` computes, as text: its operations, operands, constants,
// the descriptors and scale factors inferred at each node. Two subtrees
// with the same key give the same values from the same fetches.
void AppendKey(const DeriveBound& b, std::string* key) {
  const DeriveNode& n = *b.node;
  const DeriveSpec& s = n.spec;
  const PmUnits& u = b.desc.units;
  absl::StrAppend(key, "(", static_cast<int>(n.op), " ", n.text.size(), ":", n.text, " ",
                  n.invert, n.mkconst, " ", s.type.value_or("-"), ",", s.semantics.value_or("-"),
                  ",", s.units.value_or("-"), ",", s.indom.value_or("-"), ",",
                  s.meta.value_or("-"), " ", b.desc.type, ",", b.desc.sem, ",", b.desc.indom, ",",
                  u.dim_space, u.dim_time, u.dim_count, u.scale_space, u.scale_time,
                  u.scale_count, u.extra_unit, u.extra_scale, " ",
                  absl::StrFormat("%a,%a", b.mul, b.div), " ", b.known, b.fixed_guard);
  for (const auto& a : b.args) AppendKey(*a, key);
  key->append(")");
}

}  // namespace

DeriveEvaluator::DeriveEvaluator(const DeriveBound& root, DeriveShared* shared) : root_(root) {
  std::vector<const DeriveBound*> todo = {&root};
  while (!todo.empty()) {
    const DeriveBound* b = todo.back();
    todo.pop_back();
    if (shared != nullptr && b->node->op != Op::kName) {
      std::string key;
      AppendKey(*b, &key);
      Node& node = shared->nodes_[key];
      node.shared = true;
      nodes_[b] = &node;
    } else {
      nodes_[b] = &own_[b];
    }
    for (const auto& a : b->args) todo.push_back(a.get());
  }
}

const DeriveValues& DeriveEvaluator::Evaluate(const DeriveFetch& fetch) {
  failed_ = false;
  const DeriveValues& out = Eval(root_, fetch);
  return failed_ ? NoValues() : out;
}

bool DeriveEvaluator::Failed(const std::string& name, const DeriveFetch& f) {
  if (f.failed && f.failed(name)) failed_ = true;
  return failed_;
}

void DeriveEvaluator::Reset() {
  for (auto& [b, node] : nodes_) node->last.has = false;
}

const DeriveValues& DeriveEvaluator::Eval(const DeriveBound& b, const DeriveFetch& f) {
  // After a failed operand libpcp evaluates nothing more of the tree.
  if (failed_) return NoValues();
  const DeriveNode& n = *b.node;
  if (n.op == Op::kName) {
    if (Failed(n.text, f)) return NoValues();
    const DeriveValues* values = f.metric(n.text);
    return values != nullptr ? *values : NoValues();
  }
  Node& node = *nodes_.find(&b)->second;
  if (!node.shared || f.serial == 0) return Compute(b, f, node);
  if (node.serial != f.serial) {
    node.result = &Compute(b, f, node);
    node.serial = f.serial;
    node.failed = failed_;
  } else if (node.failed) {
    failed_ = true;
  }
  return *node.result;
}

const DeriveValues& DeriveEvaluator::Compute(const DeriveBound& b, const DeriveFetch& f,
                                             Node& node) {
  const DeriveNode& n = *b.node;
  DeriveValues& out = node.out;
  out.clear();
  switch (n.op) {
    case Op::kInteger:
    case Op::kDouble:
      out.push_back({-1, Cast(b.desc.type, std::strtold(n.text.c_str(), nullptr))});
      return out;
    case Op::kNoValue:
      return out;
    case Op::kDefined:
      out.push_back({-1, b.fixed_guard == 1 ? 1.0L : 0.0L});
      return out;
    case Op::kCount:
    case Op::kSum:
    case Op::kAvg:
    case Op::kMin:
    case Op::kMax:
      return Aggregate(b, f, out);
    case Op::kQuest:
      return Ternary(b, f, out);
    default:
      break;
  }
  if ((n.op == Op::kDelta || n.op == Op::kRate) && b.args[0]->node->op == Op::kName &&
      f.integers && b.args[0]->desc.type >= kType32 && b.args[0]->desc.type <= kTypeU64) {
    // A failed operand: delta() and rate() keep the fetch before it.
    if (Failed(b.args[0]->node->text, f)) return out;
    // An archive metric's integers, where they are given with their
    // instances: no trip through long double.
    const DeriveIntegers* ints = f.integers(b.args[0]->node->text);
    // (Values that changed from signed to unsigned between fetches, which
    // an archive's descriptor does not let happen, go through Across.)
    const Last& last = node.last;
    if (ints != nullptr && ints->insts.size() == ints->bits.size() &&
        !(last.has && last.integers && last.is_signed != ints->is_signed)) {
      return AcrossIntegers(b, *ints, f, node);
    }
  }
  const DeriveValues& l = Eval(*b.args[0], f);
  if (failed_) return out;  // delta() and rate() keep the fetch before it
  if (n.op == Op::kDelta || n.op == Op::kRate) return Across(b, l, f, node);
  if (b.args.size() == 1) return OneOperand(b, l, f, node);
  return TwoOperands(b, l, f, out);
}

// count(), sum(), avg(), min(), max() over the instances of one metric.
const DeriveValues& DeriveEvaluator::Aggregate(const DeriveBound& b, const DeriveFetch& f,
                                               DeriveValues& out) {
  const DeriveNode& n = *b.node;
  const int32_t type = b.desc.type;
  // count() of a failed operand is 0 (it has no value to count); the
  // others fail.
  if (n.op != Op::kCount && Failed(n.text, f)) return out;
  if (f.integers) {
    if (const DeriveIntegers* ints = f.integers(n.text)) {
      if (n.op == Op::kCount) {
        out.push_back({-1, static_cast<long double>(ints->bits.size())});
        return out;
      }
      return IntegerAggregate(n.op, type, *ints, out);
    }
  }
  const DeriveValues* values = f.metric(n.text);
  const DeriveValues& in = values != nullptr ? *values : NoValues();
  if (n.op == Op::kCount) {
    out.push_back({-1, static_cast<long double>(in.size())});
    return out;
  }
  // Over no value libpcp still gives one: 0 for avg() and sum(); for
  // min() and max() whatever its buffer held (none here).
  if (in.empty() && (n.op == Op::kMin || n.op == Op::kMax)) return out;
  if (n.op == Op::kAvg) {
    // Summed in float, each value divided first, as libpcp does.
    float f = 0;
    for (const DeriveValue& v : in) {
      f += static_cast<float>(v.v) / static_cast<float>(in.size());
    }
    out.push_back({-1, f});
    return out;
  }
  long double acc = in.empty() ? 0 : in[0].v;
  for (size_t i = 1; i < in.size(); ++i) {
    if (n.op == Op::kMin) acc = std::min(acc, in[i].v);
    else if (n.op == Op::kMax) acc = std::max(acc, in[i].v);
    else acc += in[i].v;
  }
  out.push_back({-1, Cast(type, acc)});
  return out;
}

// guard ? then : else, per instance where any has instances.
const DeriveValues& DeriveEvaluator::Ternary(const DeriveBound& b, const DeriveFetch& f,
                                             DeriveValues& out) {
  const DeriveBound& gb = *b.args[0];
  const DeriveBound& tb = *b.args[1];
  const DeriveBound& eb = *b.args[2];
  const DeriveValues& g = Eval(gb, f);
  const DeriveValues& t = b.fixed_guard != 0 ? Eval(tb, f) : NoValues();
  const DeriveValues& e = b.fixed_guard != 1 ? Eval(eb, f) : NoValues();
  if (g.empty()) return out;
  if (b.fixed_guard == 1) return t;
  if (b.fixed_guard == 0) return e;
  if (t.empty() && tb.node->op != Op::kNoValue) return out;
  if (e.empty() && eb.node->op != Op::kNoValue) return out;
  // By position, as libpcp pairs them (derive_fetch.c N_QUEST): value i
  // of the result is value i of the branch that guard value i picks (the
  // last pick once the guard has no value i; a branch's first value once it
  // has no value i), under the instance of value i of the true branch (the
  // false one's when only it has instances). Instances in the same order in
  // all three (the usual case) pair as they should.
  const bool t_novalue = tb.node->op == Op::kNoValue;
  const bool e_novalue = eb.node->op == Op::kNoValue;
  const size_t numval = std::max(t.size(), e.size());
  const DeriveValues& names =
      (tb.desc.indom == kIndomNull && eb.desc.indom != kIndomNull) || t.empty() ? e : t;
  int pick = -1;  // 1: then, 0: else
  for (size_t i = 0; i < numval; ++i) {
    if (i < g.size()) pick = g[i].v != 0 ? 1 : 0;
    if (pick < 0) break;
    if (pick == 1 ? t_novalue : e_novalue) continue;
    const DeriveValues& from = pick == 1 ? t : e;
    if (from.empty() || i >= names.size()) continue;
    const DeriveValue& v = i < from.size() ? from[i] : from[0];
    out.push_back({names[i].inst, v.v});
  }
  return out;
}

namespace {

// The seconds between two fetches as libpcp's pmtimespecToReal reckons
// them: in long double, rounded once to double (the sum in double would
// round twice: 4 s + 999806000 ns gave 4.9998059999999995, libpcp
// 4.999806, and rate() its last bit apart).
double Seconds(int64_t ns) {
  int64_t sec = ns / 1000000000;
  int64_t nsec = ns % 1000000000;
  if (nsec < 0) {
    nsec += 1000000000;
    --sec;
  }
  if (sec <= 999999) return static_cast<double>(sec + static_cast<long double>(nsec) / 1e9L);
  return static_cast<double>(sec + (static_cast<long double>(nsec) / 1000) / 1e6L);
}

// What rate() multiplies a per-second difference by: for a time counter
// (the time per second, a utilisation) its time unit in seconds; else 1.
double RateScale(const PmUnits& u) {
  double scale = 1;
  if (u.dim_time != 1) return scale;
  for (int s = kTimeSec; s < u.scale_time; ++s) scale *= 60;
  for (int s = u.scale_time; s < kTimeSec; ++s) scale /= 1000;
  return scale;
}

}  // namespace

// delta() and rate(): this fetch's values against the previous fetch's.
const DeriveValues& DeriveEvaluator::Across(const DeriveBound& b, const DeriveValues& l,
                                            const DeriveFetch& f, Node& node) {
  const DeriveNode& n = *b.node;
  const int32_t type = b.desc.type;
  DeriveValues& out = node.out;
  const DeriveBound& lb = *b.args[0];
  Last& last = node.last;
  // This fetch's values become the previous ones, whatever comes of them.
  struct Keep {
    Last& last;
    const DeriveValues& now;
    int64_t ns;
    ~Keep() {
      last.values.assign(now.begin(), now.end());
      last.integers = false;
      last.ns = ns;
      last.has = true;
    }
  } keep{last, l, f.ns};
  if (!last.has) return out;
  if (last.integers) {
    // The previous fetch's were read as integers (AcrossIntegers).
    last.values.resize(last.bits.size());
    for (size_t i = 0; i < last.bits.size(); ++i) {
      last.values[i] = {last.insts[i], Number(last.bits[i], last.is_signed)};
    }
  }
  const Last& previous = last;
  InPlace w(out, l.size());
  const double dt = Seconds(f.ns - previous.ns);
  const double scale = RateScale(lb.desc.units);
  for (size_t i = 0; i < l.size(); ++i) {
    const DeriveValue& now = l[i];
    const DeriveValue* then = WithInst(previous.values, now.inst, i);
    if (then == nullptr) continue;
    const int32_t in = lb.desc.type;
    if (n.op == Op::kDelta) {
      // As libpcp's delta(): a U64's (and a double's) difference taken of
      // the two as doubles; the others exact, then in the result's type (a
      // U32's in 64 bits, the rest wrapping in their own).
      const long double v = in == kTypeU64 || in == kTypeDouble
                                ? static_cast<double>(now.v) - static_cast<double>(then->v)
                                : now.v - then->v;
      w.Add(now.inst, Cast(type, v));
      continue;
    }
    if (lb.desc.sem == kSemCounter && !f.rate_wraps_backwards && in != kType32 &&
        now.v < then->v) {
      continue;
    }
    // As libpcp's rate(): the difference in the operand's type (wrapping:
    // an instant U32 that went down by 7 gives 2^32 - 7), then in double.
    double r = 0;
    switch (in) {
      case kTypeDouble: r = static_cast<double>(now.v) - static_cast<double>(then->v); break;
      case kTypeFloat: r = static_cast<float>(now.v) - static_cast<float>(then->v); break;
      case kTypeU32:
        r = static_cast<uint32_t>(IntegerBits(now.v) - IntegerBits(then->v));
        break;
      case kType32:
        r = static_cast<int32_t>(static_cast<uint32_t>(IntegerBits(now.v) - IntegerBits(then->v)));
        break;
      case kTypeU64: r = static_cast<double>(IntegerBits(now.v) - IntegerBits(then->v)); break;
      case kType64:
        r = static_cast<double>(static_cast<int64_t>(IntegerBits(now.v) - IntegerBits(then->v)));
        break;
      default: r = static_cast<double>(now.v - then->v); break;
    }
    r /= dt;
    if (scale != 1) r *= scale;
    w.Add(now.inst, r);
  }
  return out;
}

// delta() and rate() of an archive metric of an integer type, from its
// integers: what Across computes, value for value (the same conversions
// and roundings, done from the 64 bits instead of their long double).
const DeriveValues& DeriveEvaluator::AcrossIntegers(const DeriveBound& b,
                                                    const DeriveIntegers& now,
                                                    const DeriveFetch& f, Node& node) {
  const DeriveNode& n = *b.node;
  const int32_t type = b.desc.type;
  DeriveValues& out = node.out;
  const DeriveBound& lb = *b.args[0];
  Last& last = node.last;
  if (last.has && !last.integers) {
    // The previous fetch's were long doubles (Across): to integers.
    last.bits.resize(last.values.size());
    last.insts.resize(last.values.size());
    for (size_t i = 0; i < last.values.size(); ++i) {
      last.bits[i] = DeriveIntegerBits(last.values[i].v, now.is_signed);
      last.insts[i] = last.values[i].inst;
    }
    last.is_signed = now.is_signed;
  }
  struct Keep {
    Last& last;
    const DeriveIntegers& now;
    int64_t ns;
    ~Keep() {
      last.bits.assign(now.bits.begin(), now.bits.end());
      last.insts.assign(now.insts.begin(), now.insts.end());
      last.is_signed = now.is_signed;
      last.integers = true;
      last.ns = ns;
      last.has = true;
    }
  } keep{last, now, f.ns};
  if (!last.has) return out;
  const size_t count = now.bits.size();
  InPlace w(out, count);
  const double dt = Seconds(f.ns - last.ns);
  const int32_t in = lb.desc.type;
  const bool is_signed = now.is_signed;
  const uint64_t* then_bits = last.bits.data();
  const int32_t* then_insts = last.insts.data();
  const size_t then_count = last.bits.size();
  const double scale = RateScale(lb.desc.units);
  const bool check_backwards =
      lb.desc.sem == kSemCounter && !f.rate_wraps_backwards && in != kType32;
  for (size_t i = 0; i < count; ++i) {
    const int32_t inst = now.insts[i];
    size_t j = i;
    if (j >= then_count || then_insts[j] != inst) {
      j = 0;
      while (j < then_count && then_insts[j] != inst) ++j;
      if (j == then_count) continue;
    }
    const uint64_t x = now.bits[i];
    const uint64_t y = then_bits[j];
    if (n.op == Op::kDelta) {
      // As Across: a U64's difference of the two as doubles, the others
      // exact (long double holds every difference of two 64-bit values).
      long double v;
      if (in == kTypeU64) {
        v = static_cast<double>(x) - static_cast<double>(y);
      } else if (is_signed) {
        v = static_cast<long double>(static_cast<int64_t>(x)) -
            static_cast<long double>(static_cast<int64_t>(y));
      } else {
        v = static_cast<long double>(x) - static_cast<long double>(y);
      }
      w.Add(inst, Cast(type, v));
      continue;
    }
    if (check_backwards &&
        (is_signed ? static_cast<int64_t>(x) < static_cast<int64_t>(y) : x < y)) {
      continue;
    }
    double r;
    switch (in) {
      case kTypeU32: r = static_cast<uint32_t>(x - y); break;
      case kType32: r = static_cast<int32_t>(static_cast<uint32_t>(x - y)); break;
      case kTypeU64: r = static_cast<double>(x - y); break;
      default: r = static_cast<double>(static_cast<int64_t>(x - y)); break;  // kType64
    }
    r /= dt;
    if (scale != 1) r *= scale;
    w.Add(inst, r);
  }
  return out;
}

// -x, !x, instant(), scalar(), rescale(), x[instance], matchinst().
const DeriveValues& DeriveEvaluator::OneOperand(const DeriveBound& b, const DeriveValues& l,
                                                const DeriveFetch& f, Node& node) {
  const DeriveNode& n = *b.node;
  const int32_t type = b.desc.type;
  DeriveValues& out = node.out;
  const uint32_t indom = b.args[0]->desc.indom;
  switch (n.op) {
    case Op::kInstant:
    case Op::kAnon:
      return l;
    case Op::kScalar:
      if (!l.empty()) out.push_back({-1, l[0].v});
      return out;
    case Op::kNeg:
      for (const DeriveValue& v : l) out.push_back({v.inst, Cast(type, -v.v)});
      return out;
    case Op::kNot:
      for (const DeriveValue& v : l) out.push_back({v.inst, v.v == 0 ? 1.0L : 0.0L});
      return out;
    case Op::kRescale: {
      // The operand's units to the asked ones: the same dimension, so
      // one factor (computed from the scales).
      const PmUnits& from = b.args[0]->desc.units;
      const PmUnits& to = b.desc.units;
      long double k = 1;
      auto space = [](int s) { return std::pow(1024.0L, s); };
      auto time = [](int s) {
        static constexpr long double kSec[] = {1e-9L, 1e-6L, 1e-3L, 1, 60, 3600};
        return s >= 0 && s < 6 ? kSec[s] : 1.0L;
      };
      k *= std::pow(space(from.scale_space) / space(to.scale_space), from.dim_space);
      k *= std::pow(time(from.scale_time) / time(to.scale_time), from.dim_time);
      k *= std::pow(std::pow(10.0L, from.scale_count - to.scale_count), from.dim_count);
      for (const DeriveValue& v : l) out.push_back({v.inst, Cast(type, v.v * k)});
      return out;
    }
    case Op::kInstance:
    case Op::kMatchInst:
      // Instances of a metric without any: none (libpcp's rule).
      if (indom == kIndomNull) return out;
      for (const DeriveValue& v : l) {
        if (Keeps(b, node.filter, indom, v.inst, f)) out.push_back(v);
      }
      return out;
    default:
      return out;
  }
}

bool DeriveEvaluator::Keeps(const DeriveBound& b, Filter& filter, uint32_t indom, int32_t inst,
                            const DeriveFetch& f) {
  if (auto it = filter.keep.find(inst); it != filter.keep.end()) return it->second;
  const DeriveNode& n = *b.node;
  const std::string name = f.instance(indom, inst);
  bool keep = false;
  if (n.op == Op::kInstance) {
    keep = Named(name, n.text);
  } else {
    if (filter.re == nullptr) {
      // The parser compiled it once already (derive_parser.cc), so it does.
      auto re = std::make_unique<regex_t>();
      if (::regcomp(re.get(), n.text.c_str(), REG_EXTENDED | REG_NOSUB) == 0) {
        filter.re.reset(re.release());
      }
    }
    // Matched against the name up to its first space, as libpcp's
    // "classical external instance name matching" (derive_fetch.c): PCP
    // QA's 20180102 has "000031 (watchdog/5)", which /5/ does not match.
    const std::string first = name.substr(0, name.find(' '));
    keep = filter.re != nullptr &&
           (::regexec(filter.re.get(), first.c_str(), 0, nullptr, 0) == 0) != n.invert;
  }
  filter.keep.emplace(inst, keep);
  return keep;
}

// Binary operators: operands paired by instance.
const DeriveValues& DeriveEvaluator::TwoOperands(const DeriveBound& b, const DeriveValues& l,
                                                 const DeriveFetch& f, DeriveValues& out) {
  const DeriveNode& n = *b.node;
  const int32_t type = b.desc.type;
  const DeriveBound& lb = *b.args[0];
  const DeriveBound& rb = *b.args[1];
  const DeriveValues& r = Eval(rb, f);
  if (l.empty() || r.empty()) return out;
  InPlace w(out, std::max(l.size(), r.size()));
  const bool relational = n.op == Op::kLt || n.op == Op::kLeq || n.op == Op::kEq ||
                          n.op == Op::kGeq || n.op == Op::kGt || n.op == Op::kNeq ||
                          n.op == Op::kAnd || n.op == Op::kOr;
  const int32_t in_type = relational ? DerivePromote(lb.desc.type, rb.desc.type) : type;
  const bool lset = lb.desc.indom != kIndomNull;
  const bool rset = rb.desc.indom != kIndomNull;
  // Each pair of operand values to `fn`: by instance where both have
  // instances, a singular one with each of the other's.
  auto pairs = [&](auto&& fn) {
    if (lset) {
      for (size_t i = 0; i < l.size(); ++i) {
        const DeriveValue& a = l[i];
        const DeriveValue* c = rset ? WithInst(r, a.inst, i) : &r[0];
        if (c != nullptr) fn(a, *c, a.inst);
      }
    } else if (rset) {
      for (const DeriveValue& c : r) fn(l[0], c, c.inst);
    } else {
      // The right one's instance, as libpcp takes it (-1, but for a
      // singular value stored under an instance: DeriveValue::inst).
      fn(l[0], r[0], r[0].inst);
    }
  };
  if (in_type == kTypeDouble) {
    // As libpcp's bin_op computes in double: each operand converted, then
    // scaled as (x / div) * mul, the operator in double (no long double
    // between, which could round twice).
    const double lmul = lb.mul, ldiv = lb.div, rmul = rb.mul, rdiv = rb.div;
    WithOperator<double>(n.op, [&](auto apply) {
      pairs([&](const DeriveValue& a, const DeriveValue& c, int32_t inst) {
        const double x = (static_cast<double>(a.v) / ldiv) * lmul;
        const double y = (static_cast<double>(c.v) / rdiv) * rmul;
        w.Add(inst, Cast(type, apply(x, y)));
      });
    });
  } else if (in_type == kTypeFloat) {
    WithOperator<long double>(n.op, [&](auto apply) {
      pairs([&](const DeriveValue& a, const DeriveValue& c, int32_t inst) {
        w.Add(inst, Cast(type, apply(Cast(in_type, a.v), Cast(in_type, c.v))));
      });
    });
  } else {
    // Integer types: in 64-bit integers, wrapping, as libpcp's bin_op
    // computes in the type (long double cannot hold 2^64 + x, which the
    // wrap of 0 - 1203 + 21126284 passes through: it gave 21125080, libpcp
    // 21125081). Comparisons signed or not as the type is.
    const bool is_signed = in_type == kType32 || in_type == kType64;
    auto run = [&](auto apply) {
      pairs([&](const DeriveValue& a, const DeriveValue& c, int32_t inst) {
        w.Add(inst, Cast(type, apply(IntegerBits(Cast(in_type, a.v)),
                                     IntegerBits(Cast(in_type, c.v)))));
      });
    };
    if (relational && is_signed) {
      WithOperator<int64_t>(n.op, [&](auto op) {
        run([&](uint64_t x, uint64_t y) -> long double {
          return op(static_cast<int64_t>(x), static_cast<int64_t>(y));
        });
      });
    } else {
      WithOperator<uint64_t>(n.op, [&](auto op) {
        run([&](uint64_t x, uint64_t y) -> long double {
          const uint64_t r = op(x, y);
          return is_signed ? static_cast<long double>(static_cast<int64_t>(r))
                           : static_cast<long double>(r);
        });
      });
    }
  }
  return out;
}

}  // namespace mmvlog::format

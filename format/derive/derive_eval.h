// Evaluates a checked derived metric (derive_desc.h) at one fetch after
// another, as libpcp does in pmFetch (derive_fetch.c): the operands' values
// (as recorded, or interpolated) in, the derived metric's values out, its
// instances where it has an instance domain.
//
// Each node's values are cast to its type as libpcp computes in it (U32
// sums wrap at 2^32, integer results truncate); operands of + - * / whose
// scales differ are converted first; x / y is 0 when x is 0 (libpcp's
// rule); two operands with instances pair by instance, a singular one goes
// with every instance; comparisons, && and || give 1 or 0; ?: takes, per
// instance, the branch its guard picks; avg(), sum(), min(), max() and
// count() over no value give 0 (avg() sums in float, as libpcp); delta() and rate() pair an instance with its
// value at the previous fetch (none at the first, none across a Reset, a
// counter that went down none for rate()), rate() per second of the
// fetches' times (a time counter's rate a utilisation); x[instance] and
// matchinst() keep instances by external name; scalar() the first.
//
// Values are carried in long double, which holds every 64-bit integer.
#ifndef MMVLOG_FORMAT_DERIVE_DERIVE_EVAL_H_
#define MMVLOG_FORMAT_DERIVE_DERIVE_EVAL_H_

#include <regex.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "format/derive/derive_desc.h"

namespace mmvlog::format {

// Trivial, so that making room for values (derive_eval.cc's InPlace)
// writes nothing into them.
struct DeriveValue {
  int32_t inst;  // -1: singular
  long double v;
};

// An allocator that leaves the values it makes room for as they are (a
// resize() of the vector value-initializes them otherwise: 10% of a
// derived replay, for values about to be written).
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using DeriveValues = std::vector<DeriveValue, UninitializedAllocator<DeriveValue>>;  // empty: no values

// A metric's values as the integers they are: a U32's or U64's bits, a
// 32's or 64's sign-extended.
struct DeriveIntegers {
  std::span<const uint64_t> bits;  // valid for the fetch
  bool is_signed = false;
  // Each value's instance, as DeriveFetch::metric gives it (empty: not
  // given). With them delta() and rate() of the metric work in its
  // integers too.
  std::span<const int32_t> insts;
};

struct DeriveFetch {
  // The values of metric `name` at this fetch (raw, in instance order),
  // valid for this fetch; nullptr: the metric has none. Read in place.
  std::function<const DeriveValues*(const std::string& name)> metric;
  // Optional: the same values as integers, in the same order, where the
  // metric is of an integer type (else nullptr). sum(), min(), max() and
  // avg() then work in them, as libpcp does in the metric's own type,
  // without converting each value to long double; count() counts them.
  std::function<const DeriveIntegers*(const std::string& name)> integers;
  // Optional: whether metric `name`'s set at this fetch is a PCP error (a
  // record's, as "Explicit instance identifier(s) required"). libpcp then
  // evaluates no more of the tree and the derived metric has no value,
  // but count() of it is 0, and delta() and rate() keep the fetch before.
  std::function<bool(const std::string& name)> failed;
  // The external name of instance `inst` of `indom` ("" when unknown).
  std::function<std::string(uint32_t indom, int32_t inst)> instance;
  // The fetch's time in nanoseconds from any fixed origin: rate() takes
  // the seconds between fetches as libpcp does (the exact difference,
  // then sec + nsec / 1e9 in double).
  int64_t ns = 0;
  // rate() of a COUNTER that went down: as PCP before 6.2.1 (the
  // difference in the counter's type: a U32 wraps to 2^32 - d), else as
  // 6.2.1 and later (no value; a signed 32-bit counter is not checked).
  bool rate_wraps_backwards = false;
  // A number that differs from fetch to fetch; 0: none. Evaluators made
  // with one DeriveShared compute a subtree they share once a fetch.
  uint64_t serial = 0;
};

namespace derive_internal {

// What one node of a tree keeps: its values at this fetch (a buffer reused
// from fetch to fetch, so a row allocates nothing), the previous fetch's
// operand values for delta() and rate(), a filter's verdicts.
struct Last {
  DeriveValues values;
  // Or, where the operand's integers were read (integers true), them and
  // their instances: no conversion to long double and back.
  std::vector<uint64_t> bits;
  std::vector<int32_t> insts;
  bool integers = false;
  bool is_signed = false;
  int64_t ns = 0;
  bool has = false;  // a fetch came before
};
struct RegexFree {
  void operator()(regex_t* re) const {
    ::regfree(re);
    delete re;
  }
};
struct Filter {
  std::unique_ptr<regex_t, RegexFree> re;  // matchinst()'s, compiled at first use
  absl::flat_hash_map<int32_t, bool> keep;
};
struct NodeState {
  DeriveValues out;
  Last last;
  Filter filter;
  // Shared by evaluators (DeriveShared): the fetch whose values `result`
  // holds.
  bool shared = false;
  uint64_t serial = 0;
  const DeriveValues* result = nullptr;
  bool failed = false;  // an operand of `result`'s fetch failed
};

}  // namespace derive_internal

// The subtrees several derived metrics have in common, by what they
// compute (the same operations on the same operands, inferred alike):
// rate(x) under both rate(x) and rate(x) * 8, sum(x) in a ratio and a
// difference, as pmrep's sets share operands. Evaluators made with one
// DeriveShared keep one state for such a subtree (delta()'s previous values
// among it) and compute it once a fetch. So each of them must be evaluated
// at every fetch with a serial (DerivedColumns does), as libpcp evaluates
// every derived metric of a fetch; otherwise one evaluator would move on
// the state another reads.
class DeriveShared {
 public:
  DeriveShared() = default;
  DeriveShared(const DeriveShared&) = delete;
  DeriveShared& operator=(const DeriveShared&) = delete;

 private:
  friend class DeriveEvaluator;
  absl::node_hash_map<std::string, derive_internal::NodeState> nodes_;
};

class DeriveEvaluator {
 public:
  // Keeps a reference to `root`, which must outlive the evaluator, and to
  // `shared` (optional: see DeriveShared), which must too.
  explicit DeriveEvaluator(const DeriveBound& root, DeriveShared* shared = nullptr);

  // The derived metric's values at `fetch`, valid until the next call.
  const DeriveValues& Evaluate(const DeriveFetch& fetch);
  // Forgets the previous fetch: no delta() or rate() across a <mark>.
  void Reset();

 private:
  using Node = derive_internal::NodeState;
  using Filter = derive_internal::Filter;
  using Last = derive_internal::Last;

  const DeriveValues& Eval(const DeriveBound& b, const DeriveFetch& f);
  // Whether metric `name` failed at this fetch (DeriveFetch::failed), or
  // an operand before it did.
  bool Failed(const std::string& name, const DeriveFetch& f);
  const DeriveValues& Compute(const DeriveBound& b, const DeriveFetch& f, Node& node);
  const DeriveValues& Aggregate(const DeriveBound& b, const DeriveFetch& f, DeriveValues& out);
  const DeriveValues& Ternary(const DeriveBound& b, const DeriveFetch& f, DeriveValues& out);
  const DeriveValues& Across(const DeriveBound& b, const DeriveValues& l, const DeriveFetch& f,
                             Node& node);
  const DeriveValues& AcrossIntegers(const DeriveBound& b, const DeriveIntegers& now,
                                     const DeriveFetch& f, Node& node);
  const DeriveValues& OneOperand(const DeriveBound& b, const DeriveValues& l,
                                 const DeriveFetch& f, Node& node);
  const DeriveValues& TwoOperands(const DeriveBound& b, const DeriveValues& l,
                                  const DeriveFetch& f, DeriveValues& out);
  // Whether x[instance] or matchinst() node `b` keeps instance `inst`:
  // decided at its first sight and kept, as libpcp keeps a pattern's
  // verdicts (its pattern hash), so no regexec or name lookup per fetch.
  bool Keeps(const DeriveBound& b, Filter& filter, uint32_t indom, int32_t inst,
             const DeriveFetch& f);

  const DeriveBound& root_;
  // Every node of the tree's state, made by the constructor (none added
  // later, so references to them stay valid): its own, or the shared one.
  absl::node_hash_map<const DeriveBound*, Node> own_;
  absl::flat_hash_map<const DeriveBound*, Node*> nodes_;
  bool failed_ = false;  // an operand failed at this fetch
};

// The 64 bits an integer value of a derived metric is held in (a signed
// one's in two's complement), as C's conversion of `v` gives them, without
// x87's conversion where it can (it changes the control word twice: 31% of
// a replay with integer derived columns once): below 2^53 through a double,
// above from long double's significand where `v` is an integer in range.
uint64_t DeriveIntegerBitsSlow(long double v, bool is_signed);
inline uint64_t DeriveIntegerBits(long double v, bool is_signed) {
  // Most integers are below 2^53: through a double, which holds them and
  // converts to an integer by SSE's truncating conversion.
  if (v > -9007199254740992.0L && v < 9007199254740992.0L) {
    const double d = static_cast<double>(v);
    if (d == v) return static_cast<uint64_t>(static_cast<int64_t>(d));
  }
  return DeriveIntegerBitsSlow(v, is_signed);
}

// `v` as a value of PM type `type` holds it (C's conversions: integers
// truncate and wrap, FLOAT rounds to float).
long double CastToType(int32_t type, long double v);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_DERIVE_DERIVE_EVAL_H_

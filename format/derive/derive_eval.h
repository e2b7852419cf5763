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
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "format/derive/derive_desc.h"

namespace mmvlog::format {

struct DeriveValue {
  int32_t inst = -1;  // -1: singular
  long double v = 0;
};
using DeriveValues = std::vector<DeriveValue>;  // empty: no values

struct DeriveFetch {
  // The values of metric `name` at this fetch (raw, in instance order).
  std::function<void(const std::string& name, DeriveValues* out)> metric;
  // Optional: the same values without a copy, valid for this fetch
  // (nullptr: the metric has none); aggregates read them in place.
  std::function<const DeriveValues*(const std::string& name)> view;
  // The external name of instance `inst` of `indom` ("" when unknown).
  std::function<std::string(uint32_t indom, int32_t inst)> instance;
  double seconds = 0;  // the fetch's time
  // The same time in nanoseconds from any fixed origin, when known: rate()
  // then takes the seconds between fetches as libpcp does (the exact
  // difference, then sec + nsec / 1e9 in double).
  std::optional<int64_t> ns;
};

class DeriveEvaluator {
 public:
  // Keeps a reference to `root`, which must outlive the evaluator.
  explicit DeriveEvaluator(const DeriveBound& root) : root_(root) {}

  DeriveValues Evaluate(const DeriveFetch& fetch);
  // Forgets the previous fetch: no delta() or rate() across a <mark>.
  void Reset() { last_.clear(); }

 private:
  DeriveValues Eval(const DeriveBound& b, const DeriveFetch& f);
  DeriveValues Aggregate(const DeriveBound& b, const DeriveFetch& f);
  DeriveValues Ternary(const DeriveBound& b, const DeriveFetch& f);
  DeriveValues Across(const DeriveBound& b, DeriveValues l, const DeriveFetch& f);
  DeriveValues OneOperand(const DeriveBound& b, const DeriveValues& l, const DeriveFetch& f);
  DeriveValues TwoOperands(const DeriveBound& b, const DeriveValues& l, const DeriveFetch& f);
  // Whether x[instance] or matchinst() node `b` keeps instance `inst`:
  // decided at its first sight and kept, as libpcp keeps a pattern's
  // verdicts (its pattern hash), so no regexec or name lookup per fetch.
  bool Keeps(const DeriveBound& b, uint32_t indom, int32_t inst, const DeriveFetch& f);

  struct Last {
    DeriveValues values;
    double seconds = 0;
    std::optional<int64_t> ns;
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
  const DeriveBound& root_;
  absl::flat_hash_map<const DeriveBound*, Last> last_;
  absl::flat_hash_map<const DeriveBound*, Filter> filters_;
};

// `v` as a value of PM type `type` holds it (C's conversions: integers
// truncate and wrap, FLOAT rounds to float).
long double CastToType(int32_t type, long double v);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_DERIVE_DERIVE_EVAL_H_

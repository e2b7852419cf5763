// The metadata of a derived metric, inferred from its expression and its
// operands' descriptors as libpcp 7.2 infers it (pmRegisterDerived(3),
// "SEMANTIC CHECKS AND RULES"; derive_parser.y.in check_expr, map_desc,
// map_units), with libpcp's semantic errors.
//
// The rules, briefly: an integer constant is U32, a real one DOUBLE, both
// discrete without units or instances; + - need the same dimension (or
// none beside count), * / add and subtract dimensions; where both operands
// have a dimension at different scales the larger scale is kept, the other
// operand converted, and the result is DOUBLE; division gives DOUBLE,
// comparisons and && || U32 without units; counters combine only as
// counter +- counter, counter */ non-counter, non-counter * counter; two
// non-counters give instant unless both are discrete; two instance domains
// must be the same. rate() lowers the time dimension by one (time/time is a
// utilisation), delta() widens U32 to 64 and U64 to DOUBLE, avg() is FLOAT,
// count() U32 count, -x signed; instant(), delta(), rate(), avg(), min(),
// max() and -x are instant (sum() keeps the semantics); count(), sum(),
// avg(), min(), max() and scalar() have no instance domain. Where libpcp
// compares a descriptor's type with a node's kind (relational operators
// skip the dimension check when either operand is of type U32) it is
// followed, as are its other quirks (!x keeps x's descriptor).
//
// Units strings (mkconst(units=), rescale()) are pmParseUnitsStr(3)'s
// (format/units_spec.h). Not yet: $PCP_DERIVED_CONFIG's #control lines.
#ifndef MMVLOG_FORMAT_DERIVE_DERIVE_DESC_H_
#define MMVLOG_FORMAT_DERIVE_DERIVE_DESC_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/archive/archive_format.h"
#include "format/derive/derive_expr.h"
#include "format/pm_units.h"

namespace mmvlog::format {

struct DeriveDesc {
  int32_t type = kTypeU32;
  int32_t sem = kSemDiscrete;
  PmUnits units;
  uint32_t indom = kIndomNull;

  bool operator==(const DeriveDesc&) const = default;
};

// The tree with what was inferred at each node, for evaluating it: its
// descriptor and the factors its values are scaled by before its parent
// uses them (value * mul / div).
struct DeriveBound {
  const DeriveNode* node = nullptr;
  DeriveDesc desc;
  double mul = 1;
  double div = 1;
  bool known = true;  // a metric name the archive has (false under ?: or defined())
  // ?: whose guard is fixed (defined(), constants): the branch taken, else -1.
  int fixed_guard = -1;
  std::vector<std::unique_ptr<DeriveBound>> args;
};

// An operand metric's descriptor by name; nullopt when there is none.
using DeriveLookup = std::function<std::optional<DeriveDesc>(const std::string& name)>;

struct DeriveCheck {
  std::unique_ptr<DeriveBound> bound;  // when no error
  // libpcp's report without its "Semantic error: derived metric NAME: "
  // prefix: "<expr> + mem.util.free: Dimensions are not the same".
  std::string error;
};

// `lazy_ternary`: ?: binds as PCP 6.2.2 and later bind it (a branch's
// names may be missing; a guard fixed before any value, a constant or
// defined(), binds and reads only the branch it takes); false: as before
// 6.2.2 (both branches bound, every name needed, and no value when either
// branch has none).
DeriveCheck CheckDerived(const DeriveNode& tree, const DeriveLookup& lookup,
                         bool lazy_ternary = true);

// The type two arithmetic operands are computed in (libpcp's promote[][]:
// DOUBLE over FLOAT over U64 over 64 over U32 over 32).
int32_t DerivePromote(int32_t a, int32_t b);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_DERIVE_DERIVE_DESC_H_

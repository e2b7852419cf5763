#include "format/derive/derive_desc.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "format/archive/pm_desc_text.h"
#include "format/units_spec.h"

namespace mmvlog::format {
namespace {

// pmParseUnitsStr's units (mkconst(units=), rescale()); its multiplier is
// not used there.
absl::StatusOr<PmUnits> UnitsOf(absl::string_view text) {
  absl::StatusOr<UnitsSpec> s = ParseUnitsSpec(text);
  if (!s.ok()) return s.status();
  return s->units;
}

using Op = DeriveOp;

bool IsArithmetic(int32_t type) { return type >= kType32 && type <= kTypeDouble; }

bool IsBinary(Op op) {
  switch (op) {
    case Op::kPlus: case Op::kMinus: case Op::kStar: case Op::kSlash: case Op::kLt:
    case Op::kLeq: case Op::kEq: case Op::kGeq: case Op::kGt: case Op::kNeq: case Op::kAnd:
    case Op::kOr:
      return true;
    default:
      return false;
  }
}
bool IsRelational(Op op) {
  return op == Op::kLt || op == Op::kLeq || op == Op::kEq || op == Op::kGeq || op == Op::kGt ||
         op == Op::kNeq;
}
bool IsConstant(const DeriveNode& n) { return n.op == Op::kInteger || n.op == Op::kDouble; }
bool IsLeaf(const DeriveNode& n) { return IsConstant(n) || n.op == Op::kName; }

// The operator as libpcp's reports spell it.
const char* Symbol(Op op) {
  switch (op) {
    case Op::kPlus: return "+";
    case Op::kMinus: case Op::kNeg: return "-";
    case Op::kStar: return "*";
    case Op::kSlash: return "/";
    case Op::kLt: return "<";
    case Op::kLeq: return "<=";
    case Op::kEq: return "==";
    case Op::kGeq: return ">=";
    case Op::kGt: return ">";
    case Op::kNeq: return "!=";
    case Op::kAnd: return "&&";
    case Op::kOr: return "||";
    case Op::kNot: return "!";
    default: return "";
  }
}

// What libpcp's report_sem_error prints for the node an error is at.
std::string Where(const DeriveNode& n) {
  auto operand = [](const DeriveNode& a) { return IsLeaf(a) ? a.text : std::string("<expr>"); };
  switch (n.op) {
    case Op::kName:
      return absl::StrCat("operand ", n.text);
    case Op::kNot:
    case Op::kNeg:
      return absl::StrCat(Symbol(n.op), " ", operand(*n.args[0]));
    case Op::kQuest:
      return absl::StrCat(operand(*n.args[0]), " ? ", operand(*n.args[1]), " : ",
                          operand(*n.args[2]));
    case Op::kRescale: {
      const std::string units = n.text.empty() ? "none" : n.text;
      return absl::StrCat(operand(*n.args[0]), " RESCALE ", units);
    }
    case Op::kInstance:
    case Op::kMatchInst:
    case Op::kNoValue:
      return absl::StrCat(DeriveOpName(n.op), " ");
    case Op::kAvg: case Op::kCount: case Op::kMax: case Op::kMin: case Op::kSum:
    case Op::kDefined: case Op::kAnon:
      return absl::StrCat(DeriveOpName(n.op), "(", n.text, ")");
    case Op::kDelta: case Op::kRate: case Op::kInstant: case Op::kScalar:
      // libpcp prints the operand's name, "(null)" for an expression.
      return absl::StrCat(DeriveOpName(n.op), "(",
                          IsLeaf(*n.args[0]) ? n.args[0]->text : "(null)", ")");
    default:
      if (IsBinary(n.op)) {
        return absl::StrCat(operand(*n.args[0]), " ", Symbol(n.op), " ", operand(*n.args[1]));
      }
      return DeriveOpName(n.op);
  }
}

class Checker {
 public:
  Checker(const DeriveLookup& lookup, bool lazy_ternary)
      : lookup_(lookup), lazy_ternary_(lazy_ternary) {}

  DeriveCheck Run(const DeriveNode& tree) {
    DeriveCheck out;
    std::unique_ptr<DeriveBound> b = Bind(tree, /*lazy=*/false);
    if (b != nullptr && Check(*b, nullptr)) out.bound = std::move(b);
    out.error = std::move(error_);
    return out;
  }

 private:
  bool Fail(const DeriveNode& at, const char* why) {
    if (error_.empty()) error_ = absl::StrCat(Where(at), ": ", why);
    return false;
  }

  // Descriptors of names and constants; names under ?: and defined() may
  // be missing (checked where the branch is taken).
  std::unique_ptr<DeriveBound> Bind(const DeriveNode& n, bool lazy) {
    auto b = std::make_unique<DeriveBound>();
    b->node = &n;
    const bool below_lazy = lazy || (lazy_ternary_ && n.op == Op::kQuest);
    for (const auto& a : n.args) {
      std::unique_ptr<DeriveBound> ab = Bind(*a, below_lazy);
      if (ab == nullptr) return nullptr;
      b->args.push_back(std::move(ab));
    }
    const std::string& metric = n.text;
    switch (n.op) {
      case Op::kName: {
        std::optional<DeriveDesc> d = lookup_(metric);
        if (!d.has_value()) {
          if (lazy) {
            // libpcp leaves a zeroed descriptor there.
            b->known = false;
            b->desc = DeriveDesc{kType32, 0, PmUnits{}, 0};
            return b;
          }
          Fail(n, "Unknown operand metric");
          return nullptr;
        }
        b->desc = *d;
        return b;
      }
      case Op::kAvg: case Op::kCount: case Op::kMax: case Op::kMin: case Op::kSum:
      case Op::kDefined: {
        // The operand is a name held in `text`.
        std::optional<DeriveDesc> d = lookup_(metric);
        if (!d.has_value()) {
          if (n.op == Op::kDefined || lazy) {
            b->known = n.op == Op::kDefined;
            if (!b->known) b->desc = DeriveDesc{kType32, 0, PmUnits{}, 0};
            b->fixed_guard = 0;
            return b;
          }
          DeriveNode name;
          name.op = Op::kName;
          name.text = metric;
          Fail(name, "Unknown operand metric");
          return nullptr;
        }
        b->desc = *d;
        b->fixed_guard = 1;  // defined(x): true
        return b;
      }
      case Op::kInteger:
      case Op::kDouble:
      case Op::kNoValue:
        if (!Constant(n, b.get())) return nullptr;
        return b;
      default:
        return b;
    }
  }

  // A constant's descriptor: its kind's, or mkconst()'s / novalue()'s.
  bool Constant(const DeriveNode& n, DeriveBound* b) {
    DeriveDesc d;
    d.type = n.op == Op::kDouble ? kTypeDouble : (n.op == Op::kNoValue ? kType32 : kTypeU32);
    if (n.spec.meta.has_value()) {
      std::optional<DeriveDesc> m = lookup_(*n.spec.meta);
      if (m.has_value()) d = *m;
    }
    if (n.spec.type.has_value()) {
      absl::StatusOr<int32_t> t = ParseType(*n.spec.type);
      if (t.ok()) d.type = *t;
    }
    if (n.spec.semantics.has_value()) {
      absl::StatusOr<int32_t> s = ParseSemantics(*n.spec.semantics);
      if (s.ok()) d.sem = *s;
    }
    if (n.spec.units.has_value()) {
      absl::StatusOr<PmUnits> u = UnitsOf(*n.spec.units);
      if (!u.ok()) {
        if (error_.empty()) {
          error_ = absl::StrCat("mkconst/novalue units=\"", *n.spec.units,
                                "\": not a units string (pmParseUnitsStr(3))");
        }
        return false;
      }
      d.units = *u;
    }
    if (n.spec.indom.has_value()) {
      unsigned domain = 0, serial = 0;
      if (*n.spec.indom == "NULL") {
        d.indom = kIndomNull;
      } else if (std::sscanf(n.spec.indom->c_str(), "%u.%u", &domain, &serial) == 2) {
        d.indom = (domain << 22) | serial;
      }
    }
    b->desc = d;
    return true;
  }

  // 1 (true), 0 (false) or -1: a ?: guard known before any value.
  static int StaticGuard(const DeriveBound& g) {
    const DeriveNode& n = *g.node;
    switch (n.op) {
      case Op::kDefined: return g.fixed_guard;
      case Op::kInteger: return std::atoi(n.text.c_str()) == 0 ? 0 : 1;
      case Op::kNot: {
        const int v = StaticGuard(*g.args[0]);
        return v == -1 ? -1 : 1 - v;
      }
      case Op::kOr: {
        const int v = StaticGuard(*g.args[0]);
        return v == 0 ? StaticGuard(*g.args[1]) : v;
      }
      case Op::kAnd: {
        const int v = StaticGuard(*g.args[0]);
        return v == 1 ? StaticGuard(*g.args[1]) : v;
      }
      default:
        return -1;
    }
  }

  // The first name in `b` not known (a branch of ?: that is taken).
  static const DeriveBound* Unknown(const DeriveBound& b) {
    if (!b.known) return &b;
    if (b.node->op == Op::kQuest) {
      const int g = b.fixed_guard;
      if (const DeriveBound* u = Unknown(*b.args[0])) return u;
      if (g != 0) {
        if (const DeriveBound* u = Unknown(*b.args[1])) return u;
      }
      if (g != 1) return Unknown(*b.args[2]);
      return nullptr;
    }
    for (const auto& a : b.args) {
      if (const DeriveBound* u = Unknown(*a)) return u;
    }
    return nullptr;
  }

  bool Check(DeriveBound& b, const DeriveBound* parent) {
    const DeriveNode& n = *b.node;
    switch (n.op) {
      case Op::kName: case Op::kInteger: case Op::kDouble: case Op::kNoValue:
        return true;
      case Op::kDefined:
        b.desc = DeriveDesc{kTypeU32, kSemDiscrete, PmUnits{}, kIndomNull};
        return true;
      case Op::kQuest:
        return Ternary(b);
      default:
        break;
    }
    for (auto& a : b.args) {
      if (!Check(*a, &b)) return false;
    }
    (void)parent;
    if (IsBinary(n.op)) return Binary(b);
    const DeriveDesc& in = b.args.empty() ? b.desc : b.args[0]->desc;
    if (!b.args.empty()) b.desc = in;
    switch (n.op) {
      case Op::kInstance:
      case Op::kMatchInst:
      case Op::kAnon:
        return true;
      case Op::kRescale:
        return Rescale(b);
      case Op::kNot:
        return true;  // libpcp keeps the operand's descriptor
      case Op::kCount:
        b.desc.type = kTypeU32;
        b.desc.units = PmUnits{};
        b.desc.units.dim_count = 1;
        b.desc.sem = kSemInstant;
        b.desc.indom = kIndomNull;
        return true;
      case Op::kInstant:
        if (in.sem == kSemCounter) b.desc.sem = kSemInstant;
        return true;
      case Op::kScalar:
        b.desc.indom = kIndomNull;
        return true;
      default:
        break;
    }
    // avg, sum, max, min, delta, rate, -x: arithmetic operands.
    if (!IsArithmetic(b.desc.type)) {
      return Fail(n, n.op == Op::kNeg ? "Non-arithmetic operand for unary negation"
                                      : "Non-arithmetic operand for function");
    }
    if (n.op != Op::kSum) b.desc.sem = kSemInstant;
    if (n.op == Op::kRate && in.units.dim_time != 0 && in.units.dim_time != 1) {
      return Fail(n, "Incorrect time dimension for operand");
    }
    if (n.op != Op::kDelta && n.op != Op::kRate && n.op != Op::kNeg) b.desc.indom = kIndomNull;
    switch (n.op) {
      case Op::kAvg:
        b.desc.type = kTypeFloat;
        break;
      case Op::kRate:
        b.desc.type = kTypeDouble;
        b.desc.units.dim_time -= 1;
        b.desc.units.scale_time = b.desc.units.dim_time == 0 ? 0 : kTimeSec;
        break;
      case Op::kNeg:
        if (in.type == kTypeU32) b.desc.type = kType32;
        if (in.type == kTypeU64) b.desc.type = kType64;
        break;
      case Op::kDelta:
        if (in.type == kTypeU32) b.desc.type = kType64;
        if (in.type == kTypeU64) b.desc.type = kTypeDouble;
        break;
      default:
        break;
    }
    return true;
  }

  bool Ternary(DeriveBound& b) {
    const DeriveNode& n = *b.node;
    DeriveBound& guard = *b.args[0];
    if (!Check(guard, &b)) return false;
    const int g = lazy_ternary_ ? StaticGuard(guard) : -1;
    b.fixed_guard = g;
    DeriveBound& then = *b.args[1];
    DeriveBound& otherwise = *b.args[2];
    if (g != 0 && !Check(then, &b)) return false;
    if (g != 1 && !Check(otherwise, &b)) return false;
    // The ':' node's descriptor.
    DeriveDesc colon;
    if (g == -1) {
      colon = then.node->op == Op::kNoValue ? otherwise.desc : then.desc;
      colon.indom = then.desc.indom == kIndomNull ? otherwise.desc.indom : then.desc.indom;
    } else {
      colon = g == 1 ? then.desc : otherwise.desc;
    }
    const DeriveBound* unknown = nullptr;
    if (g != 0) unknown = Unknown(then);
    if (unknown == nullptr && g != 1) unknown = Unknown(otherwise);
    if (unknown != nullptr) {
      if (error_.empty()) {
        error_ = absl::StrCat("operand ", unknown->node->text,
                              ": Unknown metric for ternary expression");
      }
      return false;
    }
    const bool novalue = then.node->op == Op::kNoValue || otherwise.node->op == Op::kNoValue;
    if (g == -1 && !novalue) {
      const DeriveDesc& l = then.desc;
      const DeriveDesc& r = otherwise.desc;
      // libpcp names the ':' node: "<then> : <else>".
      DeriveNode where;
      const char* why = nullptr;
      if (l.type != r.type) {
        why = "Different types for ternary operands";
      } else if (l.indom != r.indom && l.indom != kIndomNull && r.indom != kIndomNull) {
        why = "Different instance domains for ternary operands";
      } else if (l.sem != r.sem) {
        why = "Different semantics for ternary operands";
      } else if (l.units.dim_space != r.units.dim_space ||
                 l.units.scale_space != r.units.scale_space) {
        why = "Different units or scale (space) for ternary operands";
      } else if (l.units.dim_time != r.units.dim_time ||
                 l.units.scale_time != r.units.scale_time) {
        why = "Different units or scale (time) for ternary operands";
      } else if (l.units.dim_count != r.units.dim_count ||
                 l.units.scale_count != r.units.scale_count) {
        why = "Different units or scale (count) for ternary operands";
      } else if (l.units.extra_unit != r.units.extra_unit ||
                 l.units.extra_scale != r.units.extra_scale) {
        why = "Different units or scale (extra) for ternary operands";
      }
      if (why != nullptr) {
        auto operand = [](const DeriveNode& a) {
          return IsLeaf(a) ? a.text : std::string("<expr>");
        };
        if (error_.empty()) {
          error_ = absl::StrCat(operand(*then.node), " : ", operand(*otherwise.node), ": ", why);
        }
        return false;
      }
    }
    if (!IsArithmetic(guard.desc.type)) return Fail(n, "Non-arithmetic operand for ternary guard");
    if (then.desc.indom == kIndomNull && otherwise.desc.indom == kIndomNull &&
        guard.desc.indom != kIndomNull) {
      return Fail(n, "Non-scalar ternary guard with scalar expressions");
    }
    b.desc = colon;
    return true;
  }

  bool Rescale(DeriveBound& b) {
    absl::StatusOr<PmUnits> to = UnitsOf(b.node->text);
    if (!to.ok()) {
      if (error_.empty()) {
        error_ = absl::StrCat("rescale(..., \"", b.node->text,
                              "\"): not a units string (pmParseUnitsStr(3))");
      }
      return false;
    }
    if (!IsArithmetic(b.desc.type)) return Fail(*b.node, "Non-arithmetic operand for function");
    const PmUnits& from = b.desc.units;
    if (from.dim_space != to->dim_space || from.dim_time != to->dim_time ||
        from.dim_count != to->dim_count || from.extra_unit != to->extra_unit) {
      return Fail(*b.node, "Incompatible dimensions");
    }
    b.desc.units = *to;
    return true;
  }

  // One piece: libpcp's map_desc checks in its order (the first failing
  // check names the error), read top to bottom beside it.
  bool Binary(DeriveBound& b) {
    const DeriveNode& n = *b.node;
    const Op op = n.op;
    DeriveBound& lb = *b.args[0];
    DeriveBound& rb = *b.args[1];
    const DeriveDesc& l = lb.desc;
    const DeriveDesc& r = rb.desc;
    const bool relational = IsRelational(op);
    const bool boolean = op == Op::kAnd || op == Op::kOr;
    if (!relational && !boolean) {
      if (l.sem == kSemCounter) {
        if (r.sem == kSemCounter) {
          if (op != Op::kPlus && op != Op::kMinus) return Fail(n, "Illegal operator for counters");
        } else if (op != Op::kStar && op != Op::kSlash) {
          return Fail(n, "Illegal operator for counter and non-counter");
        }
      } else if (r.sem == kSemCounter && op != Op::kStar) {
        return Fail(n, "Illegal operator for non-counter and counter");
      }
    }
    DeriveDesc d = IsConstant(*lb.node) ? r : l;
    if (l.sem != kSemCounter && r.sem != kSemCounter) {
      d.sem = l.sem == kSemDiscrete && r.sem == kSemDiscrete ? kSemDiscrete : kSemInstant;
    }
    if (!IsArithmetic(l.type)) return Fail(n, "Non-arithmetic type for left operand");
    if (!IsArithmetic(r.type)) return Fail(n, "Non-arithmetic type for right operand");
    if (op == Op::kSlash) {
      d.type = kTypeDouble;
    } else if (relational || boolean) {
      d.type = kTypeU32;
    } else {
      d.type = DerivePromote(l.type, r.type);
    }
    const PmUnits& lu = l.units;
    const PmUnits& ru = r.units;
    const bool same_dims = lu.dim_count == ru.dim_count && lu.dim_time == ru.dim_time &&
                           lu.dim_space == ru.dim_space && lu.extra_unit == ru.extra_unit;
    // "none" beside "count" is allowed (pmConvScale(3)).
    const bool none_and_count = lu.dim_time == 0 && ru.dim_time == 0 && lu.dim_space == 0 &&
                                ru.dim_space == 0 && lu.extra_unit == 0 && ru.extra_unit == 0 &&
                                ((lu.dim_count == 0 && ru.dim_count == 1) ||
                                 (lu.dim_count == 1 && ru.dim_count == 0));
    if ((op == Op::kPlus || op == Op::kMinus) && !same_dims && !none_and_count) {
      return Fail(n, "Dimensions are not the same");
    }
    // libpcp compares the operands' types with a constant's node kind
    // (N_INTEGER is 1, PM_TYPE_U32): a U32 operand skips this check.
    if (relational && l.type != kTypeU32 && r.type != kTypeU32 && !same_dims && !none_and_count) {
      return Fail(n, "Dimensions are not the same");
    }
    auto dimensionless = [](const PmUnits& u) {
      return u.dim_count == 0 && u.dim_time == 0 && u.dim_space == 0 && u.extra_unit == 0;
    };
    if (boolean && (!dimensionless(lu) || !dimensionless(ru))) {
      return Fail(n, "Dimensions are not the same");
    }
    if (op == Op::kStar || op == Op::kSlash || relational) {
      if (l.sem == kSemCounter && r.sem != kSemCounter && !dimensionless(ru)) {
        return Fail(n, "Non-counter and not dimensionless for right operand");
      }
      if (l.sem != kSemCounter && r.sem == kSemCounter && !dimensionless(lu)) {
        return Fail(n, "Non-counter and not dimensionless for left operand");
      }
    }
    if (op == Op::kStar && lu.extra_unit != 0 && ru.extra_unit != 0) {
      return Fail(n, "Extra units not allowed for both operands of *");
    }
    if (op == Op::kSlash && lu.extra_unit != 0 && ru.extra_unit != 0 &&
        (lu.extra_unit != ru.extra_unit || lu.extra_scale != ru.extra_scale)) {
      return Fail(n, "Different extra units not allowed for both operands of /");
    }
    if (lu.extra_unit != 0 && ru.extra_unit != 0 &&
        (lu.extra_unit != ru.extra_unit || lu.extra_scale != ru.extra_scale)) {
      return Fail(n, "Operands have incompatible extra units or scale");
    }
    if (op == Op::kPlus || op == Op::kMinus || op == Op::kStar || op == Op::kSlash) {
      MapUnits(b, &d);
    } else {
      d.units = PmUnits{};
    }
    if (l.indom != kIndomNull && r.indom != kIndomNull && l.indom != r.indom) {
      return Fail(n, "Operands should have the same instance domain");
    }
    if (l.indom != kIndomNull && r.indom == kIndomNull) d.indom = l.indom;
    if (r.indom != kIndomNull && l.indom == kIndomNull) d.indom = r.indom;
    b.desc = d;
    return true;
  }

  // Scales of + - * /: the larger scale of a dimension both operands have
  // is kept and the other operand converted (the result then DOUBLE);
  // * and / add and subtract dimensions.
  static void MapUnits(DeriveBound& b, DeriveDesc* d) {
    DeriveBound& lb = *b.args[0];
    DeriveBound& rb = *b.args[1];
    const PmUnits l = lb.desc.units;
    const PmUnits r = rb.desc.units;
    const Op op = b.node->op;
    auto scale = [&](int ldim, int rdim, int lscale, int rscale, int* out_scale, auto factor,
                     bool time_quirk) {
      if (ldim == 0 || rdim == 0 || lscale == rscale) return;
      d->type = kTypeDouble;
      if (lscale > rscale) {
        // The right operand is converted.
        for (int i = rscale; i < lscale; ++i) {
          if (rdim > 0) rb.div *= factor(i); else rb.mul *= factor(i);
        }
      } else {
        *out_scale = rscale;
        for (int i = lscale; i < rscale; ++i) {
          // libpcp tests the right operand's dimension for time and space
          // here (the left's for count).
          const int dim = time_quirk ? rdim : ldim;
          if (dim > 0) lb.div *= factor(i); else lb.mul *= factor(i);
        }
      }
    };
    auto ten = [](int) { return 10.0; };
    auto kilo = [](int) { return 1024.0; };
    auto time = [](int i) {
      static constexpr double kFactor[] = {1000, 1000, 1000, 60, 60};
      return i >= 0 && i < 5 ? kFactor[i] : 1.0;
    };
    scale(l.dim_count, r.dim_count, l.scale_count, r.scale_count, &d->units.scale_count, ten,
          false);
    scale(l.dim_time, r.dim_time, l.scale_time, r.scale_time, &d->units.scale_time, time, true);
    scale(l.dim_space, r.dim_space, l.scale_space, r.scale_space, &d->units.scale_space, kilo,
          true);
    if (op == Op::kStar) {
      d->units.dim_count = l.dim_count + r.dim_count;
      d->units.dim_time = l.dim_time + r.dim_time;
      d->units.dim_space = l.dim_space + r.dim_space;
      if (l.extra_unit == 0 && r.extra_unit != 0) {
        d->units.extra_unit = r.extra_unit;
        d->units.extra_scale = r.extra_scale;
      }
      if (l.extra_unit != 0 && r.extra_unit == 0) {
        d->units.extra_unit = l.extra_unit;
        d->units.extra_scale = l.extra_scale;
      }
    } else if (op == Op::kSlash) {
      d->units.dim_count = l.dim_count - r.dim_count;
      d->units.dim_time = l.dim_time - r.dim_time;
      d->units.dim_space = l.dim_space - r.dim_space;
      if (l.extra_unit != 0 && r.extra_unit != 0) {
        d->units.extra_unit = 0;
        d->units.extra_scale = 0;
      } else if (l.extra_unit != 0) {
        d->units.extra_unit = l.extra_unit;
        d->units.extra_scale = l.extra_scale;
      } else if (r.extra_unit != 0) {
        d->units.extra_unit = -r.extra_unit;
        d->units.extra_scale = r.extra_scale;
      }
    }
    if (d->units.dim_count != 0 && l.dim_count == 0) d->units.scale_count = r.scale_count;
    if (d->units.dim_time != 0 && l.dim_time == 0) d->units.scale_time = r.scale_time;
    if (d->units.dim_space != 0 && l.dim_space == 0) d->units.scale_space = r.scale_space;
    if (d->units.dim_count == 0) d->units.scale_count = 0;
    if (d->units.dim_time == 0) d->units.scale_time = 0;
    if (d->units.dim_space == 0) d->units.scale_space = 0;
    if (d->units.extra_unit == 0) d->units.extra_scale = 0;
  }

  const DeriveLookup& lookup_;
  const bool lazy_ternary_;
  std::string error_;
};

}  // namespace

int32_t DerivePromote(int32_t a, int32_t b) {
  if (a == kTypeDouble || b == kTypeDouble) return kTypeDouble;
  if (a == kTypeFloat || b == kTypeFloat) return kTypeFloat;
  if (a == kTypeU64 || b == kTypeU64) return kTypeU64;
  if (a == kType64 || b == kType64) return kType64;
  if (a == kTypeU32 || b == kTypeU32) return kTypeU32;
  return kType32;
}

DeriveCheck CheckDerived(const DeriveNode& tree, const DeriveLookup& lookup, bool lazy_ternary) {
  return Checker(lookup, lazy_ternary).Run(tree);
}

}  // namespace mmvlog::format

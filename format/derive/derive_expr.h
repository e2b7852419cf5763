// A derived metric's expression as PCP's pmRegisterDerived(3) (PCP 7.2)
// defines its language: the tree ParseDerived (derive_parser.h) builds.
//
// Operands are in `args`, in the order they are written: a binary operator
// has two, a unary operator or a function one, the ternary three (guard,
// then, else), rescale one (its units are `text`), matchinst one (its
// pattern is `text`, `invert` for "!/.../"), metric[instance] one (the
// instance name is `text`).
#ifndef MMVLOG_FORMAT_DERIVE_DERIVE_EXPR_H_
#define MMVLOG_FORMAT_DERIVE_DERIVE_EXPR_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mmvlog::format {

enum class DeriveOp {
  kName,      // a metric; text is its name
  kInteger,   // text as written (at most 2^32-1), or mkconst(INTEGER, ...)
  kDouble,    // text as written, or mkconst(DOUBLE, ...)
  kNoValue,   // novalue(...), only as an operand of ?:
  kPlus, kMinus, kStar, kSlash,
  kNeg,
  kLt, kLeq, kEq, kGeq, kGt, kNeq,
  kAnd, kOr, kNot,
  kQuest,     // guard ? then : else
  kAvg, kCount, kMax, kMin, kSum,  // over the instances of one metric
  kDelta, kRate, kInstant,
  kDefined,   // of one metric name
  kRescale,   // text: the units string
  kMatchInst, // text: the regular expression
  kInstance,  // metric[instance] or (expr)[instance]; text: the instance
  kScalar,
  kAnon,      // anon(PM_TYPE_...): text is the type's name
};

// mkconst()'s and novalue()'s tag=value parameters, as written; each is
// checked by the parser (type and semantics names, indom numbers) except
// the units string (pmParseUnitsStr(3)), checked where units are inferred.
struct DeriveSpec {
  std::optional<std::string> type;       // "U32", "64", "DOUBLE", ... upper case
  std::optional<std::string> semantics;  // "COUNTER", "INSTANT", "DISCRETE"
  std::optional<std::string> units;
  std::optional<std::string> indom;      // "NULL" or "domain.serial"
  std::optional<std::string> meta;       // a metric name
};

struct DeriveNode {
  DeriveOp op = DeriveOp::kName;
  std::string text;
  bool invert = false;
  bool mkconst = false;  // a constant made by mkconst()
  DeriveSpec spec;
  std::vector<std::unique_ptr<DeriveNode>> args;
  size_t position = 0;  // where it starts in the expression
};

// The name PCP gives the operator in its messages ("PLUS", "NEG", "QUEST").
const char* DeriveOpName(DeriveOp op);

// The tree as one line: "(PLUS (NAME 'a') (STAR (INTEGER '2') (NAME 'b')))".
std::string DeriveTreeString(const DeriveNode& n);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_DERIVE_DERIVE_EXPR_H_

#include "format/derive/derive_expr.h"

#include "absl/strings/str_cat.h"

namespace mmvlog::format {

const char* DeriveOpName(DeriveOp op) {
  switch (op) {
    case DeriveOp::kName: return "NAME";
    case DeriveOp::kInteger: return "INTEGER";
    case DeriveOp::kDouble: return "DOUBLE";
    case DeriveOp::kNoValue: return "NOVALUE";
    case DeriveOp::kPlus: return "PLUS";
    case DeriveOp::kMinus: return "MINUS";
    case DeriveOp::kStar: return "STAR";
    case DeriveOp::kSlash: return "SLASH";
    case DeriveOp::kNeg: return "NEG";
    case DeriveOp::kLt: return "LT";
    case DeriveOp::kLeq: return "LEQ";
    case DeriveOp::kEq: return "EQ";
    case DeriveOp::kGeq: return "GEQ";
    case DeriveOp::kGt: return "GT";
    case DeriveOp::kNeq: return "NEQ";
    case DeriveOp::kAnd: return "AND";
    case DeriveOp::kOr: return "OR";
    case DeriveOp::kNot: return "NOT";
    case DeriveOp::kQuest: return "QUEST";
    case DeriveOp::kAvg: return "AVG";
    case DeriveOp::kCount: return "COUNT";
    case DeriveOp::kMax: return "MAX";
    case DeriveOp::kMin: return "MIN";
    case DeriveOp::kSum: return "SUM";
    case DeriveOp::kDelta: return "DELTA";
    case DeriveOp::kRate: return "RATE";
    case DeriveOp::kInstant: return "INSTANT";
    case DeriveOp::kDefined: return "DEFINED";
    case DeriveOp::kRescale: return "RESCALE";
    case DeriveOp::kMatchInst: return "FILTERINST";
    case DeriveOp::kInstance: return "FILTERINST";
    case DeriveOp::kScalar: return "SCALAR";
    case DeriveOp::kAnon: return "ANON";
  }
  return "";
}

std::string DeriveTreeString(const DeriveNode& n) {
  std::string out = absl::StrCat("(", DeriveOpName(n.op));
  if (!n.text.empty() || n.op == DeriveOp::kInstance) {
    absl::StrAppend(&out, " ", n.invert ? "!" : "", "'", n.text, "'");
  }
  for (const auto& a : n.args) absl::StrAppend(&out, " ", DeriveTreeString(*a));
  return out + ")";
}

}  // namespace mmvlog::format

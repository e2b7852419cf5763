#include "format/derive/derive_parser.h"

#include <regex.h>

#include <cctype>
#include <cstdio>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "format/derive/derive_lexer.h"

namespace mmvlog::format {
namespace {

using T = DeriveToken;

// Binary operators: their level (1 lowest) and node.
struct Binary {
  int level = 0;
  DeriveOp op = DeriveOp::kName;
};

Binary BinaryOf(T t) {
  switch (t) {
    case T::kQuest: return {1, DeriveOp::kQuest};
    case T::kAnd: return {2, DeriveOp::kAnd};
    case T::kOr: return {2, DeriveOp::kOr};
    case T::kLt: return {4, DeriveOp::kLt};
    case T::kLeq: return {4, DeriveOp::kLeq};
    case T::kEq: return {4, DeriveOp::kEq};
    case T::kGeq: return {4, DeriveOp::kGeq};
    case T::kGt: return {4, DeriveOp::kGt};
    case T::kNeq: return {4, DeriveOp::kNeq};
    case T::kPlus: return {5, DeriveOp::kPlus};
    case T::kMinus: return {5, DeriveOp::kMinus};
    case T::kStar: return {6, DeriveOp::kStar};
    case T::kSlash: return {6, DeriveOp::kSlash};
    default: return {};
  }
}
constexpr int kNotLevel = 3;
constexpr int kNegLevel = 5;

// What may follow a whole expression: after a metric name anything else is
// "operator expected".
bool FollowsExpression(T t) {
  switch (t) {
    case T::kEnd: case T::kPlus: case T::kMinus: case T::kStar: case T::kSlash:
    case T::kLParen: case T::kRParen: case T::kLt: case T::kLeq: case T::kEq:
    case T::kGeq: case T::kGt: case T::kNeq: case T::kAnd: case T::kOr:
    case T::kQuest: case T::kColon: case T::kComma:
      return true;
    default:
      return false;
  }
}

// An operator that cannot begin an expression, as the first token.
bool UnexpectedInitially(T t) {
  switch (t) {
    case T::kPlus: case T::kStar: case T::kSlash: case T::kRParen: case T::kLt:
    case T::kLeq: case T::kEq: case T::kGeq: case T::kGt: case T::kNeq: case T::kAnd:
    case T::kOr: case T::kQuest: case T::kColon:
      return true;
    default:
      return false;
  }
}

std::string Follow(const char* what, const char* after) {
  return absl::StrCat(what, " expected to follow ", after);
}

class Parser {
 public:
  explicit Parser(absl::string_view expr) : lexer_(expr) {}

  DeriveParse Run() {
    DeriveParse out;
    if (UnexpectedInitially(Peek().token)) {
      // libpcp takes the operator, then stops at what comes after it.
      const std::string op = DeriveTokenText(Peek().token);
      Advance();
      Fail(Peek(), absl::StrCat("Unexpected initial '", op, "'"));
    } else {
      std::unique_ptr<DeriveNode> tree = Expression(1, /*first=*/true);
      if (tree != nullptr) {
        const T t = Peek().token;
        if (t == T::kRParen || t == T::kLParen) {
          Advance();
          Fail(Peek(), absl::StrCat("Unexpected '", DeriveTokenText(t), "'"));
        } else if (t != T::kEnd) {
          Fail(Peek());
        } else {
          out.tree = std::move(tree);
        }
      }
    }
    if (error_.has_value()) out.tree.reset();
    out.error = std::move(error_);
    return out;
  }

 private:
  const DeriveLexeme& Peek() {
    if (!peeked_) {
      current_ = lexer_.Next();
      peeked_ = true;
    }
    return current_;
  }
  DeriveLexeme Advance() {
    Peek();
    peeked_ = false;
    last_ = current_;
    return current_;
  }

  // Records the first error: at `at`, with the lexer's message for a token
  // it refused, else `message`, else the innermost open construct's.
  std::nullptr_t Fail(const DeriveLexeme& at, std::string message = "") {
    if (error_.has_value()) return nullptr;
    if (at.token == T::kError) {
      message = at.error;
    } else if (message.empty()) {
      for (auto it = open_.rbegin(); it != open_.rend(); ++it) {
        if (!it->empty()) {
          message = *it;
          break;
        }
      }
    }
    error_ = DeriveSyntaxError{at.position, std::move(message)};
    return nullptr;
  }

  // A construct whose errors carry `message` while it is open.
  struct Open {
    Open(Parser* p, std::string message) : p(p) { p->open_.push_back(std::move(message)); }
    ~Open() { p->open_.pop_back(); }
    Parser* p;
  };

  bool Expect(T t) {
    if (Peek().token != t) {
      Fail(Peek());
      return false;
    }
    Advance();
    return true;
  }

  static std::unique_ptr<DeriveNode> Node(DeriveOp op, size_t position) {
    auto n = std::make_unique<DeriveNode>();
    n->op = op;
    n->position = position;
    return n;
  }

  // Operators of `min_level` or higher, with their operands.
  std::unique_ptr<DeriveNode> Expression(int min_level, bool first = false) {
    std::unique_ptr<DeriveNode> left = Primary(first);
    while (left != nullptr) {
      const Binary b = BinaryOf(Peek().token);
      if (b.level == 0 || b.level < min_level) break;
      Advance();
      auto n = Node(b.op, left->position);
      n->args.push_back(std::move(left));
      if (b.op == DeriveOp::kQuest) {
        std::unique_ptr<DeriveNode> then, otherwise;
        {
          Open o(this, Follow("Arithmetic expression", "QUEST"));
          then = Operand(1);
          if (then == nullptr || !Expect(T::kColon)) return nullptr;
        }
        {
          Open o(this, Follow("Arithmetic expression", "COLON"));
          otherwise = Operand(b.level + 1);
          if (otherwise == nullptr) return nullptr;
        }
        if (then->op == DeriveOp::kNoValue && otherwise->op == DeriveOp::kNoValue) {
          return Fail(last_, "novalue() may appear at most once in a ternary expression");
        }
        n->args.push_back(std::move(then));
        n->args.push_back(std::move(otherwise));
      } else {
        const bool boolean = b.op == DeriveOp::kAnd || b.op == DeriveOp::kOr;
        Open o(this, Follow(boolean ? "Boolean expression" : "Arithmetic expression",
                            DeriveOpName(b.op)));
        std::unique_ptr<DeriveNode> right = Expression(b.level + 1);
        if (right == nullptr) return nullptr;
        n->args.push_back(std::move(right));
      }
      left = std::move(n);
    }
    return left;
  }

  // An operand of ?:, which may be novalue().
  std::unique_ptr<DeriveNode> Operand(int min_level) {
    if (Peek().token == T::kNoValue) return NoValue();
    return Expression(min_level);
  }

  std::unique_ptr<DeriveNode> Primary(bool first) {
    const DeriveLexeme& t = Peek();
    switch (t.token) {
      case T::kName: {
        DeriveLexeme name = Advance();
        auto n = Node(DeriveOp::kName, name.position);
        n->text = std::move(name.text);
        if (Peek().token == T::kInstName) return Instance(std::move(n));
        if (!FollowsExpression(Peek().token)) {
          return Fail(Peek(), Follow("Arithmetic or relational or boolean operator", "NAME"));
        }
        return n;
      }
      case T::kInteger:
      case T::kDouble: {
        DeriveLexeme num = Advance();
        auto n = Node(num.token == T::kInteger ? DeriveOp::kInteger : DeriveOp::kDouble,
                      num.position);
        n->text = std::move(num.text);
        return n;
      }
      case T::kLParen: {
        const size_t at = Advance().position;
        std::unique_ptr<DeriveNode> inner;
        {
          Open o(this, first ? "Unexpected initial '('" : "");
          inner = Expression(1);
          if (inner == nullptr || !Expect(T::kRParen)) return nullptr;
        }
        inner->position = at;
        if (Peek().token == T::kInstName) return Instance(std::move(inner));
        return inner;
      }
      case T::kMinus:
      case T::kNot: {
        const bool neg = t.token == T::kMinus;
        const size_t at = Advance().position;
        auto n = Node(neg ? DeriveOp::kNeg : DeriveOp::kNot, at);
        Open o(this, neg ? Follow("Arithmetic expression", "NEG")
                         : Follow("Boolean expression", "NOT"));
        std::unique_ptr<DeriveNode> operand = Expression(neg ? kNegLevel + 1 : kNotLevel + 1);
        if (operand == nullptr) return nullptr;
        n->args.push_back(std::move(operand));
        return n;
      }
      case T::kAvg: return OfName(DeriveOp::kAvg, Follow("Metric name", "avg("));
      case T::kCount: return OfName(DeriveOp::kCount, Follow("Metric name", "count("));
      case T::kMax: return OfName(DeriveOp::kMax, Follow("Metric name", "max("));
      case T::kMin: return OfName(DeriveOp::kMin, Follow("Metric name", "min("));
      case T::kSum: return OfName(DeriveOp::kSum, Follow("Metric name", "sum("));
      case T::kAnon: return OfName(DeriveOp::kAnon, Follow("Metric name", "anon("));
      case T::kDefined: return OfName(DeriveOp::kDefined, "");
      case T::kDelta: return OfExpr(DeriveOp::kDelta, Follow("<expr>", "delta("));
      case T::kRate: return OfExpr(DeriveOp::kRate, Follow("<expr>", "rate("));
      case T::kScalar: return OfExpr(DeriveOp::kScalar, Follow("<expr>", "scalar("));
      case T::kInstant: return OfExpr(DeriveOp::kInstant, Follow("Metric name", "instant("));
      case T::kRescale: return Rescale();
      case T::kMatchInst: return MatchInst();
      case T::kMkConst: return MkConst();
      default:
        return Fail(t);
    }
  }

  std::unique_ptr<DeriveNode> Instance(std::unique_ptr<DeriveNode> of) {
    DeriveLexeme inst = Advance();
    auto n = Node(DeriveOp::kInstance, of->position);
    n->text = std::move(inst.text);
    n->args.push_back(std::move(of));
    return n;
  }

  // f(NAME): avg, count, max, min, sum, anon, defined.
  std::unique_ptr<DeriveNode> OfName(DeriveOp op, std::string message) {
    auto n = Node(op, Advance().position);
    Advance();  // '(' (the lexer saw it)
    Open o(this, std::move(message));
    if (Peek().token != T::kName) return Fail(Peek());
    n->text = Advance().text;
    if (!Expect(T::kRParen)) return nullptr;
    return n;
  }

  // f(expr): delta, rate, instant, scalar.
  std::unique_ptr<DeriveNode> OfExpr(DeriveOp op, std::string message) {
    auto n = Node(op, Advance().position);
    Advance();
    Open o(this, std::move(message));
    std::unique_ptr<DeriveNode> arg = Expression(1);
    if (arg == nullptr || !Expect(T::kRParen)) return nullptr;
    n->args.push_back(std::move(arg));
    return n;
  }

  std::unique_ptr<DeriveNode> Rescale() {
    auto n = Node(DeriveOp::kRescale, Advance().position);
    Advance();
    {
      Open o(this, Follow("Arithmetic or relational or boolean operator", "rescale("));
      std::unique_ptr<DeriveNode> arg = Expression(1);
      if (arg == nullptr || !Expect(T::kComma)) return nullptr;
      n->args.push_back(std::move(arg));
    }
    Open o(this, Follow("Units string", "rescale(<expr>,"));
    if (Peek().token != T::kString) return Fail(Peek());
    n->text = Advance().text;
    if (!Expect(T::kRParen)) return nullptr;
    return n;
  }

  std::unique_ptr<DeriveNode> MatchInst() {
    auto n = Node(DeriveOp::kMatchInst, Advance().position);
    Advance();
    {
      Open o(this, Follow("<filter>, <expr>)", "matchinst("));
      if (Peek().token == T::kNot) {
        Advance();
        n->invert = true;
      }
      if (Peek().token != T::kPattern) return Fail(Peek());
      DeriveLexeme pattern = Advance();
      regex_t re;
      const int rc = ::regcomp(&re, pattern.text.c_str(), REG_EXTENDED | REG_NOSUB);
      if (rc != 0) {
        char why[128];
        ::regerror(rc, &re, why, sizeof(why));
        return Fail(pattern, absl::StrCat("bad regular expression: '", why, "'"));
      }
      ::regfree(&re);
      n->text = std::move(pattern.text);
    }
    {
      Open o(this, Follow(", <expr>)", "matchinst(<filter>"));
      if (!Expect(T::kComma)) return nullptr;
    }
    Open o(this, Follow("<expr>)", "matchinst(<filter>,"));
    std::unique_ptr<DeriveNode> arg = Expression(1);
    if (arg == nullptr || Peek().token != T::kRParen) return arg == nullptr ? nullptr : Fail(Peek());
    lexer_.set_in_matchinst(false);  // before anything after ')' is read
    Advance();
    n->args.push_back(std::move(arg));
    return n;
  }

  std::unique_ptr<DeriveNode> MkConst() {
    const size_t at = Advance().position;
    Advance();
    const T kind = Peek().token;
    if (kind != T::kInteger && kind != T::kDouble) return Fail(Peek());
    auto n = Node(kind == T::kInteger ? DeriveOp::kInteger : DeriveOp::kDouble, at);
    n->mkconst = true;
    n->text = Advance().text;
    Open o(this, kind == T::kInteger ? Follow("metadata keyword", "mkconst(type") : "");
    if (!Expect(T::kComma) || !SpecList(&n->spec) || !Expect(T::kRParen)) return nullptr;
    if (kind == T::kDouble && n->spec.type.has_value() && *n->spec.type != "FLOAT" &&
        *n->spec.type != "DOUBLE") {
      return Fail(last_, absl::StrCat("Incompatible floating point constant and type '",
                                      *n->spec.type, "'"));
    }
    return n;
  }

  std::unique_ptr<DeriveNode> NoValue() {
    auto n = Node(DeriveOp::kNoValue, Advance().position);
    Advance();
    Open o(this, Follow("metadata keyword", "novalue("));
    if (Peek().token != T::kRParen && !SpecList(&n->spec)) return nullptr;
    if (!Expect(T::kRParen)) return nullptr;
    return n;
  }

  // tag=value[, tag=value ...]; each value checked as libpcp checks it.
  bool SpecList(DeriveSpec* spec) {
    for (;;) {
      const T tag = Peek().token;
      if (tag != T::kType && tag != T::kSemantics && tag != T::kUnits && tag != T::kInDom &&
          tag != T::kMeta) {
        Fail(Peek());
        return false;
      }
      Advance();
      if (!Expect(T::kAssign)) return false;
      const T v = Peek().token;
      const bool value = tag == T::kMeta ? v == T::kName
                                         : (v == T::kString || v == T::kName ||
                                            v == T::kInteger || v == T::kDouble);
      if (!value) {
        Fail(Peek());
        return false;
      }
      DeriveLexeme val = Advance();
      if (!SpecValue(tag, val, spec)) return false;
      if (Peek().token != T::kComma) return true;
      Advance();
    }
  }

  bool SpecValue(T tag, const DeriveLexeme& val, DeriveSpec* spec) {
    const std::string upper = absl::AsciiStrToUpper(val.text);
    switch (tag) {
      case T::kType:
        for (const char* known : {"32", "U32", "64", "U64", "FLOAT", "DOUBLE"}) {
          if (upper == known) {
            spec->type = upper;
            return true;
          }
        }
        Fail(val, absl::StrCat("Unrecognized value for type '", val.text, "'"));
        return false;
      case T::kSemantics:
        for (const char* known : {"COUNTER", "INSTANT", "DISCRETE"}) {
          if (upper == known) {
            spec->semantics = upper;
            return true;
          }
        }
        Fail(val, absl::StrCat("Unrecognized value for semantics '", val.text, "'"));
        return false;
      case T::kUnits:
        spec->units = val.text;
        return true;
      case T::kInDom: {
        unsigned domain = 0, serial = 0;
        int used = 0;
        if (upper == "NULL") {
          spec->indom = "NULL";
          return true;
        }
        if (std::sscanf(val.text.c_str(), "%u.%u%n", &domain, &serial, &used) == 2 &&
            static_cast<size_t>(used) == val.text.size() && domain < 511 &&
            serial < (1u << 22)) {
          spec->indom = val.text;
          return true;
        }
        Fail(val, absl::StrCat("Illegal indom: '", val.text, "'"));
        return false;
      }
      default:
        spec->meta = val.text;
        return true;
    }
  }

  DeriveLexer lexer_;
  DeriveLexeme current_;
  DeriveLexeme last_;
  bool peeked_ = false;
  std::vector<std::string> open_;
  std::optional<DeriveSyntaxError> error_;
};

}  // namespace

DeriveParse ParseDerived(absl::string_view expr) { return Parser(expr).Run(); }

std::string FormatDeriveSyntaxError(absl::string_view expr, const DeriveSyntaxError& error) {
  std::string caret(expr);
  for (size_t i = 0; i < caret.size(); ++i) {
    if (i == error.position) {
      caret[i] = '^';
    } else if (!std::isspace(static_cast<unsigned char>(caret[i]))) {
      caret[i] = ' ';
    }
  }
  std::string out = absl::StrCat(expr, "\n", caret, "\n");
  if (!error.message.empty()) absl::StrAppend(&out, error.message, "\n");
  return out;
}

}  // namespace mmvlog::format

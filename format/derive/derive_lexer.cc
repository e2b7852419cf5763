#include "format/derive/derive_lexer.h"

#include <cctype>
#include <cstdint>

#include "absl/strings/numbers.h"

namespace mmvlog::format {
namespace {

struct Word {
  const char* text;
  DeriveToken token;
};

constexpr Word kFunctions[] = {
    {"avg", DeriveToken::kAvg},         {"count", DeriveToken::kCount},
    {"delta", DeriveToken::kDelta},     {"max", DeriveToken::kMax},
    {"min", DeriveToken::kMin},         {"sum", DeriveToken::kSum},
    {"anon", DeriveToken::kAnon},       {"rate", DeriveToken::kRate},
    {"instant", DeriveToken::kInstant}, {"mkconst", DeriveToken::kMkConst},
    {"novalue", DeriveToken::kNoValue}, {"rescale", DeriveToken::kRescale},
    {"defined", DeriveToken::kDefined}, {"matchinst", DeriveToken::kMatchInst},
    {"scalar", DeriveToken::kScalar},
};

constexpr Word kKeywords[] = {
    {"type", DeriveToken::kType},   {"semantics", DeriveToken::kSemantics},
    {"units", DeriveToken::kUnits}, {"indom", DeriveToken::kInDom},
    {"meta", DeriveToken::kMeta},
};

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool IsAlpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

}  // namespace

// One piece: libpcp's lexer is one switch on the first character; kept so,
// each token's few lines side by side, to read against it.
DeriveLexeme DeriveLexer::Next() {
  while (at_ < expr_.size() && std::isspace(static_cast<unsigned char>(expr_[at_]))) ++at_;
  DeriveLexeme out;
  if (at_ >= expr_.size()) {
    // libpcp points at the last character read.
    out.token = DeriveToken::kEnd;
    out.position = expr_.empty() ? 0 : expr_.size() - 1;
    return out;
  }
  const size_t start = at_;
  out.position = start;
  const char c = expr_[at_++];
  auto fail = [&](const char* why) {
    out.token = DeriveToken::kError;
    out.error = why;
    return out;
  };
  auto one = [&](DeriveToken t) {
    out.token = t;
    return out;
  };
  auto two = [&](char second, DeriveToken both, DeriveToken alone) {
    if (at_ < expr_.size() && expr_[at_] == second) {
      ++at_;
      return one(both);
    }
    return one(alone);
  };
  if (IsDigit(c) || c == '.') {
    bool dot = c == '.';
    while (at_ < expr_.size() && (IsDigit(expr_[at_]) || (!dot && expr_[at_] == '.'))) {
      if (expr_[at_] == '.') dot = true;
      ++at_;
    }
    out.text = std::string(expr_.substr(start, at_ - start));
    if (dot) return one(DeriveToken::kDouble);
    uint64_t v = 0;
    if (!absl::SimpleAtoi(out.text, &v) || v > 0xffffffffULL) {
      return fail("Constant value too large");
    }
    return one(DeriveToken::kInteger);
  }
  if (IsAlpha(c)) {
    while (at_ < expr_.size() &&
           (IsAlpha(expr_[at_]) || IsDigit(expr_[at_]) || expr_[at_] == '_' || expr_[at_] == '.')) {
      ++at_;
    }
    out.text = std::string(expr_.substr(start, at_ - start));
    if (at_ < expr_.size() && expr_[at_] == '(') {
      for (const Word& w : kFunctions) {
        if (out.text == w.text) {
          if (w.token == DeriveToken::kMatchInst) in_matchinst_ = true;
          return one(w.token);
        }
      }
    }
    for (const Word& w : kKeywords) {
      if (out.text == w.text) return one(w.token);
    }
    return one(DeriveToken::kName);
  }
  // Quoted, bracketed or slashed text up to its closing character.
  auto delimited = [&](char close, bool escapes, DeriveToken t, const char* unterminated) {
    std::string text;
    for (;;) {
      if (at_ >= expr_.size()) return fail(unterminated);
      const char d = expr_[at_++];
      if (escapes && d == '\\') {
        if (at_ >= expr_.size()) return fail(unterminated);
        text += expr_[at_++];
        continue;
      }
      if (d == close) break;
      text += d;
    }
    out.text = std::move(text);
    return one(t);
  };
  switch (c) {
    case '+': return one(DeriveToken::kPlus);
    case '-': return one(DeriveToken::kMinus);
    case '*': return one(DeriveToken::kStar);
    case '/':
      if (in_matchinst_) {
        return delimited('/', true, DeriveToken::kPattern, "unterminated pattern");
      }
      return one(DeriveToken::kSlash);
    case '(': return one(DeriveToken::kLParen);
    case ')': return one(DeriveToken::kRParen);
    case '?': return one(DeriveToken::kQuest);
    case ':': return one(DeriveToken::kColon);
    case ',': return one(DeriveToken::kComma);
    case '<': return two('=', DeriveToken::kLeq, DeriveToken::kLt);
    case '>': return two('=', DeriveToken::kGeq, DeriveToken::kGt);
    case '=': return two('=', DeriveToken::kEq, DeriveToken::kAssign);
    case '!': return two('=', DeriveToken::kNeq, DeriveToken::kNot);
    case '&':
      if (at_ < expr_.size() && expr_[at_] == '&') return ++at_, one(DeriveToken::kAnd);
      return fail("Illegal character");
    case '|':
      if (at_ < expr_.size() && expr_[at_] == '|') return ++at_, one(DeriveToken::kOr);
      return fail("Illegal character");
    case '"': return delimited('"', false, DeriveToken::kString, "unterminated STRING");
    case '[':
      return delimited(']', true, DeriveToken::kInstName, "unterminated instance name");
    default:
      return fail("Illegal character");
  }
}

const char* DeriveTokenText(DeriveToken t) {
  switch (t) {
    case DeriveToken::kPlus: return "+";
    case DeriveToken::kMinus: return "-";
    case DeriveToken::kStar: return "*";
    case DeriveToken::kSlash: return "/";
    case DeriveToken::kQuest: return "?";
    case DeriveToken::kColon: return ":";
    case DeriveToken::kLParen: return "(";
    case DeriveToken::kRParen: return ")";
    case DeriveToken::kComma: return ",";
    case DeriveToken::kAssign: return "=";
    case DeriveToken::kLt: return "<";
    case DeriveToken::kLeq: return "<=";
    case DeriveToken::kEq: return "==";
    case DeriveToken::kGeq: return ">=";
    case DeriveToken::kGt: return ">";
    case DeriveToken::kNeq: return "!=";
    case DeriveToken::kAnd: return "&&";
    case DeriveToken::kOr: return "||";
    case DeriveToken::kNot: return "!";
    case DeriveToken::kAvg: return "avg(";
    case DeriveToken::kCount: return "count(";
    case DeriveToken::kDelta: return "delta(";
    case DeriveToken::kMax: return "max(";
    case DeriveToken::kMin: return "min(";
    case DeriveToken::kSum: return "sum(";
    case DeriveToken::kAnon: return "anon(";
    case DeriveToken::kRate: return "rate(";
    case DeriveToken::kInstant: return "instant(";
    case DeriveToken::kMkConst: return "mkconst(";
    case DeriveToken::kNoValue: return "novalue(";
    case DeriveToken::kRescale: return "rescale(";
    case DeriveToken::kDefined: return "defined(";
    case DeriveToken::kMatchInst: return "matchinst(";
    case DeriveToken::kScalar: return "scalar(";
    default: return "";
  }
}

}  // namespace mmvlog::format

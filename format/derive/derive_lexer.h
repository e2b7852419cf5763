// The tokens of a derived metric's expression, as libpcp's lexer reads
// them (PCP 7.2 derive_parser.y.in, derive_lex): names are letters then
// letters, digits, '_' and '.'; a name followed at once by '(' is a
// function when it is one of PCP's; "type", "semantics", "units", "indom"
// and "meta" are keywords wherever they appear; an integer is at most
// 2^32-1; "1.5.6" is the double 1.5 then the double .6; "[...]" is an
// instance name ("\" escapes the next character); inside matchinst(...) a
// '/' starts a /pattern/. A token the lexer refuses is kError with
// libpcp's message ("Illegal character", "Constant value too large",
// "unterminated STRING", ...).
#ifndef MMVLOG_FORMAT_DERIVE_DERIVE_LEXER_H_
#define MMVLOG_FORMAT_DERIVE_DERIVE_LEXER_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace mmvlog::format {

enum class DeriveToken {
  kEnd, kError,
  kInteger, kDouble, kName, kString, kInstName, kPattern,
  kPlus, kMinus, kStar, kSlash, kQuest, kColon, kLParen, kRParen, kComma, kAssign,
  kLt, kLeq, kEq, kGeq, kGt, kNeq, kAnd, kOr, kNot,
  // Functions (a name directly followed by '(').
  kAvg, kCount, kDelta, kMax, kMin, kSum, kAnon, kRate, kInstant, kMkConst, kNoValue,
  kRescale, kDefined, kMatchInst, kScalar,
  // Keywords of mkconst() and novalue().
  kType, kSemantics, kUnits, kInDom, kMeta,
};

struct DeriveLexeme {
  DeriveToken token = DeriveToken::kEnd;
  std::string text;     // a name, a number, a string's, instance's or pattern's content
  size_t position = 0;  // where it starts; kEnd: the last character (as libpcp)
  std::string error;    // kError: libpcp's message
};

class DeriveLexer {
 public:
  explicit DeriveLexer(absl::string_view expr) : expr_(expr) {}

  DeriveLexeme Next();
  // Whether '/' starts a pattern (from matchinst's name to its end).
  void set_in_matchinst(bool on) { in_matchinst_ = on; }

 private:
  absl::string_view expr_;
  size_t at_ = 0;
  bool in_matchinst_ = false;
};

// The spelling of a token in PCP's messages ("+", "<=", "avg(").
const char* DeriveTokenText(DeriveToken t);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_DERIVE_DERIVE_LEXER_H_

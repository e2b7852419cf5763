// Parses a derived metric's expression (pmRegisterDerived(3), PCP 7.2) into
// a DeriveNode tree, with libpcp's precedence and its syntax errors.
//
// Precedence, lowest first, each level left-associative, as libpcp's
// grammar declares it: ?: ; && || ; prefix ! ; < <= == >= > != ; + - and
// prefix - ; * /. So "-a*b" is -(a*b), "!a>b||c" is (!(a>b))||c (the man
// page's "!((a>b)||(c<d))" is not what libpcp does) and "a?b:c?d:e" is
// ((a?b:c)?d:e).
//
// A syntax error is where libpcp's caret goes (the start of the token it
// stopped at; at the end of the text, its last character) and the message
// libpcp gives, or none where it gives none ("3 4"). The message comes from
// the innermost construct still open at the error: "Arithmetic expression
// expected to follow PLUS", "Metric name expected to follow sum(",
// "Unexpected initial '('", ... (tests/pcp:derive_syntax_test holds them
// beside pminfo 7.2's, and 6.0.3's where they differ).
#ifndef MMVLOG_FORMAT_DERIVE_DERIVE_PARSER_H_
#define MMVLOG_FORMAT_DERIVE_DERIVE_PARSER_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "format/derive/derive_expr.h"

namespace mmvlog::format {

struct DeriveSyntaxError {
  size_t position = 0;
  std::string message;  // "" where libpcp says nothing more than "syntax error"
};

struct DeriveParse {
  std::unique_ptr<DeriveNode> tree;       // set when there is no error
  std::optional<DeriveSyntaxError> error;
};

DeriveParse ParseDerived(absl::string_view expr);

// libpcp's report of a syntax error below its first line: the expression,
// a line with '^' under `position` (white space kept, everything else
// blank), then the message if any. Each line ends in '\n'.
std::string FormatDeriveSyntaxError(absl::string_view expr, const DeriveSyntaxError& error);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_DERIVE_DERIVE_PARSER_H_

// The tree ParseDerived builds: libpcp's precedence and associativity
// (derive_parser.h), each operand in place. Syntax errors are compared with
// libpcp itself in tests/pcp:derive_syntax_test.
#include "format/derive/derive_parser.h"

#include <string>

#include <gtest/gtest.h>

#include "format/derive/derive_expr.h"

namespace mmvlog::format {
namespace {

std::string Tree(const std::string& expr) {
  const DeriveParse p = ParseDerived(expr);
  if (p.error.has_value()) return "error at " + std::to_string(p.error->position) + ": " + p.error->message;
  return DeriveTreeString(*p.tree);
}

TEST(DeriveParserTest, Precedence) {
  const struct {
    const char* expr;
    const char* tree;
  } kCases[] = {
      {"a+b*c", "(PLUS (NAME 'a') (STAR (NAME 'b') (NAME 'c')))"},
      {"a-b-c", "(MINUS (MINUS (NAME 'a') (NAME 'b')) (NAME 'c'))"},
      {"a/b/c", "(SLASH (SLASH (NAME 'a') (NAME 'b')) (NAME 'c'))"},
      {"-a*b", "(NEG (STAR (NAME 'a') (NAME 'b')))"},
      {"-a+b", "(PLUS (NEG (NAME 'a')) (NAME 'b'))"},
      {"a-b>c+d", "(GT (MINUS (NAME 'a') (NAME 'b')) (PLUS (NAME 'c') (NAME 'd')))"},
      {"a>b!=c", "(NEQ (GT (NAME 'a') (NAME 'b')) (NAME 'c'))"},
      {"a>=b||b>c&&d!=e||f>g",
       "(OR (AND (OR (GEQ (NAME 'a') (NAME 'b')) (GT (NAME 'b') (NAME 'c'))) "
       "(NEQ (NAME 'd') (NAME 'e'))) (GT (NAME 'f') (NAME 'g')))"},
      {"!a>b||c<d", "(OR (NOT (GT (NAME 'a') (NAME 'b'))) (LT (NAME 'c') (NAME 'd')))"},
      {"!a<b+c", "(NOT (LT (NAME 'a') (PLUS (NAME 'b') (NAME 'c'))))"},
      {"a?b:c?d:e",
       "(QUEST (QUEST (NAME 'a') (NAME 'b') (NAME 'c')) (NAME 'd') (NAME 'e'))"},
      {"a?b?c:d:e", "(QUEST (NAME 'a') (QUEST (NAME 'b') (NAME 'c') (NAME 'd')) (NAME 'e'))"},
      {"a+b?c:d", "(QUEST (PLUS (NAME 'a') (NAME 'b')) (NAME 'c') (NAME 'd'))"},
      {"(a+b)*c", "(STAR (PLUS (NAME 'a') (NAME 'b')) (NAME 'c'))"},
      {"(a+b)[eth0]", "(FILTERINST 'eth0' (PLUS (NAME 'a') (NAME 'b')))"},
      {"a[x\\]y]", "(FILTERINST 'x]y' (NAME 'a'))"},
      {"delta(a)/delta(b)", "(SLASH (DELTA (NAME 'a')) (DELTA (NAME 'b')))"},
      {"100*rate(a)/hinv.ncpu",
       "(SLASH (STAR (INTEGER '100') (RATE (NAME 'a'))) (NAME 'hinv.ncpu'))"},
      {"sum(a)", "(SUM 'a')"},
      {"matchinst(!/^lo/, a)", "(FILTERINST !'^lo' (NAME 'a'))"},
      {"rescale(a, \"Mbyte/sec\")", "(RESCALE 'Mbyte/sec' (NAME 'a'))"},
      {"defined(a) ? a : novalue()", "(QUEST (DEFINED 'a') (NAME 'a') (NOVALUE))"},
      {"1.5.6", "error at 3: "},
  };
  for (const auto& c : kCases) EXPECT_EQ(Tree(c.expr), c.tree) << c.expr;
}

TEST(DeriveParserTest, MkConstKeepsItsSpec) {
  const DeriveParse p = ParseDerived("mkconst(10, type=u64, semantics=counter, units=\"Kbyte\")");
  ASSERT_FALSE(p.error.has_value());
  EXPECT_TRUE(p.tree->mkconst);
  EXPECT_EQ(p.tree->op, DeriveOp::kInteger);
  EXPECT_EQ(p.tree->spec.type, "U64");
  EXPECT_EQ(p.tree->spec.semantics, "COUNTER");
  EXPECT_EQ(p.tree->spec.units, "Kbyte");
  EXPECT_FALSE(p.tree->spec.indom.has_value());
}

TEST(DeriveParserTest, ErrorReportAsLibpcpPrintsIt) {
  const DeriveParse p = ParseDerived("3 +\t* 4");
  ASSERT_TRUE(p.error.has_value());
  EXPECT_EQ(FormatDeriveSyntaxError("3 +\t* 4", *p.error),
            "3 +\t* 4\n   \t^  \nArithmetic expression expected to follow PLUS\n");
}

}  // namespace
}  // namespace mmvlog::format

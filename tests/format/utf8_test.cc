// format/utf8: valid UTF-8 kept, each maximal ill-formed subpart one U+FFFD
// (Unicode 15, section 3.9, "U+FFFD Substitution of Maximal Subparts"; the
// expected strings are what Python 3.11's bytes.decode("utf-8",
// errors="replace") gives for the same bytes).
#include "format/utf8.h"

#include <string>

#include <gtest/gtest.h>

namespace mmvlog::format {
namespace {

constexpr char kFffd[] = "\xEF\xBF\xBD";

TEST(Utf8, ValidTextIsKept) {
  for (const char* s : {"", "plain ascii", "caf\xC3\xA9", "\xE6\x9D\xB1\xE4\xBA\xAC",
                        "\xC2\xA1Hola, se\xC3\xB1or!", "\xF0\x9F\x99\x83", "\x7F\x01",
                        "\xEF\xBF\xBF", "\xF4\x8F\xBF\xBF"}) {
    EXPECT_TRUE(IsValidUtf8(s)) << s;
    EXPECT_EQ(ValidUtf8(s), s);
  }
}

TEST(Utf8, IllFormedSubpartsAreOneReplacementEach) {
  const std::string r = kFffd;
  struct Case {
    std::string in, want;
  } cases[] = {
      {"\xFF", r},
      {"a\xFF\xFE" "b", "a" + r + r + "b"},
      {"\xC3", r},                              // truncated at the end
      {"\xC3(", r + "("},                       // bad continuation
      {"\xE6\x9D", r},                          // a valid prefix is one subpart
      {"\xE6\x9D" "x", r + "x"},
      {"\xF0\x9F\x99", r},
      {"\xC0\xAF", r + r},                      // overlong: C0 never starts one
      {"\xE0\x80\xAF", r + r + r},              // overlong 3-byte: 80 not allowed after E0
      {"\xED\xA0\x80", r + r + r},              // a surrogate
      {"\xF4\x90\x80\x80", r + r + r + r},      // past U+10FFFF
      {"\xF5\x80", r + r},
      {"\x80\x80", r + r},                      // lone continuations
      {"caf\xE9", "caf" + r},                   // Latin-1
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(IsValidUtf8(c.in));
    EXPECT_EQ(ValidUtf8(c.in), c.want) << c.in;
    EXPECT_TRUE(IsValidUtf8(ValidUtf8(c.in)));
  }
}

}  // namespace
}  // namespace mmvlog::format

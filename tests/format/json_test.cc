// Tests of //format:json: string escaping and shortest round-trip numbers.
#include "format/json.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>

#include "absl/strings/string_view.h"

namespace mmvlog::format {
namespace {

TEST(JsonStringTest, PlainTextIsQuoted) {
  EXPECT_EQ(JsonString(""), R"("")");
  EXPECT_EQ(JsonString("hinv.ncpu"), R"("hinv.ncpu")");
  EXPECT_EQ(JsonString("a b/c'~"), R"("a b/c'~")");
}

TEST(JsonStringTest, QuotesBackslashesAndWhitespaceAreEscaped) {
  EXPECT_EQ(JsonString(R"(say "hi")"), R"("say \"hi\"")");
  EXPECT_EQ(JsonString(R"(C:\dir)"), R"("C:\\dir")");
  EXPECT_EQ(JsonString("a\nb\tc\rd"), R"("a\nb\tc\rd")");
}

TEST(JsonStringTest, OtherControlBytesAreUnicodeEscapes) {
  EXPECT_EQ(JsonString(absl::string_view("\0", 1)), R"("\u0000")");
  EXPECT_EQ(JsonString("\x01\x08\x0c\x1f"), R"("\u0001\u0008\u000c\u001f")");
  EXPECT_EQ(JsonString("\x7f"), "\"\x7f\"");  // DEL is a character JSON allows as it is
}

TEST(JsonStringTest, Utf8IsKeptAndOtherBytesAreReplacementCharacters) {
  // "café" comes out as "café" (it came out as "caf\u00c3\u00a9", read
  // back by every JSON parser as "cafÃ©").
  EXPECT_EQ(JsonString("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
  EXPECT_EQ(JsonString("\xe6\x9d\xb1\xe4\xba\xac"), "\"\xe6\x9d\xb1\xe4\xba\xac\"");
  EXPECT_EQ(JsonString("a\xff" "b"), "\"a\xef\xbf\xbd" "b\"");
  EXPECT_EQ(JsonString("\xc3(\xe6\x9d"), "\"\xef\xbf\xbd(\xef\xbf\xbd\"");
}

TEST(JsonNumberTest, ShortestForm) {
  EXPECT_EQ(JsonNumber(0), "0");
  EXPECT_EQ(JsonNumber(-0.0), "-0");
  EXPECT_EQ(JsonNumber(3), "3");
  EXPECT_EQ(JsonNumber(-42), "-42");
  EXPECT_EQ(JsonNumber(1.5), "1.5");
  EXPECT_EQ(JsonNumber(0.1), "0.1");
  EXPECT_EQ(JsonNumber(0.3), "0.3");
  EXPECT_EQ(JsonNumber(1e21), "1e+21");
  EXPECT_EQ(JsonNumber(123456789012345678.0), "123456789012345680");
  EXPECT_EQ(JsonNumber(5e-324), "5e-324");
}

TEST(JsonNumberTest, NotFiniteIsNull) {
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(JsonNumber(-std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(JsonNumber(std::bit_cast<double>(~uint64_t{0})), "null");
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(JsonNumber(-std::numeric_limits<double>::infinity()), "null");
}

bool IsJsonNumber(const std::string& s) {
  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

TEST(JsonNumberTest, SeededDoublesRoundTripAsJsonNumbers) {
  std::mt19937_64 rng(7);
  const double boundaries[] = {std::numeric_limits<double>::max(),
                               std::numeric_limits<double>::lowest(),
                               std::numeric_limits<double>::min(),
                               std::numeric_limits<double>::denorm_min(),
                               std::numeric_limits<double>::epsilon(),
                               9007199254740993.0,
                               1e-7,
                               1e16};
  for (double v : boundaries) {
    const std::string s = JsonNumber(v);
    EXPECT_TRUE(IsJsonNumber(s)) << s;
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), v) << s;
  }
  int checked = 0;
  for (int i = 0; i < 100000; ++i) {
    const double v = std::bit_cast<double>(rng());
    if (!std::isfinite(v)) continue;
    const std::string s = JsonNumber(v);
    ASSERT_TRUE(IsJsonNumber(s)) << s;
    ASSERT_EQ(std::bit_cast<uint64_t>(std::strtod(s.c_str(), nullptr)),
              std::bit_cast<uint64_t>(v))
        << s;
    ++checked;
  }
  EXPECT_GT(checked, 90000);
}

}  // namespace
}  // namespace mmvlog::format

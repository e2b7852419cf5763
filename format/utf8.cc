#include "format/utf8.h"

namespace mmvlog::format {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

bool Continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

size_t Utf8SequenceLength(absl::string_view s, size_t* bad) {
  const auto b = [&s](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  *bad = 1;
  if (c < 0x80) return 1;
  // The lead byte fixes the length and the range of the second byte
  // (Unicode table 3-7: no overlongs, no surrogates, nothing past U+10FFFF).
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (size_t i = 1; i < n; ++i) {
    if (i >= s.size()) return 0;
    const unsigned char x = b(i);
    const bool ok = i == 1 ? (x >= lo && x <= hi) : Continuation(x);
    if (!ok) return 0;
    *bad = i + 1;  // the subpart so far is a valid prefix
  }
  return n;
}

bool IsValidUtf8(absl::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t bad;
    const size_t n = Utf8SequenceLength(s.substr(i), &bad);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string ValidUtf8(absl::string_view s) {
  if (IsValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    size_t bad;
    const size_t n = Utf8SequenceLength(s.substr(i), &bad);
    if (n == 0) {
      out += kReplacement;
      i += bad;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

}  // namespace mmvlog::format

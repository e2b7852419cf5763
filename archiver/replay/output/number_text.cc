#include "archiver/replay/output/number_text.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_format.h"
#include "format/utf8.h"

namespace mmvlog::archiver {
namespace {


// Writes the "%.3f" text in buf[0, len) to `p` without its trailing zeros
// and then its trailing point (there is always a point); returns the end.
char* CopyTrimmed(const char* buf, size_t len, char* p) {
  while (buf[len - 1] == '0') --len;
  if (buf[len - 1] == '.') --len;
  std::memcpy(p, buf, len);
  return p + len;
}

}  // namespace

// Writes AppendNumber's text of `v` at `p` (at most kMaxNumberText bytes);
// returns the end.
//
// The common case, 1e-3 <= |v| < ~2e12 (rates, gauges), is formatted from
// the integer round(|v| * 1000). That product is within half an ulp of the
// exact one, so its rounding to an integer is the exact rounding printf does
// unless its fraction lies within that error of one half; such near-ties,
// larger values and the "%.6g" cases go to std::to_chars, which formats
// the exact binary value as printf does (C++17 [charconv.to.chars]).
char* WriteNumber(double v, char* p) {
  char buf[64];
  if (!std::isfinite(v)) {
    const std::string s = absl::StrFormat("%.3f", v);  // "inf", "-inf", "nan", "-nan"
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
  }
  const double a = std::fabs(v);
  if (v != 0 && a < 1e-3) {
    return std::to_chars(p, p + kMaxNumberText, v, std::chars_format::general, 6).ptr;
  }
  if (a >= 1e15) {
    // Every digit, as pmrep's "%.3f" prints it (up to 309 of them).
    char big[400];
    const std::to_chars_result r = std::to_chars(big, big + sizeof big, v, std::chars_format::fixed, 3);
    return CopyTrimmed(big, static_cast<size_t>(r.ptr - big), p);
  }
  const double y = a * 1000;
  const double whole = std::floor(y);
  const double frac = y - whole;
  if (!(std::fabs(frac - 0.5) > y * 0x1p-52)) {
    const std::to_chars_result r =
        std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
    return CopyTrimmed(buf, static_cast<size_t>(r.ptr - buf), p);
  }
  const uint64_t n = static_cast<uint64_t>(whole) + (frac > 0.5 ? 1 : 0);
  if (std::signbit(v)) *p++ = '-';
  p = std::to_chars(p, p + 20, n / 1000).ptr;
  uint32_t millis = static_cast<uint32_t>(n % 1000);
  if (millis != 0) {
    *p++ = '.';
    *p++ = static_cast<char>('0' + millis / 100);
    millis %= 100;
    if (millis != 0) {
      *p++ = static_cast<char>('0' + millis / 10);
      millis %= 10;
      if (millis != 0) *p++ = static_cast<char>('0' + millis);
    }
  }
  return p;
}

void AppendNumber(double v, std::string* out) {
  char buf[kMaxNumberText];
  out->append(buf, WriteNumber(v, buf));
}

std::string NumberText(double v) {
  std::string s;
  AppendNumber(v, &s);
  return s;
}

void AppendCsvField(absl::string_view text, std::string* out) {
  const std::string valid = format::ValidUtf8(text);  // UTF-8; other bytes U+FFFD
  const absl::string_view s = valid;
  if (s.find_first_of(",\"\n\r") == absl::string_view::npos) {
    out->append(s.data(), s.size());
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

}  // namespace mmvlog::archiver

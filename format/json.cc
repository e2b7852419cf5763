#include "format/json.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_format.h"
#include "format/utf8.h"

namespace mmvlog::format {

std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  out.reserve(s.size() + 2);
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      // UTF-8 passes through; bytes that are not UTF-8 become U+FFFD.
      size_t bad;
      const size_t n = Utf8SequenceLength(s.substr(i), &bad);
      if (n == 0) {
        out += "\xEF\xBF\xBD";
        i += bad;
      } else {
        out.append(s.data() + i, n);
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
  return out;
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, end);
}

}  // namespace mmvlog::format

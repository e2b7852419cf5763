#include "format/text/size_spec.h"

#include <limits>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "format/text/pcp_interval.h"

namespace mmvlog::format {
namespace {

// The multiplier of a bytes unit, 0 when `word` is not one.
uint64_t BytesUnit(absl::string_view word) {
  std::string w = absl::AsciiStrToLower(word);
  if (w.size() > 1 && w.back() == 's') w.pop_back();  // plurals
  for (const char* name : {"b", "byte"}) {
    if (w == name) return 1;
  }
  struct Scale {
    const char* names[6];
    uint64_t multiplier;
  };
  static const Scale kScales[] = {
      {{"k", "kb", "kib", "kbyte", "kibibyte", "kilobyte"}, uint64_t{1} << 10},
      {{"m", "mb", "mib", "mbyte", "mebibyte", "megabyte"}, uint64_t{1} << 20},
      {{"g", "gb", "gib", "gbyte", "gibibyte", "gigabyte"}, uint64_t{1} << 30},
  };
  for (const Scale& s : kScales) {
    for (const char* name : s.names) {
      if (w == name) return s.multiplier;
    }
  }
  return 0;
}

// Splits leading digits from the rest; false when there are none.
bool SplitInteger(absl::string_view text, uint64_t* n, absl::string_view* rest) {
  size_t i = 0;
  while (i < text.size() && absl::ascii_isdigit(text[i])) ++i;
  if (i == 0 || i > 19 || !absl::SimpleAtoi(text.substr(0, i), n)) return false;
  *rest = absl::StripAsciiWhitespace(text.substr(i));
  return true;
}

// n * multiplier, false when past 2^63.
bool Scaled(uint64_t n, uint64_t multiplier, uint64_t* out) {
  constexpr uint64_t kMax = uint64_t{1} << 63;
  if (n > kMax / multiplier) return false;
  *out = n * multiplier;
  return true;
}

}  // namespace

absl::StatusOr<EndSize> ParseEndSize(absl::string_view text) {
  const absl::string_view t = absl::StripAsciiWhitespace(text);
  const absl::Status bad = absl::InvalidArgumentError(absl::StrCat(
      "bad size '", text,
      "': use a number of samples (100), bytes (100b, 10K, 10M, 2Gbyte) or a duration (10mins)"));
  EndSize out;
  uint64_t n;
  absl::string_view rest;
  if (SplitInteger(t, &n, &rest)) {
    if (rest.empty()) {
      if (n == 0) return absl::InvalidArgumentError(absl::StrCat("size '", text, "' must be positive"));
      out.kind = EndSize::kSamples;
      out.samples = n;
      return out;
    }
    if (const uint64_t multiplier = BytesUnit(rest); multiplier != 0) {
      if (n == 0) return absl::InvalidArgumentError(absl::StrCat("size '", text, "' must be positive"));
      if (!Scaled(n, multiplier, &out.bytes)) {
        return absl::InvalidArgumentError(absl::StrCat("size '", text, "' is too large"));
      }
      out.kind = EndSize::kBytes;
      return out;
    }
  }
  absl::StatusOr<absl::Duration> d = ParsePcpInterval(t);
  if (!d.ok()) return bad;
  out.kind = EndSize::kDuration;
  out.duration = *d;
  return out;
}

absl::StatusOr<uint64_t> ParseByteSize(absl::string_view text) {
  const absl::string_view t = absl::StripAsciiWhitespace(text);
  uint64_t n;
  absl::string_view rest;
  const uint64_t multiplier = [&]() -> uint64_t {
    if (!SplitInteger(t, &n, &rest)) return 0;
    return rest.empty() ? 1 : BytesUnit(rest);
  }();
  if (multiplier == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad size '", text, "': use bytes with an optional K, M or G (100M, 2G)"));
  }
  if (n == 0) return absl::InvalidArgumentError(absl::StrCat("size '", text, "' must be positive"));
  uint64_t bytes;
  if (!Scaled(n, multiplier, &bytes)) {
    return absl::InvalidArgumentError(absl::StrCat("size '", text, "' is too large"));
  }
  return bytes;
}

}  // namespace mmvlog::format

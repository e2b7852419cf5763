#include "format/text/pcp_interval.h"

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::format {
namespace {

struct Unit {
  const char* name;
  absl::Duration scale;
};

// libpcp's table (rtime.c int_tab), plus "ms".
const Unit kUnits[] = {
    {"nanosecond", absl::Nanoseconds(1)}, {"microsecond", absl::Microseconds(1)},
    {"millisecond", absl::Milliseconds(1)}, {"second", absl::Seconds(1)},
    {"minute", absl::Minutes(1)},         {"hour", absl::Hours(1)},
    {"day", absl::Hours(24)},             {"msec", absl::Milliseconds(1)},
    {"usec", absl::Microseconds(1)},      {"nsec", absl::Nanoseconds(1)},
    {"sec", absl::Seconds(1)},            {"min", absl::Minutes(1)},
    {"hr", absl::Hours(1)},               {"ms", absl::Milliseconds(1)},
    {"s", absl::Seconds(1)},              {"m", absl::Minutes(1)},
    {"h", absl::Hours(1)},                {"d", absl::Hours(24)},
};

// The longest interval taken: 100 years, far below absl::Duration's range.
constexpr double kMaxSeconds = 100.0 * 365 * 86400;

const Unit* FindUnit(absl::string_view word) {
  const std::string lower = absl::AsciiStrToLower(word);
  for (const Unit& u : kUnits) {
    if (lower == u.name) return &u;
  }
  // A plural: "secs", "minutes", "hours".
  if (lower.size() > 1 && lower.back() == 's') {
    const std::string singular = lower.substr(0, lower.size() - 1);
    for (const Unit& u : kUnits) {
      if (singular == u.name) return &u;
    }
  }
  return nullptr;
}

absl::Status Unexpected(absl::string_view text, size_t at, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(
      "bad interval '", text, "': unexpected ", what.empty() ? "end" : absl::StrCat("'", what, "'"),
      " at column ", at + 1, "; use e.g. 10sec, 1.5 min, 250msec, 2h30m or plain seconds"));
}

}  // namespace

absl::StatusOr<absl::Duration> ParsePcpIntervalAllowZero(absl::string_view text) {
  if (absl::StripAsciiWhitespace(text).empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("empty interval '", text, "': use e.g. 10sec, 1.5 min, 250msec, 2h30m or plain seconds"));
  }
  double seconds = 0;
  absl::Duration total;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && absl::ascii_isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  skip_space();
  while (i < text.size()) {
    const size_t number_at = i;
    while (i < text.size() && (absl::ascii_isdigit(text[i]) || text[i] == '.')) ++i;
    double number;
    if (i == number_at || !absl::SimpleAtod(text.substr(number_at, i - number_at), &number)) {
      size_t end = number_at;
      while (end < text.size() && !absl::ascii_isspace(static_cast<unsigned char>(text[end]))) ++end;
      return Unexpected(text, number_at, text.substr(number_at, std::max<size_t>(1, end - number_at)));
    }
    skip_space();
    const size_t unit_at = i;
    while (i < text.size() && absl::ascii_isalpha(text[i])) ++i;
    absl::Duration scale = absl::Seconds(1);
    if (i > unit_at) {
      const Unit* unit = FindUnit(text.substr(unit_at, i - unit_at));
      if (unit == nullptr) return Unexpected(text, unit_at, text.substr(unit_at, i - unit_at));
      scale = unit->scale;
    }
    seconds += number * absl::ToDoubleSeconds(scale);
    if (!(seconds <= kMaxSeconds)) {
      return absl::InvalidArgumentError(
          absl::StrCat("interval '", text, "' is too long (100 years at most)"));
    }
    total += scale * number;
    skip_space();
  }
  return total;
}

absl::StatusOr<absl::Duration> ParsePcpInterval(absl::string_view text) {
  absl::StatusOr<absl::Duration> d = ParsePcpIntervalAllowZero(text);
  if (d.ok() && *d <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat("interval '", text, "' must be positive"));
  }
  return d;
}

}  // namespace mmvlog::format

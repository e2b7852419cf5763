#include "cmd/time_zone.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::cmd {
namespace {

// Reads digits at `*i` into `*n`; false when there are none.
bool Digits(absl::string_view s, size_t* i, int* n) {
  const size_t from = *i;
  *n = 0;
  while (*i < s.size() && absl::ascii_isdigit(s[*i]) && *i - from < 3) *n = *n * 10 + (s[(*i)++] - '0');
  return *i > from;
}

}  // namespace

absl::StatusOr<absl::TimeZone> LoadPcpTimeZone(absl::string_view tz) {
  absl::string_view name = tz;
  if (!name.empty() && name[0] == ':') name.remove_prefix(1);
  absl::TimeZone zone;
  if (!name.empty() && absl::LoadTimeZone(std::string(name), &zone)) return zone;
  const absl::Status bad = absl::InvalidArgumentError(
      absl::StrCat("unknown time zone '", tz, "': use a zoneinfo name such as Europe/Berlin, UTC, "
                   "or a POSIX TZ such as AEST-10"));
  // POSIX: std offset [dst ...], with the offset west of Greenwich positive.
  size_t i = 0;
  if (!name.empty() && name[0] == '<') {
    i = name.find('>');
    if (i == absl::string_view::npos) return bad;
    ++i;
  } else {
    while (i < name.size() && absl::ascii_isalpha(name[i])) ++i;
    if (i < 3) return bad;
  }
  int sign = 1;
  if (i < name.size() && (name[i] == '+' || name[i] == '-')) sign = name[i++] == '-' ? -1 : 1;
  int hours, minutes = 0, seconds = 0;
  if (!Digits(name, &i, &hours) || hours > 24) return bad;
  if (i < name.size() && name[i] == ':') {
    ++i;
    if (!Digits(name, &i, &minutes) || minutes > 59) return bad;
    if (i < name.size() && name[i] == ':') {
      ++i;
      if (!Digits(name, &i, &seconds) || seconds > 59) return bad;
    }
  }
  // What follows is the daylight saving part (a name as above), or nothing.
  if (i < name.size() && name[i] != '<') {
    size_t letters = 0;
    while (i + letters < name.size() && absl::ascii_isalpha(name[i + letters])) ++letters;
    if (letters < 3) return bad;
  }
  return absl::FixedTimeZone(-sign * (hours * 3600 + minutes * 60 + seconds));
}

}  // namespace mmvlog::cmd

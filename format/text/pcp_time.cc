#include "format/text/pcp_time.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "format/text/pcp_interval.h"

namespace mmvlog::format {
namespace {

constexpr int kUnset = -1;

// A datetime as typed: kUnset for each field not given (mon is 0-11).
struct Broken {
  int64_t year = kUnset;
  int mon = kUnset, mday = kUnset, hour = kUnset, min = kUnset, sec = kUnset;
  int64_t nsec = 0;
};

const char* const kWeekdays[] = {"sunday", "monday", "tuesday", "wednesday",
                                 "thursday", "friday", "saturday"};
const char* const kMonths[] = {"january", "february", "march",     "april",   "may",      "june",
                               "july",    "august",   "september", "october", "november", "december"};

// A cursor over the text with the small readers __pmParseCtime uses; each
// skips leading blanks and consumes nothing when it does not match.
class Scanner {
 public:
  explicit Scanner(absl::string_view s) : s_(s) {}
  bool AtEnd() {
    SkipSpace();
    return i_ == s_.size();
  }
  bool Peek(char c) {
    SkipSpace();
    return i_ < s_.size() && s_[i_] == c;
  }
  bool Char(char c) {
    SkipSpace();
    if (i_ == s_.size() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  // A name from `names` by its first three letters, or the whole name.
  template <size_t N>
  bool Name(const char* const (&names)[N], int* index) {
    SkipSpace();
    size_t end = i_;
    while (end < s_.size() && absl::ascii_isalpha(s_[end])) ++end;
    const std::string word = absl::AsciiStrToLower(s_.substr(i_, end - i_));
    if (word.size() < 3) return false;
    for (size_t k = 0; k < N; ++k) {
      const std::string name = names[k];
      if (word == name.substr(0, 3) || word == name) {
        *index = static_cast<int>(k);
        i_ = end;
        return true;
      }
    }
    return false;
  }
  bool AmPm(bool* pm) {
    SkipSpace();
    if (i_ + 1 >= s_.size() || absl::ascii_tolower(s_[i_ + 1]) != 'm') return false;
    if (i_ + 2 < s_.size() && absl::ascii_isalpha(s_[i_ + 2])) return false;
    const char c = absl::ascii_tolower(s_[i_]);
    if (c != 'a' && c != 'p') return false;
    *pm = c == 'p';
    i_ += 2;
    return true;
  }
  bool Int(int64_t min, int64_t max, int64_t* v) {
    SkipSpace();
    size_t end = i_;
    while (end < s_.size() && absl::ascii_isdigit(s_[end]) && end - i_ < 10) ++end;
    int64_t n;
    if (end == i_ || !absl::SimpleAtoi(s_.substr(i_, end - i_), &n) || n < min || n > max) {
      return false;
    }
    *v = n;
    i_ = end;
    return true;
  }
  // Seconds 0..61 with an optional fraction, as whole seconds and nanoseconds.
  bool Seconds(int* sec, int64_t* nsec) {
    int64_t whole;
    if (!Int(0, 61, &whole)) return false;
    *sec = static_cast<int>(whole);
    *nsec = 0;
    if (i_ < s_.size() && s_[i_] == '.') {
      size_t end = i_ + 1;
      int64_t scale = 100000000;
      while (end < s_.size() && absl::ascii_isdigit(s_[end])) {
        *nsec += (s_[end] - '0') * scale;
        scale /= 10;
        ++end;
      }
      i_ = end;
    }
    return true;
  }
  size_t position() const { return i_; }
  void set_position(size_t i) { i_ = i; }

 private:
  void SkipSpace() {
    while (i_ < s_.size() && absl::ascii_isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  absl::string_view s_;
  size_t i_ = 0;
};

// The ctime-style datetime, with __pmParseCtime's rules for which number is
// the day and which the hour, and its defaults for missing low-order fields.
bool ParseCtime(absl::string_view text, Broken* out) {
  Scanner scan(text);
  Broken b;
  int weekday = kUnset;
  (void)scan.Name(kWeekdays, &weekday);
  (void)scan.Name(kMonths, &b.mon);
  int64_t n;
  if (scan.Int(0, 31, &n)) b.mday = static_cast<int>(n);
  if (scan.Int(0, 23, &n)) b.hour = static_cast<int>(n);
  if (b.mday == 0 && b.hour != kUnset) b.mday = kUnset;
  if (b.hour == kUnset && b.mday >= 0 && b.mday <= 23 && (b.mon == kUnset || scan.Peek(':'))) {
    // "10:05": the number read as a day is the hour.
    b.hour = b.mday;
    b.mday = kUnset;
  }
  if (scan.Char(':')) {
    if (b.hour == kUnset) b.hour = 0;
    b.min = 0;
    if (scan.Int(0, 59, &n)) b.min = static_cast<int>(n);
    if (scan.Char(':')) (void)scan.Seconds(&b.sec, &b.nsec);
  }
  bool pm;
  const size_t before_ampm = scan.position();
  if (scan.AmPm(&pm)) {
    if (b.hour > 12 || b.hour == kUnset) {
      scan.set_position(before_ampm);
    } else if (pm) {
      if (b.hour < 12) b.hour += 12;
    } else if (b.hour == 12) {
      b.hour = 0;
    }
  }
  if (scan.Int(1900, 9999, &n)) b.year = n;
  if (!scan.AtEnd()) return false;
  // Too little to place in time: a weekday alone, or an hour with nothing else.
  if ((weekday != kUnset && b.mon == kUnset && b.mday == kUnset) ||
      (b.hour != kUnset && b.min == kUnset && b.mday == kUnset && b.mon == kUnset &&
       b.year == kUnset)) {
    return false;
  }
  if (b.mon == kUnset && b.mday == kUnset && b.hour == kUnset && b.min == kUnset &&
      b.year == kUnset) {
    return false;  // nothing at all
  }
  bool dflt = b.year != kUnset;
  auto fill = [&dflt](auto& field, int value) {
    if (field != kUnset) {
      dflt = true;
    } else if (dflt) {
      field = value;
    }
  };
  fill(b.mon, 0);
  fill(b.mday, 1);
  fill(b.hour, 0);
  fill(b.min, 0);
  if (b.sec == kUnset && dflt) {
    b.sec = 0;
    b.nsec = 0;
  }
  *out = b;
  return true;
}

}  // namespace

absl::Time FromCivilAsMktime(absl::CivilSecond cs, absl::TimeZone zone) {
  const absl::TimeZone::TimeInfo at = zone.At(cs);
  if (at.kind != absl::TimeZone::TimeInfo::REPEATED) return at.pre;
  // glibc's mktime searches from the civil time read as UTC, moving by the
  // difference between the civil time wanted and the one it finds, and
  // returns the first occurrence it lands on: the earlier one west of
  // Greenwich, the later one at or east of it.
  absl::Time t = absl::FromCivil(cs, absl::UTCTimeZone());
  for (int step = 0; step < 8; ++step) {
    const int64_t diff = cs - zone.At(t).cs;
    if (diff == 0) return t;
    t += absl::Seconds(diff);
  }
  return at.pre;
}

namespace {

// A datetime with its high-order fields taken from `origin` and advanced
// to the next match (__pmtimespecConvert).
absl::Time Place(const Broken& b, absl::Time origin, absl::TimeZone zone) {
  if (b.year != kUnset) {
    return FromCivilAsMktime(absl::CivilSecond(b.year, b.mon + 1, b.mday, b.hour, b.min, b.sec),
                             zone) +
           absl::Nanoseconds(b.nsec);
  }
  const absl::CivilSecond now = zone.At(origin).cs;
  int64_t y = now.year();
  int m = now.month() - 1, d = now.day(), H = now.hour(), M = now.minute(), S = now.second();
  if (b.mon != kUnset) {
    if (b.mon < m) ++y;
    m = b.mon, d = b.mday, H = b.hour, M = b.min, S = b.sec;
  } else if (b.mday != kUnset) {
    if (b.mday < d) ++m;
    d = b.mday, H = b.hour, M = b.min, S = b.sec;
  } else if (b.hour != kUnset) {
    if (b.hour < H) ++d;
    H = b.hour, M = b.min, S = b.sec;
  } else if (b.min != kUnset) {
    if (b.min < M) ++H;
    M = b.min, S = b.sec;
  } else if (b.sec != kUnset) {
    if (b.sec < S) ++M;
    S = b.sec;
  }
  // CivilSecond normalizes (month 12 is January of the next year).
  return FromCivilAsMktime(absl::CivilSecond(y, m + 1, d, H, M, S), zone) +
         absl::Nanoseconds(b.nsec);
}

bool IsFinite(absl::Time t) { return t != absl::InfiniteFuture() && t != absl::InfinitePast(); }

bool ParseIso(absl::string_view text, absl::TimeZone zone, absl::Time* t) {
  const std::string s(absl::StripAsciiWhitespace(text));
  std::string err;
  for (const char* format : {"%Y-%m-%d %H:%M:%E*S", "%Y-%m-%dT%H:%M:%E*S", "%Y-%m-%d %H:%M",
                             "%Y-%m-%dT%H:%M", "%Y-%m-%d"}) {
    // absl::ParseTime also takes "infinite-future": not a time anyone means.
    if (absl::ParseTime(format, s, zone, t, &err)) return IsFinite(*t);
  }
  return false;
}

bool ParseDatetime(absl::string_view text, absl::Time origin, absl::TimeZone zone,
                   absl::Time* t) {
  Broken b;
  if (ParseCtime(text, &b)) {
    // A partial date is placed after the origin: there must be one.
    if (b.year == kUnset && !IsFinite(origin)) return false;
    *t = Place(b, origin, zone);
    return true;
  }
  return ParseIso(text, zone, t);
}

std::string TimeText(absl::Time t, absl::TimeZone zone) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%E3S", t, zone);
}

}  // namespace

absl::StatusOr<absl::Time> ParsePcpTime(absl::string_view text, absl::Time origin_start,
                                        absl::Time origin_end, absl::TimeZone zone) {
  const absl::Status bad = absl::InvalidArgumentError(absl::StrCat(
      "bad time '", text,
      "': use an interval from the start (30min), -interval from the end (-1hour), or "
      "@datetime (@10:05, @\"Nov 24 10:05\", @\"2026-11-24 10:05:30\")"));
  absl::string_view s = absl::StripLeadingAsciiWhitespace(text);
  if (s.empty()) return bad;
  absl::Time t;
  if (s[0] == '@') {
    if (ParseDatetime(s.substr(1), origin_start, zone, &t)) return t;
    return bad;
  }
  if (s[0] == '-' && origin_end != absl::InfiniteFuture()) {
    absl::StatusOr<absl::Duration> d = ParsePcpIntervalAllowZero(s.substr(1));
    if (d.ok()) return origin_end - *d;
    return bad;
  }
  absl::StatusOr<absl::Duration> d =
      ParsePcpIntervalAllowZero(s[0] == '+' ? s.substr(1) : s);
  if (d.ok()) return origin_start + *d;
  if (s[0] != '+' && ParseDatetime(s, origin_start, zone, &t)) return t;
  return bad;
}

absl::StatusOr<TimeWindow> ResolveTimeWindow(const TimeWindowSpec& spec, absl::Time log_start,
                                             absl::Time log_end, absl::TimeZone zone) {
  auto named = [](const char* option, const std::string& text, const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat(option, " ", text, ": ", s.message()));
  };
  TimeWindow w;
  w.start = log_start;
  w.end = log_end;
  if (!spec.start.empty()) {
    absl::StatusOr<absl::Time> t = ParsePcpTime(spec.start, log_start, log_end, zone);
    if (!t.ok()) return named("-S", spec.start, t.status());
    w.start = std::max(*t, log_start);
  }
  absl::Duration align = absl::ZeroDuration();
  // The first multiple of `align` at or after t.
  // In absl::Duration arithmetic, which saturates: a time centuries away
  // ("@ 3437") would overflow 64-bit nanoseconds.
  auto aligned = [&align](absl::Time t) {
    absl::Time up = absl::UnixEpoch() + absl::Floor(t - absl::UnixEpoch(), align);
    if (up < t) up += align;
    return up;
  };
  if (!spec.align.empty()) {
    absl::StatusOr<absl::Duration> a = ParsePcpInterval(spec.align);
    if (!a.ok()) return named("-A", spec.align, a.status());
    align = *a;
    const absl::Time start = aligned(w.start);
    if (start >= log_start && start <= log_end) {
      w.start = start;
    } else {
      w.warning = absl::StrCat("-A ", spec.align, ": the aligned start ", TimeText(start, zone),
                               " is outside the archive; not aligned");
    }
  }
  if (!spec.end.empty()) {
    absl::StatusOr<absl::Time> t = ParsePcpTime(spec.end, w.start, log_end, zone);
    if (!t.ok()) return named("-T", spec.end, t.status());
    w.end = std::min(*t, log_end);
  }
  if (w.end < w.start && spec.allow_empty) {
    w.origin = w.start;
    w.warning = absl::StrCat("the time window (", TimeText(w.start, zone), " to ",
                             TimeText(w.end, zone), ") ends before it starts: nothing to show");
    return w;
  }
  if (w.end < w.start) {
    if (!spec.end.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "-T ", spec.end, " (", TimeText(w.end, zone), ") is before the start of the window (",
          spec.start.empty() ? "" : absl::StrCat("-S ", spec.start, ", "), TimeText(w.start, zone),
          ")"));
    }
    return absl::InvalidArgumentError(absl::StrCat("-S ", spec.start, " (",
                                                   TimeText(w.start, zone),
                                                   ") is after the end of the archive (",
                                                   TimeText(log_end, zone), ")"));
  }
  w.origin = w.start;
  if (!spec.origin.empty()) {
    absl::StatusOr<absl::Time> t = ParsePcpTime(spec.origin, w.start, w.end, zone);
    if (!t.ok()) return named("-O", spec.origin, t.status());
    w.origin = std::clamp(*t, w.start, w.end);
    if (align > absl::ZeroDuration()) {
      absl::Time o = aligned(w.origin);
      if (o > w.end) o -= align;
      if (o >= w.start && o <= w.end) {
        w.origin = o;
      } else {
        w.warning = absl::StrCat("-A ", spec.align, ": the origin cannot be aligned in the window");
      }
    }
  }
  return w;
}

}  // namespace mmvlog::format

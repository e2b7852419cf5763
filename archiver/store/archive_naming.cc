#include "archiver/store/archive_naming.h"

#include <time.h>

#include <string>

namespace mmvlog::archiver {
namespace {

struct tm Broken(absl::Time t, bool utc) {
  ::tzset();
  const time_t secs = absl::ToTimeT(t);
  struct tm tm {};
  if (utc) {
    ::gmtime_r(&secs, &tm);
  } else {
    ::localtime_r(&secs, &tm);
  }
  return tm;
}

}  // namespace

std::string ArchiveNameFromTemplate(const std::string& name_template, absl::Time t, bool utc) {
  const struct tm tm = Broken(t, utc);
  // strftime's result is ambiguous when empty; a leading byte tells an
  // empty expansion from one that did not fit.
  const std::string format = "x" + name_template;
  std::string out(format.size() * 4 + 64, '\0');
  for (;;) {
    const size_t n = ::strftime(out.data(), out.size(), format.c_str(), &tm);
    if (n > 0) return out.substr(1, n - 1);
    out.resize(out.size() * 2);
  }
}

bool HasTimeConversions(const std::string& name_template) {
  for (size_t i = 0; i + 1 < name_template.size(); ++i) {
    if (name_template[i] != '%') continue;
    if (name_template[i + 1] != '%') return true;
    ++i;  // "%%" is a literal percent sign
  }
  return false;
}

absl::Time NextPeriodStart(absl::Time t, absl::Duration period, bool utc) {
  if (period == absl::Hours(24)) {
    struct tm tm = Broken(t, utc);
    tm.tm_mday += 1;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;  // let mktime decide: midnight may be in the other offset
    const time_t next = utc ? ::timegm(&tm) : ::mktime(&tm);
    return absl::FromTimeT(next);
  }
  absl::Duration rem;  // IDivDuration writes it: nullptr crashes
  const int64_t n = absl::IDivDuration(t - absl::UnixEpoch(), period, &rem) + 1;
  return absl::UnixEpoch() + period * n;
}

}  // namespace mmvlog::archiver

#include "archiver/archive_naming.h"

#include <time.h>

#include "absl/strings/str_format.h"

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

std::string ArchiveNameAt(absl::Time t, bool utc) {
  const struct tm tm = Broken(t, utc);
  return absl::StrFormat("%04d%02d%02d.%02d.%02d", tm.tm_year + 1900, tm.tm_mon + 1,
                         tm.tm_mday, tm.tm_hour, tm.tm_min);
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

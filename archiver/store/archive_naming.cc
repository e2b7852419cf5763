#include "archiver/store/archive_naming.h"

#include <string>

#include "archiver/store/time_zone.h"
#include "format/text/pcp_time.h"

namespace mmvlog::archiver {
namespace {

// The zone of names and periods: read again at every call, so a new $TZ is
// honoured at the next rotation (PCP's pcp#1936 kept the old offset).
absl::TimeZone Zone(bool utc) { return utc ? absl::UTCTimeZone() : LocalPcpTimeZone(); }

}  // namespace

std::string ArchiveNameFromTemplate(const std::string& name_template, absl::Time t, bool utc) {
  // Whole seconds, as strftime(3) sees them (FormatTime passes every
  // conversion it does not know to strftime).
  return absl::FormatTime(name_template, absl::FromUnixSeconds(absl::ToUnixSeconds(t)), Zone(utc));
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
    // The next local midnight, as mktime(3) places it.
    const absl::TimeZone zone = Zone(utc);
    return format::FromCivilAsMktime(absl::CivilSecond(absl::ToCivilDay(t, zone) + 1), zone);
  }
  absl::Duration rem;  // IDivDuration writes it: nullptr crashes
  const int64_t n = absl::IDivDuration(t - absl::UnixEpoch(), period, &rem) + 1;
  return absl::UnixEpoch() + period * n;
}

}  // namespace mmvlog::archiver

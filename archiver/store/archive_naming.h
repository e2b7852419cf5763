// Archive names and periods, pmlogger_daily style: one archive per period
// (a day by default) named after its local start time, "YYYYMMDD.HH.MM".
// Local time is $TZ as PCP's tools read it (archiver/store/time_zone.h),
// looked up at every call, so a daylight-saving change or a new TZ is
// honoured at the next rotation (PCP's pcp#1936 kept the old offset). Pure
// apart from reading the time zone.
#ifndef MMVLOG_ARCHIVER_STORE_ARCHIVE_NAMING_H_
#define MMVLOG_ARCHIVER_STORE_ARCHIVE_NAMING_H_

#include <string>

#include "absl/time/time.h"

namespace mmvlog::archiver {

// pmlogger_daily's archive name template.
inline constexpr char kDailyArchiveTemplate[] = "%Y%m%d.%H.%M";

// `name_template` with its strftime(3) conversions done for `t` in the local
// time zone (or UTC when `utc`), as pmlogger does with its archive argument.
std::string ArchiveNameFromTemplate(const std::string& name_template, absl::Time t,
                                    bool utc = false);

// True when `name_template` has strftime(3) conversions, so each period gets
// an archive of its own ("%%" alone does not count).
bool HasTimeConversions(const std::string& name_template);

// "20261122.10.00" for `t` in the local time zone (or UTC when `utc`).
inline std::string ArchiveNameAt(absl::Time t, bool utc = false) {
  return ArchiveNameFromTemplate(kDailyArchiveTemplate, t, utc);
}

// The start of the next period after `t`: the next local midnight for a
// period of a day (correct on 23- and 25-hour days), else t rounded up to a
// multiple of `period` since the epoch.
absl::Time NextPeriodStart(absl::Time t, absl::Duration period, bool utc = false);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_ARCHIVE_NAMING_H_

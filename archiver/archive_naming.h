// Archive names and periods, pmlogger_daily style: one archive per period
// (a day by default) named after its local start time, "YYYYMMDD.HH.MM".
// Local time is recomputed at every call (tzset), so a daylight-saving change
// or a new TZ is honoured at the next rotation (PCP's pcp#1936 kept the old
// offset). Pure apart from reading the time zone.
#ifndef MMVLOG_ARCHIVER_ARCHIVE_NAMING_H_
#define MMVLOG_ARCHIVER_ARCHIVE_NAMING_H_

#include <string>

#include "absl/time/time.h"

namespace mmvlog::archiver {

// "20261122.10.00" for `t` in the local time zone (or UTC when `utc`).
std::string ArchiveNameAt(absl::Time t, bool utc = false);

// The start of the next period after `t`: the next local midnight for a
// period of a day (correct on 23- and 25-hour days), else t rounded up to a
// multiple of `period` since the epoch.
absl::Time NextPeriodStart(absl::Time t, absl::Duration period, bool utc = false);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_ARCHIVE_NAMING_H_

// Time zones as PCP's tools take them: -Z TZ and the archive's own zone
// (-z, from its label).
#ifndef MMVLOG_CMD_TIME_ZONE_H_
#define MMVLOG_CMD_TIME_ZONE_H_

#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace mmvlog::cmd {

// Loads `tz`: a zoneinfo name ("Australia/Melbourne", ":Etc/UTC" as a v3
// label's zoneinfo field holds it), "UTC", or a POSIX TZ string ("AEST-10",
// "<+0530>-5:30"), of which only the standard offset is used when no zoneinfo
// file has the name (so daylight saving rules in such a string are not
// followed). InvalidArgument naming `tz` otherwise.
absl::StatusOr<absl::TimeZone> LoadPcpTimeZone(absl::string_view tz);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_TIME_ZONE_H_

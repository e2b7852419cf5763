// Time zones as PCP's tools take them, with one engine for the whole program.
//
// Every conversion between an instant and wall-clock time (replay's rows in
// every output, -z, -Z, -S/-T/-A/@time, archive names and daily periods) goes
// through absl::TimeZone. What PCP's tools accept as a zone (libpcp sets $TZ
// and calls localtime(3)) is loaded here into one:
//   - a zoneinfo name ("Europe/Berlin", ":Australia/Melbourne" as a v3
//     label's zoneinfo holds it, "PST8PDT", "UTC"), read from the zoneinfo
//     database as glibc reads it;
//   - any other TZ string, a POSIX TZ with or without daylight-saving rules
//     ("AEST-10AEDT-11,M10.5.0/3,M3.5.0/2", "EST-11EST-10,89/2:00,299/2:00"
//     with day-of-year rules, "IST-5:30", "<+0530>-5:30"), is compiled into
//     zoneinfo data from glibc's own reading of it: its transitions from 1901
//     to 2100 are found with localtime_r(3) under that TZ, so every time is
//     the one PCP prints (after 2100 the last offset stays).
// The compilation is hooked into cctz's documented extension point
// (cctz_extension::zone_info_source_factory), so absl::LocalTimeZone() under
// such a $TZ is PCP's local zone too.
#ifndef MMVLOG_ARCHIVER_STORE_TIME_ZONE_H_
#define MMVLOG_ARCHIVER_STORE_TIME_ZONE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace mmvlog::archiver {

// Loads `tz` as above. A leading ':' is dropped (as glibc drops it).
// InvalidArgument naming `tz` when it is neither a zoneinfo name nor a POSIX
// TZ string (glibc would fall back to UTC there; PCP prints UTC silently).
absl::StatusOr<absl::TimeZone> LoadPcpTimeZone(absl::string_view tz);

// The zone PCP's tools use when none is asked for: $TZ as glibc reads it
// (a zoneinfo name or a POSIX TZ string), else /etc/localtime.
absl::TimeZone LocalPcpTimeZone();

// Whether `tz` is a POSIX TZ string by its grammar: std offset [dst [offset]
// [,start[/time],end[/time]]], names of 3+ letters or <quoted>.
bool IsPosixTz(absl::string_view tz);

// TZif (RFC 8536, version 2) bytes describing `tz` as glibc's localtime_r
// reads it, over [1901, 2100]. Exposed for tests; LoadPcpTimeZone uses it.
std::string CompileTzWithGlibc(const std::string& tz);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_TIME_ZONE_H_

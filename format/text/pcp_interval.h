// PCP's interval syntax, as pmParseInterval(3) and PCPIntro(1) "INTERVAL
// SPECIFICATION" define it: the argument of -t, of pmlogger's "every N
// sec", of -s/-v durations and of -A.
//
//   interval := term { [space] term }        terms are summed
//   term     := number [space] [unit]        no unit: seconds
//   number   := digits [ "." digits ] | "." digits
//   unit     := nsec | usec | msec | sec | min | hour | hr | day | s | m | h | d
//               | nanosecond | microsecond | millisecond | second | minute
//               any of them with a trailing "s", in any case
//
// Examples: "10sec", "1.5 min", "250msec", "2h30m", "1min 30sec", "5", "0.25".
// One deliberate difference from libpcp: "ms" means milliseconds (libpcp
// strips the plural "s" first and reads 250ms as 250 minutes).
#ifndef MMVLOG_FORMAT_TEXT_PCP_INTERVAL_H_
#define MMVLOG_FORMAT_TEXT_PCP_INTERVAL_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace mmvlog::format {

// Parses a positive interval. InvalidArgument naming the text and the column
// where it went wrong ("bad interval '10 parsecs': unexpected 'parsecs' at
// column 4; ..."), or saying that it must be positive.
absl::StatusOr<absl::Duration> ParsePcpInterval(absl::string_view text);

// The same, but zero is allowed (pmlogger's "every 0 sec" means once).
absl::StatusOr<absl::Duration> ParsePcpIntervalAllowZero(absl::string_view text);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_TEXT_PCP_INTERVAL_H_

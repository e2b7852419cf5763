// PCP's time syntax for -S, -T, -O and -A (PCPIntro(1) "TIME WINDOW
// SPECIFICATION", pmParseTimeWindow(3)), resolved against the times it is
// relative to: an archive's first and last record, or "now" for a recording.
//
//   time     := [ "+" ] interval        origin_start plus the interval
//             | "-" interval            origin_end minus the interval (only
//                                       when origin_end is finite)
//             | "@" datetime | datetime
//   datetime := ctime style, as __pmParseCtime reads it:
//               [weekday] [month] [day] [HH:MM[:SS[.frac]]] [am|pm] [year]
//               (3-letter English names: "Mon Nov 24 10:00:00 2026", "Nov 24",
//               "Mar 1996", "10:05", "24 10:05:30.25")
//             | ISO: YYYY-MM-DD[( |T)HH:MM[:SS[.frac]]]
//
// Missing low-order fields of a datetime are 0 (day 1, January); missing
// high-order fields come from origin_start, advanced to the next match, as
// libpcp does: with an archive starting Mon Mar 4 13:07:47, "@13:10" is 13:10
// that day and "@10:00" 10:00 on Tue Mar 5. Datetimes are in `zone`.
// Pure: no clock is read (the caller passes now as origin_start when live).
#ifndef MMVLOG_FORMAT_TEXT_PCP_TIME_H_
#define MMVLOG_FORMAT_TEXT_PCP_TIME_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace mmvlog::format {

// The instant of wall-clock time `cs` in `zone` as mktime(3) with tm_isdst
// -1 gives it (libpcp parses times with mktime): a time skipped by a
// daylight-saving change is read with the offset before it (02:30 on a
// night that jumps from 02:00 to 03:00 is 03:30), a repeated one as the
// occurrence glibc's search finds first (01:30 PDT, not PST, as pmval and
// pmrep start a -S @01:30 window in PST8PDT; 01:30 GMT in the UK).
absl::Time FromCivilAsMktime(absl::CivilSecond cs, absl::TimeZone zone);

// Parses one time. InvalidArgument naming the text and what is wrong.
absl::StatusOr<absl::Time> ParsePcpTime(absl::string_view text, absl::Time origin_start,
                                        absl::Time origin_end, absl::TimeZone zone);

// The options as typed; "" for an option not given.
struct TimeWindowSpec {
  std::string start;   // -S
  std::string end;     // -T
  std::string align;   // -A (an interval)
  std::string origin;  // -O
  // A window that ends before it starts is empty, not an error (pmval and
  // pmrep then print no sample).
  bool allow_empty = false;
};

struct TimeWindow {
  absl::Time start;
  absl::Time end;
  absl::Time origin;    // the first sample time (-O; else start)
  std::string warning;  // e.g. an alignment that did not fit the window
};

// Resolves the window as pmParseTimeWindow does: -S against (log_start,
// log_end), moved up to log_start if before it; -A aligns the start up to a
// multiple of its interval when the result is still within the log; -T
// against (the resolved start, log_end) — so "-T 10min" is ten minutes after
// -S — and trimmed to log_end; -O against (start, end), clamped into the
// window and aligned by -A. Unlike libpcp, a window that ends before it
// starts is an error, unless spec.allow_empty (then end < start, origin is
// start, and `warning` says so). InvalidArgument naming the option and its
// text.
absl::StatusOr<TimeWindow> ResolveTimeWindow(const TimeWindowSpec& spec, absl::Time log_start,
                                             absl::Time log_end, absl::TimeZone zone);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_TEXT_PCP_TIME_H_

// What pmrep says about a run rather than its values: the zone's offset
// (the times of -k's extended CSV, -x's timezone line) and -x's extended
// header, as pmrep 6.0.3 and 7.2 write them (pmrep.py write_extheader,
// pmapi.py get_current_tz and posix_tz_to_utc_offset). Text only (the
// outputs write it), from what the replay and the command line say.
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_RUN_TEXT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_RUN_TEXT_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "archiver/replay/output.h"
#include "archiver/replay/pmrep_report.h"

namespace mmvlog::archiver {

// The zone's offset at `t` as pmrep names it (get_current_tz, then
// posix_tz_to_utc_offset, with Python's arithmetic: "UTC+0", "UTC-4",
// "UTC+5:30", and their quirks).
std::string PmrepUtcOffset(absl::TimeZone zone, absl::Time t);

// What -x's header reports (pmrep's names for each in comments).
struct PmrepRun {
  std::string source;          // the archives as named, joined by "," (self.source)
  std::string host;            // the archive label's
  absl::TimeZone zone;         // the reporting zone
  absl::TimeZone local;        // the zone of the machine ($TZ): "current is"
  absl::Time now;              // when the report is made (the local zone's offset then)
  absl::Time origin;           // pmGetOptionOrigin: -S (or -O), else the archives' start
  absl::Time finish;           // pmGetOptionFinish: -T, else the archives' end
  bool finish_given = false;   // -T on the command line (pmrep's runtime)
  absl::Time archive_end;      // pmGetArchiveEnd: the last record's time
  bool interpolated = true;    // false: -u, rows at the records
  absl::Duration interval;     // the rows' step (after -T with -s made it)
  int64_t samples = 0;         // -s (0: not given)
  size_t metrics = 0;          // the report's metrics
  size_t instances = 0;        // their columns (a singular metric's one)
  bool dynamic = false;        // -1: "instances present in archive"
};

// What only the command line knows of a run.
struct PmrepRunAsked {
  std::string source;         // the archives as named, joined by ","
  int64_t samples = 0;        // -s (0: not given)
  bool finish_given = false;  // -T
  bool dynamic = false;       // -1
  absl::TimeZone local;       // the machine's zone ($TZ)
  absl::Time now;
};

// The run a replay makes: `asked`, the replay's header (zone, window,
// step, host) and the report's columns.
PmrepRun PmrepRunOf(const PmrepRunAsked& asked, const ReplayHeader& header,
                    const PmrepCells& cells);

// pmrep's extended header: a blank line, the lines "  archive: ...",
// "     host: ...", " timezone: ...", start, end, metrics, samples,
// interval and duration, a blank line; in CSV each line begun by "#".
std::string PmrepExtendedHeader(const PmrepRun& run, bool csv);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_PMREP_RUN_TEXT_H_

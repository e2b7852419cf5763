// Helpers shared by the subcommands: PCP's interval syntax, the MMV
// directory PCP uses, log lines on stderr, and an interruptible wait.
#ifndef MMVLOG_CMD_COMMON_H_
#define MMVLOG_CMD_COMMON_H_

#include <atomic>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "archiver/recorder.h"

namespace mmvlog::cmd {

// Parses an interval as pmParseInterval(3) does: a number with an optional
// unit ("10sec", "1 min", "250msec", "1.5 hours", "2days"), several summed
// ("1min 30sec"), or plain seconds ("5", "0.25"). Units: nsec, usec, msec,
// sec, min, hour, day and their long and plural forms.
absl::StatusOr<absl::Duration> ParsePcpInterval(absl::string_view text);

// $PCP_TMP_DIR from the environment, else PCP_TMP_DIR in /etc/pcp.conf (or
// $PCP_CONF), else /var/lib/pcp/tmp; with "/mmv" appended.
std::string DefaultMmvDir();

// "2026-11-22 10:00:00.123 warning: ..." on stderr.
void LogLine(archiver::LogLevel level, const std::string& message);

// Set by SIGINT/SIGTERM once InstallStopSignals() ran; SIGHUP sets
// g_new_volume.
extern std::atomic<bool> g_stop;
extern std::atomic<bool> g_new_volume;
void InstallStopSignals();

// Sleeps until `deadline` (wall clock) or a signal sets g_stop/g_new_volume.
// Returns false when interrupted by g_stop.
bool SleepUntil(absl::Time deadline);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_COMMON_H_

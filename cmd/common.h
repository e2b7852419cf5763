// Helpers shared by the subcommands: the MMV directory PCP uses, log lines
// (stderr or pmlogger's -l file), and an interruptible wait.
#ifndef MMVLOG_CMD_COMMON_H_
#define MMVLOG_CMD_COMMON_H_

#include <sys/types.h>

#include <atomic>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "archiver/record/recorder.h"

namespace mmvlog::cmd {

// $PCP_TMP_DIR from the environment, else PCP_TMP_DIR in /etc/pcp.conf (or
// $PCP_CONF), else /var/lib/pcp/tmp; with "/mmv" appended.
std::string DefaultMmvDir();

// A setting of PCP's environment (PCP_TMP_DIR, PCP_VAR_DIR): the variable,
// else its line in /etc/pcp.conf (or $PCP_CONF), else `fallback`.
std::string PcpConfValue(const char* name, const char* fallback);

// "2026-11-22 10:00:00.123 warning: ..." on stderr, or where SetLogFile
// said.
void LogLine(archiver::LogLevel level, const std::string& message);

// Sends LogLine's lines to `path` (appended; "-" is standard output), as
// pmlogger's -l does. InvalidArgument naming the file when it cannot be
// opened.
absl::Status SetLogFile(const std::string& path);

// Flushes standard output at a command's end and gives its exit status:
// `rc` when everything was written; when a write failed, "mmvlog COMMAND:
// write standard output: <error>" on stderr and 1, as pmrep (pmval and
// pmdumplog exit 0 on a full disk: a loss nobody hears of); when the reader
// went away (EPIPE), `rc` quietly, as pmrep ends then.
int FinishStandardOutput(const std::string& command, int rc);

// Set by SIGINT/SIGTERM once InstallStopSignals() ran; SIGHUP sets
// g_new_volume.
extern std::atomic<bool> g_stop;
extern std::atomic<bool> g_new_volume;
void InstallStopSignals();

// True once process `pid` has exited: it no longer exists, or it is a zombie
// that its parent has not reaped yet (pmlogger's -p).
bool ProcessGone(pid_t pid);

// Sleeps until `deadline` (wall clock) or a signal sets g_stop/g_new_volume.
// Returns false when interrupted by g_stop.
bool SleepUntil(absl::Time deadline);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_COMMON_H_

// Options shared by `mmvlog record` and `mmvlog capture`, spelled as
// pmlogger(1) spells them (-t INTERVAL, -s ENDSIZE, -T ENDTIME, -v VOLSIZE,
// -l LOGFILE, -V VERSION, -m NOTE, -H LABELHOST, -p PID, -c CONFIG, -U USER,
// the archive as the last argument) plus mmvlog's own (--mmv-dir,
// --include, ...), and their translation into RecorderOptions and
// LoopLimits.
#ifndef MMVLOG_CMD_RECORDING_OPTIONS_H_
#define MMVLOG_CMD_RECORDING_OPTIONS_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "archiver/schedule/record_loop.h"
#include "archiver/record/recorder.h"
#include "cmd/privileges.h"

namespace mmvlog::cmd {

// The options as typed; validated by RecordingFromFlags.
struct RecordingFlags {
  std::string interval;           // -t ("": 1sec, or 60sec for -c's "default")
  std::string size;               // -s: samples, bytes or a duration
  std::string finish;             // -T: PCP time (10mins, @11:30)
  std::string volsize;            // -v: samples, bytes or a duration
  std::string log_file;           // -l
  int archive_version = 3;        // -V
  std::string note;               // -m
  std::string labelhost;          // -H
  int64_t pid = 0;                // -p
  std::string config;             // -c
  bool check_config = false;      // -C
  std::string user;               // -U
  std::string mmv_dir;
  bool no_dir = false;
  std::string prefix = "mmv";
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  bool progress = true;
  std::vector<std::string> args;  // [MMVFILE...] [ARCHIVE]
  // Old spellings (hidden): --samples, --duration, --volume_size, --volume_samples.
  int64_t samples = 0;
  std::string duration;
  std::string volume_size;
  int64_t volume_samples = 0;
};

// Declares the shared options on `app`, storing into `f` (which must outlive
// the parse).
void AddRecordingOptions(CLI::App* app, RecordingFlags* f);

struct RecordingSetup {
  archiver::RecorderOptions recorder;
  archiver::LoopLimits limits;
  std::string archive;   // the ARCHIVE argument ("" when none was given)
  pid_t watch_pid = 0;   // -p: stop once this process has exited (0: none)
  bool progress = true;  // a progress line (only when stderr is a terminal)
  std::string note;      // -m
  std::optional<UserIdentity> user;  // -U
  // -c: the configuration (recorder.plan holds it resolved), what its
  // "default" means, and -C.
  std::string config;
  absl::Duration default_interval = absl::Seconds(60);
  bool check_only = false;
};

// -C: resolves the configuration against the MMV files there are now and
// prints the schedule on stdout (warnings on stderr). Returns the exit code.
int CheckConfiguration(const RecordingSetup& setup);

// Reads `setup.config` again (SIGHUP): a new plan, or the error.
absl::StatusOr<std::shared_ptr<archiver::LogPlan>> ReloadPlan(const RecordingSetup& setup);

// Once what needs root is open: drops to -U's user, or says once that the
// recorder runs as root and how not to (pmlogger runs as pcp). `recorder`'s
// MMV directory is opened first. Errors from DropPrivileges.
absl::Status BecomeUser(const RecordingSetup& setup, archiver::Recorder& recorder);

// Checks the options and turns them into a setup; `now` is the origin of
// -T's relative times. InvalidArgument, naming the option and its value, for
// anything wrong (a usage error: nothing has been created yet).
absl::StatusOr<RecordingSetup> RecordingFromFlags(const RecordingFlags& f, absl::Time now);

// Splits [MMVFILE...] [ARCHIVE]: the last argument is the archive unless it
// names an existing file (then all are MMV files, as pmlogger's archive is a
// base name that never exists as a file itself).
void SplitMmvFilesAndArchive(const std::vector<std::string>& args,
                             std::vector<std::string>* files, std::string* archive);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_RECORDING_OPTIONS_H_

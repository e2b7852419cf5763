// Flags shared by `mmvlog record` and `mmvlog capture` (absl flag names are
// global to the binary), and their translation into RecorderOptions and
// LoopLimits.
#ifndef MMVLOG_CMD_RECORDING_FLAGS_H_
#define MMVLOG_CMD_RECORDING_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "archiver/record_loop.h"
#include "archiver/recorder.h"

namespace mmvlog::cmd {

struct RecordingSetup {
  archiver::RecorderOptions recorder;
  archiver::LoopLimits limits;
  bool progress = true;
};

// Validates the shared flags; `files` are the MMV files named as arguments.
// InvalidArgument with a message that says what to do.
absl::StatusOr<RecordingSetup> RecordingFromFlags(const std::vector<std::string>& files);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_RECORDING_FLAGS_H_

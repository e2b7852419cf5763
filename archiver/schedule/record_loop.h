// RunRecordLoop: samples a Recorder on absolute deadlines (start + k *
// interval, so no drift over hours), skipping and counting ticks missed
// because the machine stalled, until a sample count, a duration or an event
// ends it. Time and waiting come in through hooks, so the loop runs the same
// under a test's fake clock as under signals in `mmvlog record`.
#ifndef MMVLOG_ARCHIVER_SCHEDULE_RECORD_LOOP_H_
#define MMVLOG_ARCHIVER_SCHEDULE_RECORD_LOOP_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "archiver/schedule/lateness.h"
#include "archiver/record/recorder.h"

namespace mmvlog::archiver {

// What the caller wants after a wake-up.
enum class LoopEvent {
  kNone,         // keep going
  kNewVolume,    // switch volume, keep going (SIGHUP)
  kFinalSample,  // take one more sample now, then stop (command exited)
  kStop,         // stop now (SIGTERM)
};

struct LoopHooks {
  std::function<absl::Time()> now;
  // Waits until `deadline` or until something happens; returns early freely.
  std::function<void(absl::Time deadline)> wait_until;
  // Polled after every wake-up and sample.
  std::function<LoopEvent()> poll = [] { return LoopEvent::kNone; };
  // Called after each sample (progress lines).
  std::function<void()> on_sample = [] {};
  // With the recorder empty (Recorder::empty): waits until a file may have
  // appeared, `deadline` passes or something happens (a DirWatch), instead
  // of ticking; the schedule starts again from the wake-up. Null: tick on.
  std::function<void(absl::Time deadline)> wait_for_files;
};

struct LoopLimits {
  absl::Duration interval = absl::Seconds(1);
  int64_t samples = 0;  // 0: no limit; with a configuration, results (as pmlogger's -s)
  int64_t ticks = 0;    // stop after this many ticks (0: no limit)
  absl::Duration duration = absl::InfiniteDuration();
  absl::Time until = absl::InfiniteFuture();
  // Stop once the archive holds this many bytes (pmlogger's -s 10M; 0: no
  // limit). Records are never cut, so the last sample may pass it.
  uint64_t max_bytes = 0;
  // Start a new volume this often (pmlogger's -v 1hour).
  absl::Duration volume_interval = absl::InfiniteDuration();
};

struct LoopStats {
  int64_t samples = 0;
  int64_t skipped_ticks = 0;
  absl::Duration max_lateness;  // sample time minus its deadline
  // Of the scheduled samples (not a final one on request): how late each
  // was, and how many were taken before the next tick was due.
  LatenessHistogram lateness;
  int64_t on_time = 0;
  std::string Summary() const { return ScheduleSummary(lateness, on_time, skipped_ticks); }
};

// Runs until a limit or kStop/kFinalSample. A volume switch asked for by the
// caller (kNewVolume) restarts the volume_interval count, as pmlogger's
// asynchronous switches reset its -v counters. The first sample is taken at
// once. Returns the first Recorder error.
absl::Status RunRecordLoop(Recorder& recorder, const LoopLimits& limits,
                           const LoopHooks& hooks, LoopStats* stats);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SCHEDULE_RECORD_LOOP_H_

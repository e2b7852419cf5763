// Sampling on absolute deadlines: sample k is due at start + k * interval,
// so there is no drift over hours; ticks missed because the machine stalled
// are skipped and counted, never bunched. Pure.
#ifndef MMVLOG_ARCHIVER_SCHEDULE_SCHEDULE_H_
#define MMVLOG_ARCHIVER_SCHEDULE_SCHEDULE_H_

#include <cstdint>

#include "absl/time/time.h"

namespace mmvlog::archiver {

struct Tick {
  absl::Time due;        // the deadline to sleep until
  int64_t index = 0;     // k in start + k * interval
  int64_t skipped = 0;   // deadlines already passed and dropped
};

// The first deadline start + k * interval with k > `last_index` that is not
// already in the past at `now` (a deadline within `interval` of now counts as
// current, so a slightly late wake-up still samples). REQUIRES: interval > 0.
Tick NextTick(absl::Time start, absl::Duration interval, int64_t last_index,
              absl::Time now);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SCHEDULE_SCHEDULE_H_

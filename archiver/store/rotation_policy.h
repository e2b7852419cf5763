// The one decision of when a recording starts a new volume or a new
// archive, as pmlogger makes it (pmlogger(1) -v, SIGHUP; pmlogger_daily's
// periods), decided before a record is written so that no record is split:
//
//   - a new archive when a period ends (a strftime(3) name: a day, an hour);
//   - a new volume on a reload (SIGHUP), after -v's samples, after -v's
//     time, or before a record that would take the volume past -v's size or
//     the format's ceiling (2 GiB for a v2 volume), unless the volume holds
//     no result yet (a record bigger than the limit gets a volume alone).
//
// Pure: the callers (ArchiveWriter for sizes, ArchiveSession for samples,
// the record loop for time and reloads, the daemon for periods) pass what
// they know and do what it says.
#ifndef MMVLOG_ARCHIVER_STORE_ROTATION_POLICY_H_
#define MMVLOG_ARCHIVER_STORE_ROTATION_POLICY_H_

#include <cstdint>
#include <limits>

#include "absl/time/time.h"

namespace mmvlog::archiver {

enum class Rotation { kNone, kNewVolume, kNewArchive };

struct RotationPolicy {
  uint64_t volume_bytes = 0;  // -v SIZE (0: none)
  uint64_t ceiling = std::numeric_limits<uint64_t>::max();  // the format's
  uint64_t volume_samples = 0;  // -v N (0: none)
  absl::Duration volume_interval = absl::InfiniteDuration();  // -v TIME
};

// What the caller knows now; what it does not know keeps its default,
// which asks for nothing.
struct RotationState {
  absl::Time now = absl::InfinitePast();
  bool reload = false;                         // SIGHUP
  absl::Time next_period = absl::InfiniteFuture();
  absl::Time volume_started = absl::InfiniteFuture();
  uint64_t volume_bytes = 0;                   // written in the volume
  uint64_t next_record_bytes = 0;              // the record about to be written
  uint64_t volume_results = 0;                 // results (samples) in the volume
};

Rotation DecideRotation(const RotationPolicy& policy, const RotationState& state);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_ROTATION_POLICY_H_

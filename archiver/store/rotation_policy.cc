#include "archiver/store/rotation_policy.h"

#include <algorithm>

namespace mmvlog::archiver {

Rotation DecideRotation(const RotationPolicy& policy, const RotationState& state) {
  if (state.now >= state.next_period) return Rotation::kNewArchive;
  if (state.reload) return Rotation::kNewVolume;
  if (policy.volume_samples > 0 && state.volume_results >= policy.volume_samples) {
    return Rotation::kNewVolume;
  }
  if (policy.volume_interval != absl::InfiniteDuration() &&
      state.volume_started != absl::InfiniteFuture() &&
      state.now >= state.volume_started + policy.volume_interval) {
    return Rotation::kNewVolume;
  }
  const uint64_t limit =
      policy.volume_bytes > 0 ? std::min(policy.volume_bytes, policy.ceiling) : policy.ceiling;
  if (state.volume_results > 0 && state.next_record_bytes > 0 &&
      state.volume_bytes + state.next_record_bytes > limit) {
    return Rotation::kNewVolume;
  }
  return Rotation::kNone;
}

}  // namespace mmvlog::archiver

// The rotation decision as a table: each row a policy, what the caller
// knows, and what pmlogger would do (pmlogger(1) -v, SIGHUP; a new archive
// at a period's end as pmlogger_daily starts one).
#include "archiver/store/rotation_policy.h"

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace mmvlog::archiver {
namespace {

constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kV2Ceiling = uint64_t{2} << 30;
const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

struct Row {
  std::string why;
  RotationPolicy policy;
  RotationState state;
  Rotation want;
};

RotationPolicy Bytes(uint64_t n) {
  RotationPolicy p;
  p.volume_bytes = n;
  return p;
}
RotationPolicy Samples(uint64_t n) {
  RotationPolicy p;
  p.volume_samples = n;
  return p;
}
RotationPolicy Every(absl::Duration d) {
  RotationPolicy p;
  p.volume_interval = d;
  return p;
}
RotationState Sizes(uint64_t written, uint64_t next, uint64_t results) {
  RotationState s;
  s.volume_bytes = written;
  s.next_record_bytes = next;
  s.volume_results = results;
  return s;
}
RotationState At(absl::Time now, absl::Time volume_started) {
  RotationState s;
  s.now = now;
  s.volume_started = volume_started;
  return s;
}

TEST(RotationPolicyTest, Table) {
  RotationPolicy v2 = Bytes(0);
  v2.ceiling = kV2Ceiling;
  RotationPolicy v2_small = Bytes(kMiB);
  v2_small.ceiling = kV2Ceiling;
  RotationState period_over = At(kT0, kT0);
  period_over.next_period = kT0;
  RotationState period_ahead = At(kT0, kT0);
  period_ahead.next_period = kT0 + absl::Seconds(1);
  RotationState reload = At(kT0, kT0);
  reload.reload = true;
  RotationState reload_and_period = reload;
  reload_and_period.next_period = kT0 - absl::Seconds(1);
  RotationState both = Sizes(kMiB, 1, 5);
  both.now = kT0;

  const Row rows[] = {
      {"nothing asked", RotationPolicy{}, RotationState{}, Rotation::kNone},
      {"no limit, big volume", Bytes(0), Sizes(100 * kMiB, kMiB, 9), Rotation::kNone},
      {"fits exactly", Bytes(kMiB), Sizes(kMiB - 100, 100, 3), Rotation::kNone},
      {"one byte over", Bytes(kMiB), Sizes(kMiB - 100, 101, 3), Rotation::kNewVolume},
      {"over, but the volume holds no result", Bytes(kMiB), Sizes(900, 2 * kMiB, 0),
       Rotation::kNone},
      {"record unknown", Bytes(kMiB), Sizes(2 * kMiB, 0, 3), Rotation::kNone},
      {"v2 ceiling without -v", v2, Sizes(kV2Ceiling - 10, 11, 1), Rotation::kNewVolume},
      {"v2 ceiling, under", v2, Sizes(kV2Ceiling - 10, 10, 1), Rotation::kNone},
      {"-v smaller than the ceiling wins", v2_small, Sizes(kMiB, 1, 1), Rotation::kNewVolume},
      {"-v bigger than the ceiling is cut to it", [] {
         RotationPolicy p = Bytes(4 * kV2Ceiling);
         p.ceiling = kV2Ceiling;
         return p;
       }(),
       Sizes(kV2Ceiling, 1, 1), Rotation::kNewVolume},
      {"samples: one short", Samples(10), Sizes(0, 0, 9), Rotation::kNone},
      {"samples: reached", Samples(10), Sizes(0, 0, 10), Rotation::kNewVolume},
      {"samples: not asked", Samples(0), Sizes(0, 0, 1'000'000), Rotation::kNone},
      {"time: a tick short", Every(absl::Minutes(1)),
       At(kT0 + absl::Minutes(1) - absl::Nanoseconds(1), kT0), Rotation::kNone},
      {"time: reached", Every(absl::Minutes(1)), At(kT0 + absl::Minutes(1), kT0),
       Rotation::kNewVolume},
      {"time: not asked", RotationPolicy{}, At(kT0 + absl::Hours(1000), kT0), Rotation::kNone},
      {"time: volume start unknown", Every(absl::Seconds(1)),
       At(kT0, absl::InfiniteFuture()), Rotation::kNone},
      {"period over", RotationPolicy{}, period_over, Rotation::kNewArchive},
      {"period ahead", RotationPolicy{}, period_ahead, Rotation::kNone},
      {"reload", RotationPolicy{}, reload, Rotation::kNewVolume},
      {"a new archive is a new volume too", Samples(1), reload_and_period,
       Rotation::kNewArchive},
      {"samples and size both due", [] {
         RotationPolicy p = Samples(5);
         p.volume_bytes = kMiB;
         return p;
       }(),
       both, Rotation::kNewVolume},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(DecideRotation(row.policy, row.state), row.want) << row.why;
  }
}

}  // namespace
}  // namespace mmvlog::archiver

#include "archiver/schedule/record_loop.h"

#include <algorithm>
#include <optional>

#include "archiver/schedule/group_schedule.h"
#include "archiver/schedule/log_plan.h"
#include "archiver/schedule/schedule.h"
#include "archiver/store/rotation_policy.h"

namespace mmvlog::archiver {
namespace {

// -v TIME: decided as every other rotation is (rotation_policy.h).
bool VolumeTimeUp(const LoopLimits& limits, absl::Time volume_started, absl::Time now) {
  RotationPolicy policy;
  policy.volume_interval = limits.volume_interval;
  RotationState state;
  state.now = now;
  state.volume_started = volume_started;
  return DecideRotation(policy, state) == Rotation::kNewVolume;
}

std::vector<std::pair<size_t, absl::Duration>> PlanGroups(const LogPlan& plan) {
  std::vector<std::pair<size_t, absl::Duration>> out;
  for (const GroupSelection& g : plan.groups()) out.push_back({g.id, g.interval});
  return out;
}

// With a pmlogger configuration: each group on its own deadlines, one
// result per due group. Every group is sampled at the start; until the plan
// has groups (no MMV file yet) the directory is looked at every interval.
// -s counts results, as pmlogger's does.
absl::Status RunGroupedLoop(Recorder& recorder, const LoopLimits& limits, const LoopHooks& hooks,
                            LoopStats* stats) {
  const absl::Time start = hooks.now();
  const absl::Time end = std::min(limits.until, start + limits.duration);
  absl::Time volume_started = start;
  GroupSchedule schedule;
  uint64_t version = 0;
  absl::Time due = start;
  std::vector<size_t> groups;  // empty: all
  bool all = true;
  auto limit_reached = [&] {
    return (limits.ticks > 0 && stats->samples >= limits.ticks) ||
           (limits.samples > 0 && static_cast<int64_t>(recorder.stats().results) >= limits.samples) ||
           (limits.max_bytes > 0 && recorder.bytes_written() >= limits.max_bytes);
  };
  auto sample = [&](absl::Time now) -> absl::Status {
    absl::Status s = all ? recorder.Sample(now) : recorder.SampleGroups(now, groups);
    if (!s.ok()) return s;
    ++stats->samples;
    stats->max_lateness = std::max(stats->max_lateness, now - due);
    stats->lateness.Add(now - due);
    if (now - due < limits.interval) ++stats->on_time;
    hooks.on_sample();
    if (absl::Status live = recorder.LiveStep(hooks.now()); !live.ok()) return live;
    if (recorder.plan_version() != version) {
      // New groups (or the first ones): those just sampled keep going from
      // here; one that appears later starts now.
      version = recorder.plan_version();
      schedule.Set(PlanGroups(*recorder.plan()), now, /*taken_now=*/all);
    }
    return absl::OkStatus();
  };
  for (;;) {
    const absl::Time now = hooks.now();
    if (now > end) return absl::OkStatus();
    if (VolumeTimeUp(limits, volume_started, now)) {
      volume_started = now;
      if (absl::Status s = recorder.NewVolume(); !s.ok()) return s;
    }
    if (all || !groups.empty()) {
      if (absl::Status s = sample(now); !s.ok()) return s;
      if (limit_reached()) return absl::OkStatus();
    }
    // What is due next: the schedule, or another look for files.
    all = schedule.empty();
    due = all ? hooks.now() + limits.interval : schedule.NextDue();
    if (due > end) return absl::OkStatus();
    while (hooks.now() < due) {
      hooks.wait_until(std::min(due, recorder.NextLiveStep()));
      if (absl::Status s = recorder.LiveStep(hooks.now()); !s.ok()) return s;
      const LoopEvent e = hooks.poll();
      if (e == LoopEvent::kStop) return absl::OkStatus();
      if (e == LoopEvent::kNewVolume) {
        volume_started = hooks.now();
        if (absl::Status s = recorder.NewVolume(); !s.ok()) return s;
      }
      if (e == LoopEvent::kFinalSample) {
        all = true;
        return sample(hooks.now());
      }
    }
    const LoopEvent e = hooks.poll();
    if (e == LoopEvent::kStop) return absl::OkStatus();
    if (e == LoopEvent::kFinalSample) {
      all = true;
      return sample(hooks.now());
    }
    if (e == LoopEvent::kNewVolume) {
      volume_started = hooks.now();
      if (absl::Status s = recorder.NewVolume(); !s.ok()) return s;
    }
    if (!all) groups = schedule.TakeDue(hooks.now(), &stats->skipped_ticks);
  }
}

}  // namespace

absl::Status RunRecordLoop(Recorder& recorder, const LoopLimits& limits,
                           const LoopHooks& hooks, LoopStats* stats) {
  *stats = LoopStats{};
  if (recorder.plan() != nullptr) return RunGroupedLoop(recorder, limits, hooks, stats);
  absl::Time start = hooks.now();
  const absl::Time end = std::min(limits.until, start + limits.duration);
  int64_t index = 0;
  absl::Time due = start;
  absl::Time volume_started = start;
  auto new_volume = [&](absl::Time now) {
    volume_started = now;
    return recorder.NewVolume();
  };
  // One more sample now, and the end (kFinalSample).
  auto final_sample = [&]() -> absl::Status {
    if (absl::Status s = recorder.Sample(hooks.now()); !s.ok()) return s;
    ++stats->samples;
    hooks.on_sample();
    return absl::OkStatus();
  };
  // After a wait: the live step, then what the caller asks for. A value ends
  // the loop with it.
  auto woken = [&]() -> std::optional<absl::Status> {
    if (absl::Status s = recorder.LiveStep(hooks.now()); !s.ok()) return s;
    const LoopEvent e = hooks.poll();
    if (e == LoopEvent::kStop) return absl::OkStatus();
    if (e == LoopEvent::kNewVolume) {
      if (absl::Status s = new_volume(hooks.now()); !s.ok()) return s;
    }
    if (e == LoopEvent::kFinalSample) return final_sample();
    return std::nullopt;
  };
  for (;;) {
    const absl::Time now = hooks.now();
    if (now > end) return absl::OkStatus();
    if (VolumeTimeUp(limits, volume_started, now)) {
      if (absl::Status s = new_volume(now); !s.ok()) return s;
    }
    if (absl::Status s = recorder.Sample(now); !s.ok()) return s;
    if (absl::Status s = recorder.LiveStep(hooks.now()); !s.ok()) return s;
    ++stats->samples;
    stats->max_lateness = std::max(stats->max_lateness, now - due);
    stats->lateness.Add(now - due);
    if (now - due < limits.interval) ++stats->on_time;
    hooks.on_sample();
    if (limits.samples > 0 && stats->samples >= limits.samples) return absl::OkStatus();
    if (limits.ticks > 0 && stats->samples >= limits.ticks) return absl::OkStatus();
    if (limits.max_bytes > 0 && recorder.bytes_written() >= limits.max_bytes) {
      return absl::OkStatus();
    }

    if (recorder.empty() && hooks.wait_for_files) {
      // Nothing to read: sleep until a file appears (at most a second, in
      // case a change went unseen), then sample at once, on a new schedule.
      hooks.wait_for_files(
          std::min({end, hooks.now() + absl::Seconds(1), recorder.NextLiveStep()}));
      if (std::optional<absl::Status> done = woken()) return *done;
      start = due = hooks.now();
      index = 0;
      continue;
    }
    const Tick tick = NextTick(start, limits.interval, index, hooks.now());
    index = tick.index;
    due = tick.due;
    stats->skipped_ticks += tick.skipped;
    if (due > end) return absl::OkStatus();
    while (hooks.now() < due) {
      hooks.wait_until(std::min(due, recorder.NextLiveStep()));
      if (std::optional<absl::Status> done = woken()) return *done;
    }
    const LoopEvent e = hooks.poll();
    if (e == LoopEvent::kStop) return absl::OkStatus();
    if (e == LoopEvent::kFinalSample) return final_sample();
    if (e == LoopEvent::kNewVolume) {
      if (absl::Status s = new_volume(hooks.now()); !s.ok()) return s;
    }
  }
}

}  // namespace mmvlog::archiver

#include "archiver/record_loop.h"

#include <algorithm>

#include "archiver/schedule.h"

namespace mmvlog::archiver {

absl::Status RunRecordLoop(Recorder& recorder, const LoopLimits& limits,
                           const LoopHooks& hooks, LoopStats* stats) {
  *stats = LoopStats{};
  const absl::Time start = hooks.now();
  const absl::Time end = std::min(limits.until, start + limits.duration);
  int64_t index = 0;
  absl::Time due = start;
  absl::Time next_volume = start + limits.volume_interval;
  auto new_volume = [&](absl::Time now) {
    next_volume = now + limits.volume_interval;
    return recorder.NewVolume();
  };
  for (;;) {
    const absl::Time now = hooks.now();
    if (now > end) return absl::OkStatus();
    if (now >= next_volume) {
      if (absl::Status s = new_volume(now); !s.ok()) return s;
    }
    if (absl::Status s = recorder.Sample(now); !s.ok()) return s;
    ++stats->samples;
    stats->max_lateness = std::max(stats->max_lateness, now - due);
    stats->lateness.Add(now - due);
    if (now - due < limits.interval) ++stats->on_time;
    hooks.on_sample();
    if (limits.samples > 0 && stats->samples >= limits.samples) return absl::OkStatus();
    if (limits.max_bytes > 0 && recorder.bytes_written() >= limits.max_bytes) {
      return absl::OkStatus();
    }

    const Tick tick = NextTick(start, limits.interval, index, hooks.now());
    index = tick.index;
    due = tick.due;
    stats->skipped_ticks += tick.skipped;
    if (due > end) return absl::OkStatus();
    bool final_sample = false;
    while (hooks.now() < due) {
      hooks.wait_until(due);
      const LoopEvent e = hooks.poll();
      if (e == LoopEvent::kStop) return absl::OkStatus();
      if (e == LoopEvent::kNewVolume) {
        if (absl::Status s = new_volume(hooks.now()); !s.ok()) return s;
      }
      if (e == LoopEvent::kFinalSample) {
        final_sample = true;
        break;
      }
    }
    if (final_sample) {
      due = hooks.now();
      if (absl::Status s = recorder.Sample(hooks.now()); !s.ok()) return s;
      ++stats->samples;
      hooks.on_sample();
      return absl::OkStatus();
    }
    const LoopEvent e = hooks.poll();
    if (e == LoopEvent::kStop) return absl::OkStatus();
    if (e == LoopEvent::kFinalSample) {
      if (absl::Status s = recorder.Sample(hooks.now()); !s.ok()) return s;
      ++stats->samples;
      hooks.on_sample();
      return absl::OkStatus();
    }
    if (e == LoopEvent::kNewVolume) {
      if (absl::Status s = new_volume(hooks.now()); !s.ok()) return s;
    }
  }
}

}  // namespace mmvlog::archiver

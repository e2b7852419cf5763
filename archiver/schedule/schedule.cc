#include "archiver/schedule/schedule.h"

#include <cassert>

namespace mmvlog::archiver {

Tick NextTick(absl::Time start, absl::Duration interval, int64_t last_index,
              absl::Time now) {
  assert(interval > absl::ZeroDuration());
  Tick t;
  t.index = last_index + 1;
  t.due = start + interval * t.index;
  if (now - t.due >= interval) {
    // Late by a whole interval or more: drop the missed deadlines and aim at
    // the latest one that has passed, which is still "now".
    absl::Duration rem;  // IDivDuration writes it: nullptr crashes
    const int64_t behind = absl::IDivDuration(now - start, interval, &rem);
    t.skipped = behind - t.index;
    t.index = behind;
    t.due = start + interval * t.index;
  }
  return t;
}

}  // namespace mmvlog::archiver

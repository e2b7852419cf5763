#include "archiver/schedule/group_schedule.h"

#include <algorithm>


namespace mmvlog::archiver {

void GroupSchedule::Set(const std::vector<std::pair<size_t, absl::Duration>>& groups,
                        absl::Time now, bool taken_now) {
  std::vector<Entry> next;
  for (const auto& [id, interval] : groups) {
    auto it = std::find_if(groups_.begin(), groups_.end(), [&](const Entry& e) {
      return e.id == id && e.interval == interval;
    });
    if (it != groups_.end()) {
      next.push_back(*it);
      continue;
    }
    Entry e{id, interval, now};
    if (taken_now) {
      if (interval == absl::ZeroDuration()) {
        e.done = true;
      } else {
        e.index = 1;
      }
    }
    next.push_back(e);
  }
  groups_ = std::move(next);
}

absl::Time GroupSchedule::NextDue() const {
  absl::Time next = absl::InfiniteFuture();
  for (const Entry& e : groups_) {
    if (!e.done) next = std::min(next, e.due());
  }
  return next;
}

std::vector<size_t> GroupSchedule::TakeDue(absl::Time now, int64_t* skipped) {
  std::vector<size_t> due;
  for (Entry& e : groups_) {
    if (e.done || e.due() > now) continue;
    due.push_back(e.id);
    if (e.interval == absl::ZeroDuration()) {
      e.done = true;
      continue;
    }
    // The deadline just served stands for every one that has passed; the
    // next is the first after `now`.
    const int64_t served = e.index;
    ++e.index;
    if (e.due() <= now) {
      absl::Duration rem;  // IDivDuration writes it: nullptr crashes
      e.index = absl::IDivDuration(now - e.start, e.interval, &rem) + 1;
      if (skipped != nullptr) *skipped += e.index - 1 - served;
    }
  }
  return due;
}

}  // namespace mmvlog::archiver

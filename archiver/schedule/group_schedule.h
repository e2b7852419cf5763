// GroupSchedule: when each group of a pmlogger configuration is due. A group
// every N is due at its start and at start + k * N after (absolute
// deadlines: no drift; deadlines missed by a stalled machine are skipped and
// counted, never bunched, as NextTick does for one interval); a "once" group
// is due at its start only. Pure: the clock comes in as arguments.
#ifndef MMVLOG_ARCHIVER_SCHEDULE_GROUP_SCHEDULE_H_
#define MMVLOG_ARCHIVER_SCHEDULE_GROUP_SCHEDULE_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace mmvlog::archiver {

class GroupSchedule {
 public:
  // The groups there are now, in the order their results go out, as (id,
  // interval; zero for once). A group seen before keeps its deadlines; a new
  // one starts at `now`, due at once unless `taken_now` (its first sample was
  // just taken).
  void Set(const std::vector<std::pair<size_t, absl::Duration>>& groups, absl::Time now,
           bool taken_now = false);
  // The earliest deadline; InfiniteFuture when no group is due ever again.
  absl::Time NextDue() const;
  // The groups due at `now`, in order, each moved on to its next deadline;
  // `skipped` (may be null) counts deadlines dropped because they passed.
  std::vector<size_t> TakeDue(absl::Time now, int64_t* skipped);
  bool empty() const { return groups_.empty(); }

 private:
  struct Entry {
    size_t id;
    absl::Duration interval;
    absl::Time start;
    int64_t index = 0;  // the next deadline is start + index * interval
    bool done = false;  // a once group that ran
    absl::Time due() const { return start + interval * index; }
  };
  std::vector<Entry> groups_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SCHEDULE_GROUP_SCHEDULE_H_

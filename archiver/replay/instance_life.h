// When an instance of a DISCRETE metric lives, as libpcp's interpolation
// knows it (interp.c time_caliper): for an instance domain that ever holds
// 16 instances or more, an instance is born at the oldest observation of
// the domain that lists it and dies at the first observation after the
// newest one that lists it (never, when the newest lists it). Between
// grid times outside that span a discrete value is not carried forward:
// a process that has exited shows nothing, not its last value.
#ifndef MMVLOG_ARCHIVER_REPLAY_INSTANCE_LIFE_H_
#define MMVLOG_ARCHIVER_REPLAY_INSTANCE_LIFE_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "archiver/replay/archive_set.h"
#include "archiver/replay/columns.h"

namespace mmvlog::archiver {

struct InstanceLife {
  int64_t birth_ns = std::numeric_limits<int64_t>::min();
  int64_t death_ns = std::numeric_limits<int64_t>::max();
};

// Per column of `columns`: its life (unbounded for columns of other
// metrics, of small instance domains and of instances never listed).
std::vector<InstanceLife> DiscreteLifetimes(const ColumnSet& columns, const ArchiveSet& archives);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_INSTANCE_LIFE_H_

// PlanState: a recorder's pmlogger plan (RecorderOptions::plan) as resolved
// against the metrics the MMV files offer: resolved at the first tick with
// files, updated when files are mapped again, replaced on SIGHUP.
//
// Invariants it keeps:
// - version() counts changes of the plan's groups (a new plan resolved,
//   metrics that appeared below a configured subtree), so what is made for
//   one version (projections, metadata written) is known to be stale;
// - the plan looks at the offered metrics again only when the files'
//   mappings moved (MmvFileSet::mapping_serial) or the plan is new.
// Without a plan every call is a no-op and a tick has one group, every
// metric (Groups gives {nullptr}).
#ifndef MMVLOG_ARCHIVER_SCHEDULE_PLAN_STATE_H_
#define MMVLOG_ARCHIVER_SCHEDULE_PLAN_STATE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "archiver/schedule/log_plan.h"
#include "archiver/mmv/mmv_file_set.h"
#include "archiver/store/log.h"

namespace mmvlog::archiver {

class PlanState {
 public:
  PlanState(std::shared_ptr<LogPlan> plan, LogFunction log)
      : plan_(std::move(plan)), log_(std::move(log)) {}

  // Null without a plan.
  const LogPlan* plan() const { return plan_.get(); }
  uint64_t version() const { return version_; }
  // Replaces the plan; it is resolved at the next Resolve.
  void Set(std::shared_ptr<LogPlan> plan);
  // Resolves the plan against the mapped files of `live` when new, or
  // when `files` mapped files since the last look; warnings are logged.
  void Resolve(const MmvFileSet& files, const MmvFileSet::Live& live);
  // Sets *groups to the groups with these ids (all when null), in the
  // plan's order; one, nullptr (every metric), without a plan.
  void Groups(const std::vector<size_t>* ids, std::vector<const GroupSelection*>* groups) const;

 private:
  std::shared_ptr<LogPlan> plan_;
  LogFunction log_;
  bool started_ = false;
  uint64_t version_ = 0;
  uint64_t mappings_ = 0;  // MmvFileSet::mapping_serial when the plan last looked
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SCHEDULE_PLAN_STATE_H_

// LogPlan: a pmlogger configuration resolved against the metrics there are,
// with pmlogger's meaning (src/pmlogger/src/gram.y, checks.c, dopdu.c):
//
// - Clauses with the same controller, state and interval share one group
//   (pmlogger's task); each group that is "on" is one pmResult per tick.
// - A name is a leaf (one metric) or a subtree (every metric below it). A
//   name that is not a leaf now (a subtree, or nothing yet) is also kept as
//   a root: metrics that appear below it later (an MMV file created after
//   start) join its group with all instances, when no group has them yet,
//   as pmlogger does on pmcd's PMCD_NAMES_CHANGE. Nothing matching is a
//   warning, not an error.
// - Instances are listed by external name or by number, resolved when the
//   clause is read; one that does not exist then is a warning and dropped.
//   Without a list a group takes every instance, including later ones.
// - The two-level state: a later request for a metric-instance replaces an
//   earlier advisory one, and a mandatory one only when it is mandatory too
//   (so "mandatory off" is not undone by "advisory on", and "mandatory
//   maybe" lets advisory decide). As in pmlogger, a request for all
//   instances is never taken back by a later one: a metric named in two
//   "on" groups is logged at both cadences.
//
// Pure: no I/O, no clock.
#ifndef MMVLOG_ARCHIVER_SCHEDULE_LOG_PLAN_H_
#define MMVLOG_ARCHIVER_SCHEDULE_LOG_PLAN_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "format/text/logger_config.h"

namespace mmvlog::archiver {

// A metric the recorder can log, as the configuration sees it.
struct OfferedMetric {
  std::string name;  // mmv.app.metric
  uint32_t pmid = 0;
  bool has_indom = false;
  std::vector<std::pair<int32_t, std::string>> instances;  // (id, external name)
};

// What one group logs of one metric: every instance, or these.
struct MetricSelection {
  bool all = false;
  std::vector<int32_t> instances;  // sorted, when !all
  bool Takes(int32_t inst) const;
};

// One group as the recorder samples it.
struct GroupSelection {
  size_t id = 0;  // stays the group's through Update
  absl::Duration interval;  // zero: once
  absl::flat_hash_map<uint32_t, MetricSelection> metrics;  // by PMID
};

class LogPlan {
 public:
  // `default_interval` is what "default" means (-t, else 60 seconds).
  LogPlan(format::LoggerConfig config, absl::Duration default_interval);

  // Resolves the configuration against `metrics` (call once, first).
  // Returns warnings, each "FILE:LINE:COL: warning: ...".
  std::vector<std::string> Start(const std::vector<OfferedMetric>& metrics);
  // Adds metrics that appeared below a root since; true when a group changed.
  bool Update(const std::vector<OfferedMetric>& metrics);

  // The groups that log (state on), in pmlogger's order: "once" groups
  // first, then the others in the order the configuration made them.
  // Rebuilt by Start and by an Update that changed something.
  const std::vector<GroupSelection>& groups() const { return groups_; }
  // Every metric any group logs, or could log (for metadata).
  bool Logs(uint32_t pmid) const;
  // The schedule, one line per group and metric (for -C).
  std::string Describe(const std::vector<OfferedMetric>& metrics) const;

 private:
  struct Task {
    format::LogControl control;
    format::LogState state;
    absl::Duration interval;  // zero for once and for off/maybe
  };
  struct Request {
    size_t task;
    uint32_t pmid;
    bool all;
    std::vector<int32_t> instances;
  };
  struct Root {
    std::string name;
    size_t task;
  };

  size_t FindTask(format::LogControl control, format::LogState state, absl::Duration interval,
                  bool allow_once);
  bool Mandatory(size_t task) const;
  bool Advisory(size_t task) const;  // neither mandatory nor maybe
  // pmlogger's chk_one / chk_all: 0 go ahead, 1 already there, -1 conflict.
  int CheckOne(size_t task, uint32_t pmid, int32_t inst);
  int CheckAll(size_t task, uint32_t pmid);
  void Activate(size_t task, const OfferedMetric& m, const format::MetricSpec& spec,
                std::vector<std::string>* warnings);
  void Rebuild();

  format::LoggerConfig config_;
  absl::Duration default_interval_;
  std::vector<Task> tasks_;
  std::vector<Request> requests_;  // dead ones have no instances and !all
  std::vector<Root> roots_;
  std::vector<GroupSelection> groups_;
  absl::flat_hash_map<uint32_t, bool> known_;  // PMIDs with a request
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SCHEDULE_LOG_PLAN_H_

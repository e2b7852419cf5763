#include "archiver/schedule/log_plan.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mmvlog::archiver {
namespace {

using format::LogControl;
using format::LogState;

bool Below(absl::string_view name, absl::string_view root) {
  return name.size() > root.size() && name.substr(0, root.size()) == root &&
         name[root.size()] == '.';
}

// pmLookupInDom's rule: the whole external name, or its first word.
std::optional<int32_t> InstanceByName(const OfferedMetric& m, absl::string_view name) {
  for (const auto& [id, ext] : m.instances) {
    if (ext == name) return id;
  }
  for (const auto& [id, ext] : m.instances) {
    if (absl::string_view(ext).substr(0, ext.find(' ')) == name) return id;
  }
  return std::nullopt;
}

std::string IntervalText(absl::Duration d) {
  if (d == absl::ZeroDuration()) return "once";
  const int64_t ms = absl::ToInt64Milliseconds(d);
  if (ms % 3600000 == 0) return absl::StrCat("every ", ms / 3600000, " hour");
  if (ms % 60000 == 0) return absl::StrCat("every ", ms / 60000, " min");
  if (ms % 1000 == 0) return absl::StrCat("every ", ms / 1000, " sec");
  return absl::StrCat("every ", ms, " msec");
}

}  // namespace

bool MetricSelection::Takes(int32_t inst) const {
  return all || std::binary_search(instances.begin(), instances.end(), inst);
}

LogPlan::LogPlan(format::LoggerConfig config, absl::Duration default_interval)
    : config_(std::move(config)), default_interval_(default_interval) {}

size_t LogPlan::FindTask(LogControl control, LogState state, absl::Duration interval,
                         bool allow_once) {
  if (state != LogState::kOn) interval = absl::ZeroDuration();
  const bool once = state == LogState::kOn && interval == absl::ZeroDuration();
  if (!once || allow_once) {
    for (size_t i = 0; i < tasks_.size(); ++i) {
      const Task& t = tasks_[i];
      if (t.control == control && t.state == state && t.interval == interval) return i;
    }
  }
  tasks_.push_back({control, state, interval});
  return tasks_.size() - 1;
}

bool LogPlan::Mandatory(size_t task) const {
  return tasks_[task].control == LogControl::kMandatory && tasks_[task].state != LogState::kMaybe;
}

bool LogPlan::Advisory(size_t task) const {
  return tasks_[task].control == LogControl::kAdvisory;
}

int LogPlan::CheckOne(size_t task, uint32_t pmid, int32_t inst) {
  // The request that holds this instance: one naming it, else one for all.
  Request* found = nullptr;
  Request* all = nullptr;
  for (Request& r : requests_) {
    if (r.pmid != pmid) continue;
    if (r.all) {
      all = &r;
    } else if (std::find(r.instances.begin(), r.instances.end(), inst) != r.instances.end()) {
      found = &r;
    }
  }
  if (found == nullptr) found = all;
  if (found == nullptr) return 0;
  if (found->task == task) return 1;
  if (Mandatory(found->task) && Advisory(task)) return -1;
  // The new request replaces the old for this instance; one for all
  // instances keeps it (pmlogger cannot take one instance out of "all").
  if (!found->all) std::erase(found->instances, inst);
  return 0;
}

int LogPlan::CheckAll(size_t task, uint32_t pmid) {
  for (Request& r : requests_) {
    if (r.pmid != pmid || (!r.all && r.instances.empty())) continue;
    if (r.task == task) {
      r.all = true;  // the same group asked again, for all instances
      r.instances.clear();
      return 1;
    }
    if (Mandatory(r.task) && Advisory(task)) return -1;
  }
  return 0;
}

void LogPlan::Activate(size_t task, const OfferedMetric& m, const format::MetricSpec& spec,
                       std::vector<std::string>* warnings) {
  const std::string where = spec.where.ToString();
  const char* conflict = "an advisory request cannot change a mandatory one";
  if (spec.instances.empty()) {
    const int sts = CheckAll(task, m.pmid);
    if (sts < 0) {
      warnings->push_back(absl::StrCat(where, ": ", m.name, " not changed: ", conflict));
    }
    if (sts != 0) return;
    requests_.push_back({task, m.pmid, true, {}});
    known_[m.pmid] = true;
    return;
  }
  std::vector<int32_t> kept;
  for (const format::InstanceSpec& i : spec.instances) {
    std::optional<int32_t> id;
    if (m.has_indom) {
      if (i.id.has_value()) {
        for (const auto& [have, ext] : m.instances) {
          if (have == *i.id) id = have;
        }
      } else {
        id = InstanceByName(m, i.name);
      }
    }
    if (!id.has_value()) {
      warnings->push_back(absl::StrCat(
          where, ": instance ",
          i.id.has_value() ? absl::StrCat(*i.id) : absl::StrCat("\"", i.name, "\""),
          m.has_indom ? " is not defined for the metric " : " given for the metric ", m.name,
          m.has_indom ? "" : ", which has no instances", "; not logged"));
      continue;
    }
    const int sts = CheckOne(task, m.pmid, *id);
    if (sts < 0) {
      warnings->push_back(absl::StrCat(where, ": ", m.name, " instance ", *id,
                                       " not changed: ", conflict));
    }
    if (sts == 0 && std::find(kept.begin(), kept.end(), *id) == kept.end()) kept.push_back(*id);
  }
  if (kept.empty()) return;
  requests_.push_back({task, m.pmid, false, std::move(kept)});
  known_[m.pmid] = true;
}

std::vector<std::string> LogPlan::Start(const std::vector<OfferedMetric>& metrics) {
  std::vector<std::string> warnings;
  absl::flat_hash_map<std::string, const OfferedMetric*> by_name;
  for (const OfferedMetric& m : metrics) by_name[m.name] = &m;
  for (const format::LogClause& clause : config_.clauses) {
    const absl::Duration interval =
        clause.state == LogState::kOn ? clause.interval.value_or(default_interval_)
                                      : absl::ZeroDuration();
    const size_t task = FindTask(clause.control, clause.state, interval, /*allow_once=*/true);
    for (const format::MetricSpec& spec : clause.metrics) {
      if (auto it = by_name.find(spec.name); it != by_name.end()) {
        Activate(task, *it->second, spec, &warnings);
        continue;
      }
      bool any = false;
      for (const OfferedMetric& m : metrics) {
        if (!Below(m.name, spec.name)) continue;
        any = true;
        Activate(task, m, spec, &warnings);
      }
      if (!any) {
        warnings.push_back(absl::StrCat(spec.where.ToString(), ": ", spec.name,
                                        " matches no metric yet; it is logged if it appears"));
      }
      // Not a leaf now: metrics may appear below it later.
      if (std::none_of(roots_.begin(), roots_.end(),
                       [&](const Root& r) { return r.name == spec.name; })) {
        roots_.push_back({spec.name, task});
      }
    }
  }
  Rebuild();
  return warnings;
}

bool LogPlan::Update(const std::vector<OfferedMetric>& metrics) {
  bool changed = false;
  for (const OfferedMetric& m : metrics) {
    if (known_.contains(m.pmid)) continue;
    for (const Root& root : roots_) {
      const Task t = tasks_[root.task];
      if (m.name != root.name && !Below(m.name, root.name)) continue;
      // As pmlogger's add_dynamic_metric: only an "on" root adds, into a
      // group of the same kind ("once" gets a group of its own).
      if (t.state != LogState::kOn) continue;
      const size_t task = FindTask(t.control, t.state, t.interval, /*allow_once=*/false);
      requests_.push_back({task, m.pmid, true, {}});
      known_[m.pmid] = true;
      changed = true;
      break;
    }
  }
  if (changed) Rebuild();
  return changed;
}

void LogPlan::Rebuild() {
  groups_.clear();
  for (const bool once : {true, false}) {
    for (size_t t = 0; t < tasks_.size(); ++t) {
      if (tasks_[t].state != LogState::kOn) continue;
      if ((tasks_[t].interval == absl::ZeroDuration()) != once) continue;
      GroupSelection g;
      g.id = t;
      g.interval = tasks_[t].interval;
      for (const Request& r : requests_) {
        if (r.task != t || (!r.all && r.instances.empty())) continue;
        MetricSelection& s = g.metrics[r.pmid];
        if (r.all) {
          s.all = true;
          s.instances.clear();
        } else if (!s.all) {
          s.instances.insert(s.instances.end(), r.instances.begin(), r.instances.end());
          std::sort(s.instances.begin(), s.instances.end());
          s.instances.erase(std::unique(s.instances.begin(), s.instances.end()),
                            s.instances.end());
        }
      }
      if (!g.metrics.empty()) groups_.push_back(std::move(g));
    }
  }
}

bool LogPlan::Logs(uint32_t pmid) const {
  for (const GroupSelection& g : groups_) {
    if (g.metrics.contains(pmid)) return true;
  }
  return false;
}

std::string LogPlan::Describe(const std::vector<OfferedMetric>& metrics) const {
  absl::flat_hash_map<uint32_t, const OfferedMetric*> by_pmid;
  for (const OfferedMetric& m : metrics) by_pmid[m.pmid] = &m;
  std::string out;
  auto name_of = [&](uint32_t pmid) {
    auto it = by_pmid.find(pmid);
    return it == by_pmid.end() ? absl::StrCat("pmid ", pmid) : it->second->name;
  };
  auto instances_of = [&](uint32_t pmid, const MetricSelection& s) {
    auto it = by_pmid.find(pmid);
    if (it != by_pmid.end() && !it->second->has_indom) return std::string("(no instances)");
    if (s.all) return std::string("all instances");
    std::vector<std::string> parts;
    for (int32_t id : s.instances) {
      std::string ext;
      if (it != by_pmid.end()) {
        for (const auto& [have, name] : it->second->instances) {
          if (have == id) ext = name;
        }
      }
      parts.push_back(absl::StrCat(id, " \"", ext, "\""));
    }
    return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
  };
  for (const GroupSelection& g : groups_) {
    const Task& t = tasks_[g.id];
    absl::StrAppend(&out, t.control == LogControl::kMandatory ? "mandatory" : "advisory", " on ",
                    IntervalText(g.interval), ":\n");
    std::vector<std::pair<std::string, std::string>> lines;
    for (const auto& [pmid, s] : g.metrics) lines.push_back({name_of(pmid), instances_of(pmid, s)});
    std::sort(lines.begin(), lines.end());
    for (const auto& [name, inst] : lines) absl::StrAppend(&out, "    ", name, "  ", inst, "\n");
  }
  // What is held off, so that a later advisory request cannot log it.
  std::vector<std::string> off;
  for (const Request& r : requests_) {
    if (tasks_[r.task].state == LogState::kOn || (!r.all && r.instances.empty())) continue;
    if (tasks_[r.task].state == LogState::kOff && Mandatory(r.task)) off.push_back(name_of(r.pmid));
  }
  std::sort(off.begin(), off.end());
  off.erase(std::unique(off.begin(), off.end()), off.end());
  if (!off.empty()) absl::StrAppend(&out, "mandatory off:\n    ", absl::StrJoin(off, "\n    "), "\n");
  std::vector<std::string> waiting;
  for (const Root& r : roots_) {
    if (tasks_[r.task].state != LogState::kOn) continue;
    waiting.push_back(absl::StrCat(r.name, " (", IntervalText(tasks_[r.task].interval), ")"));
  }
  if (!waiting.empty()) {
    absl::StrAppend(&out, "logged as they appear, below:\n    ", absl::StrJoin(waiting, "\n    "),
                    "\n");
  }
  if (groups_.empty()) absl::StrAppend(&out, "nothing to log\n");
  return out;
}

}  // namespace mmvlog::archiver

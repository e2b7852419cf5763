#include "archiver/replay/columns.h"

#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "archiver/replay/pmns_order.h"
#include "archiver/store/archive_reader.h"
#include "format/archive/archive_format.h"
#include "format/archive/pm_desc_text.h"
#include "format/pm_units.h"

namespace mmvlog::archiver {
namespace {

uint64_t Key(uint32_t pmid, int32_t inst) {
  return (uint64_t{pmid} << 32) | static_cast<uint32_t>(inst);
}

bool IsEventType(int32_t type) {
  return type == format::kTypeEvent || type == format::kTypeHighresEvent;
}

// libpcp's __pmLogAddDesc (logmeta.c): a PMID described again, in this
// archive or another read with it, must keep its type, semantics, instance
// domain and units, or the archives are refused (pmval, pmrep: exit 1).
absl::Status CheckSameDesc(const format::Desc& was, const std::string& was_in,
                           const format::Desc& d, const std::string& in) {
  std::string what;
  if (d.type != was.type) {
    what = absl::StrCat("the type of a metric has changed in an archive (",
                        format::TypeName(was.type), " in ", was_in, ", ", format::TypeName(d.type),
                        " in ", in, ")");
  } else if (d.sem != was.sem) {
    what = absl::StrCat("the semantics of a metric has changed in an archive (",
                        format::SemanticsName(was.sem), " in ", was_in, ", ",
                        format::SemanticsName(d.sem), " in ", in, ")");
  } else if (d.indom != was.indom) {
    what = absl::StrCat("the instance domain of a metric has changed in an archive (",
                        format::InDomString(was.indom), " in ", was_in, ", ",
                        format::InDomString(d.indom), " in ", in, ")");
  } else if (d.units != was.units) {
    what = absl::StrCat("the units of a metric have changed in an archive (",
                        format::UnitsToString(format::UnitsFromWord(was.units)), " in ", was_in,
                        ", ", format::UnitsToString(format::UnitsFromWord(d.units)), " in ", in,
                        ")");
  } else {
    return absl::OkStatus();
  }
  const std::string name = d.names.empty() ? format::PmidString(d.pmid) : d.names[0];
  return absl::FailedPreconditionError(
      absl::StrCat(name, " (PMID ", format::PmidString(d.pmid), "): ", what));
}

}  // namespace

absl::StatusOr<ColumnSet> ColumnSet::Build(const ArchiveSet& archives,
                                           const Selection& selection) {
  ColumnSet set;
  set.instances_chosen_ = !selection.instances.empty();
  absl::flat_hash_set<std::string> matched;
  // Every descriptor met so far, chosen or not, and the archive it came from.
  absl::flat_hash_map<uint32_t, std::pair<format::Desc, std::string>> described;
  for (const ArchiveEntry& a : archives.archives()) {
    const ArchiveMetadata& meta = a.catalog->meta;
    for (const format::Desc& d : meta.descs) {
      auto [it, first] = described.try_emplace(d.pmid, d, a.base);
      if (first) continue;
      if (absl::Status s = CheckSameDesc(it->second.first, it->second.second, d, a.base);
          !s.ok()) {
        return s;
      }
    }
    if (std::any_of(meta.descs.begin(), meta.descs.end(),
                    [](const format::Desc& d) { return IsEventType(d.type); })) {
      for (const format::Desc& d : meta.descs) {
        if (!d.names.empty()) set.param_names_.try_emplace(d.pmid, d.names[0]);
      }
    }
    for (const format::Desc& d : meta.descs) {
      // A PMID may have several names (PCP QA's sample.dupnames.*): libpcp
      // finds it by any of them, so the metric takes the first one chosen.
      const std::vector<std::string> unnamed = {format::PmidString(d.pmid)};
      const std::vector<std::string>& names = d.names.empty() ? unnamed : d.names;
      auto chosen = std::find_if(names.begin(), names.end(),
                                 [&](const std::string& n) { return selection.SelectsMetric(n); });
      if (chosen == names.end()) continue;
      const std::string& name = *chosen;
      auto [it, added] = set.metric_of_pmid_.try_emplace(d.pmid, set.metrics_.size());
      if (added) {
        ReplayMetric m;
        m.name = name;
        m.desc = d;
        set.metrics_.push_back(std::move(m));
      }
      const size_t mi = it->second;
      ReplayMetric& m = set.metrics_[mi];
      if (m.oneline.empty()) {
        if (const std::string* h = meta.Text(format::kTextOneLine | format::kTextPmid, d.pmid)) m.oneline = *h;
      }
      if (m.help.empty()) {
        if (const std::string* h = meta.Text(format::kTextHelp | format::kTextPmid, d.pmid)) m.help = *h;
      }
      auto add = [&](int32_t inst, const std::string& instance) {
        if (set.column_of_.contains(Key(d.pmid, inst))) return;
        if (inst >= 0) {
          if (!selection.SelectsInstance(instance)) return;
          for (const std::string& w : selection.instances) {
            if (InstanceNamed(instance, w)) matched.insert(w);
          }
        }
        set.column_of_[Key(d.pmid, inst)] = set.columns_.size();
        m.columns.push_back(set.columns_.size());
        set.columns_.push_back({d.pmid, inst, mi, instance});
      };
      if (d.indom == format::kIndomNull) {
        add(-1, "");
        continue;
      }
      auto obs = meta.indoms.find(d.indom);
      if (obs == meta.indoms.end()) continue;
      std::vector<const format::InDomInstance*> sorted;
      for (auto o = obs->second.rbegin(); o != obs->second.rend(); ++o) {
        // libpcp keeps each observation's instances sorted by number
        // (logmeta.c addinsts), whatever order the record holds them in.
        sorted.clear();
        for (const format::InDomInstance& i : o->instances) sorted.push_back(&i);
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const format::InDomInstance* a, const format::InDomInstance* b) {
                           return a->inst < b->inst;
                         });
        for (const format::InDomInstance* i : sorted) {
          if (!i->deleted) add(i->inst, i->name);
        }
      }
    }
  }
  for (const std::string& w : selection.instances) {
    if (!matched.contains(w)) set.unmatched_.push_back(w);
  }
  if (!selection.metrics.empty()) {
    std::vector<std::string> names;
    for (const ArchiveEntry& a : archives.archives()) {
      for (const format::Desc& d : a.catalog->meta.descs) {
        names.insert(names.end(), d.names.begin(), d.names.end());
      }
    }
    set.pmns_rank_ = PmnsWalkRanks(names);
  }
  return set;
}

ColumnSet ColumnSet::Compose(std::vector<ReplayMetric> metrics, std::vector<Column> columns,
                             const ColumnSet& like) {
  ColumnSet set;
  set.metrics_ = std::move(metrics);
  set.columns_ = std::move(columns);
  for (size_t m = 0; m < set.metrics_.size(); ++m) {
    set.metric_of_pmid_.try_emplace(set.metrics_[m].desc.pmid, m);
  }
  for (size_t c = 0; c < set.columns_.size(); ++c) {
    set.column_of_.try_emplace(Key(set.columns_[c].pmid, set.columns_[c].inst), c);
  }
  set.param_names_ = like.param_names_;
  set.unmatched_ = like.unmatched_;
  set.instances_chosen_ = like.instances_chosen_;
  set.pmns_rank_ = like.pmns_rank_;
  return set;
}

std::string ColumnSet::Label(size_t column) const {
  const Column& c = columns_[column];
  const std::string& metric = metrics_[c.metric].name;
  return c.inst < 0 ? metric : absl::StrCat(metric, "[", c.instance, "]");
}

ptrdiff_t ColumnSet::Find(uint32_t pmid, int32_t inst) const {
  auto it = column_of_.find(Key(pmid, inst));
  return it == column_of_.end() ? -1 : static_cast<ptrdiff_t>(it->second);
}

ptrdiff_t ColumnSet::MetricOf(uint32_t pmid) const {
  auto it = metric_of_pmid_.find(pmid);
  return it == metric_of_pmid_.end() ? -1 : static_cast<ptrdiff_t>(it->second);
}

}  // namespace mmvlog::archiver

#include "archiver/replay/columns.h"

#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "archiver/store/archive_reader.h"
#include "format/archive/archive_format.h"
#include "format/archive/pm_desc_text.h"

namespace mmvlog::archiver {
namespace {

uint64_t Key(uint32_t pmid, int32_t inst) {
  return (uint64_t{pmid} << 32) | static_cast<uint32_t>(inst);
}

bool IsEventType(int32_t type) {
  return type == format::kTypeEvent || type == format::kTypeHighresEvent;
}

}  // namespace

ColumnSet ColumnSet::Build(const ArchiveSet& archives, const Selection& selection) {
  ColumnSet set;
  absl::flat_hash_set<std::string> matched;
  for (const ArchiveEntry& a : archives.archives()) {
    absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(a.base);
    if (!r.ok()) continue;
    const ArchiveMetadata& meta = (*r)->meta();
    if (std::any_of(meta.descs.begin(), meta.descs.end(),
                    [](const format::Desc& d) { return IsEventType(d.type); })) {
      for (const format::Desc& d : meta.descs) {
        if (!d.names.empty()) set.param_names_.try_emplace(d.pmid, d.names[0]);
      }
    }
    for (const format::Desc& d : meta.descs) {
      const std::string name = d.names.empty() ? format::PmidString(d.pmid) : d.names[0];
      if (!selection.SelectsMetric(name)) continue;
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
      for (auto o = obs->second.rbegin(); o != obs->second.rend(); ++o) {
        for (const format::InDomInstance& i : o->instances) {
          if (!i.deleted) add(i.inst, i.name);
        }
      }
    }
  }
  for (const std::string& w : selection.instances) {
    if (!matched.contains(w)) set.unmatched_.push_back(w);
  }
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

#include "archiver/session/metadata_log.h"

#include <algorithm>

#include "format/archive/archive_format.h"

namespace mmvlog::archiver {

bool MetadataLog::Current(const MmvFileSet::File& f, uint64_t plan_version) const {
  auto it = by_file_.find(f.name());
  return it != by_file_.end() && it->second.mapped == f.mapped() &&
         it->second.plan == plan_version;
}

absl::Status MetadataLog::Describe(const MmvFileSet::File& file, const MmvFileSet& files,
                                   const LogPlan* plan, uint64_t plan_version,
                                   ArchiveSession& session, format::Timestamp when) {
  Entry& st = by_file_[file.name()];
  if (st.mapped != file.mapped()) {
    st = Entry();
    st.mapped = file.mapped();
  }
  const MappedFile& f = *st.mapped;
  const bool shared = f.shares_cluster || files.SharesCluster(f.cluster);
  auto labels_of = [&](uint32_t type, uint32_t ident) -> absl::Status {
    for (const format::LabelRecord& l : f.labels) {
      if (l.type != type || l.ident != ident) continue;
      format::LabelRecord r = shared ? files.SharedLabels(l) : l;
      r.timestamp = when;
      if (absl::Status s = session.AddLabels(r); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  auto texts_of = [&](uint32_t kind, uint32_t ident) -> absl::Status {
    for (const format::HelpText& t : f.texts) {
      if ((t.type & kind) == 0 || t.ident != ident) continue;
      if (absl::Status s = session.AddHelpText(t); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  for (const MappedMetric& m : f.metrics) {
    const uint32_t pmid = m.desc.pmid;
    if (st.pmids.contains(pmid) || (plan != nullptr && !plan->Logs(pmid))) continue;
    if (absl::Status s = session.AddDesc(m.desc); !s.ok()) return s;
    st.pmids.insert(pmid);
    if (absl::Status s = session.LabelContext(when); !s.ok()) return s;
    const uint32_t indom = m.desc.indom;
    const bool new_indom = indom != format::kIndomNull && !st.indoms.contains(indom);
    if (new_indom) {
      if (absl::Status s = labels_of(format::kLabelIndom, indom); !s.ok()) return s;
    }
    if (!st.cluster) {
      const uint32_t ident = format::PmidBuild(domain_, f.cluster, 0);
      if (absl::Status s = labels_of(format::kLabelCluster, ident); !s.ok()) return s;
      st.cluster = true;
    }
    if (absl::Status s = labels_of(format::kLabelItem, pmid); !s.ok()) return s;
    if (new_indom) {
      if (absl::Status s = labels_of(format::kLabelInstances, indom); !s.ok()) return s;
    }
    if (absl::Status s = texts_of(format::kTextPmid, pmid); !s.ok()) return s;
    if (!new_indom) continue;
    if (absl::Status s = texts_of(format::kTextIndom, indom); !s.ok()) return s;
    for (format::InDom d : f.indoms) {
      if (d.indom != indom) continue;
      // Files sharing a cluster share its instance domains: the record holds
      // the instances of every file, the first file's first (pmdammv's
      // update_indom).
      if (shared) d = files.SharedInDom(indom);
      d.timestamp = when;
      if (absl::Status s = session.AddInDom(d); !s.ok()) return s;
    }
    st.indoms.insert(indom);
  }
  st.plan = plan_version;
  return absl::OkStatus();
}

void MetadataLog::KeepOnly(const MmvFileSet::Live& live) {
  size_t mapped = 0;
  for (const MmvFileSet::LiveFile& l : live) mapped += l.file->mapped() != nullptr;
  if (by_file_.size() <= mapped) return;  // each has its entry after Describe
  std::erase_if(by_file_, [&](const auto& e) {
    return std::none_of(live.begin(), live.end(), [&](const MmvFileSet::LiveFile& l) {
      return l.file->mapped() != nullptr && l.file->mapped() == e.second.mapped &&
             l.file->name() == e.first;
    });
  });
}

}  // namespace mmvlog::archiver

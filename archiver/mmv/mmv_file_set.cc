#include "archiver/mmv/mmv_file_set.h"


#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "format/archive/label_merge.h"
#include "format/mmv/mmv_format.h"

namespace mmvlog::archiver {
namespace {

void Offer(const MappedFile& f, std::vector<OfferedMetric>* out) {
  for (const MappedMetric& m : f.metrics) {
    if (m.desc.names.empty()) continue;
    if (f.shares_cluster) {
      // One metric across the files sharing its cluster: more instances.
      auto same = std::find_if(out->begin(), out->end(),
                               [&](const OfferedMetric& o) { return o.pmid == m.desc.pmid; });
      if (same != out->end()) {
        for (const format::InDom& d : f.indoms) {
          if (d.indom != m.desc.indom) continue;
          for (const format::InDomInstance& i : d.instances) {
            if (std::none_of(same->instances.begin(), same->instances.end(),
                             [&](const auto& x) { return x.first == i.inst; })) {
              same->instances.push_back({i.inst, i.name});
            }
          }
        }
        continue;
      }
    }
    OfferedMetric o{m.desc.names[0], m.desc.pmid, m.desc.indom != format::kIndomNull, {}};
    for (const format::InDom& d : f.indoms) {
      if (d.indom != m.desc.indom) continue;
      for (const format::InDomInstance& i : d.instances) o.instances.push_back({i.inst, i.name});
    }
    out->push_back(std::move(o));
  }
}

}  // namespace

const std::map<std::string, std::string>& MmvFileSet::ListFiles(bool unchanged,
                                                                bool same_entries) {
  // The listing is built again only when the directory was read again (or
  // failed): a steady tick copies nothing.
  bool fresh = !listed_valid_;
  if (!options_.mmv_dir.empty()) {
    if (dir_ == nullptr) dir_ = std::make_unique<DirListing>(options_.mmv_dir);
    if (absl::Status s = dir_->Refresh(unchanged, same_entries); !s.ok()) {
      std::string err(s.message());
      if (err != last_dir_error_) log_(LogLevel::kWarning, err);
      last_dir_error_ = err;
      listed_.clear();
      listed_valid_ = false;
      ++listed_serial_;
      AddNamedFiles();
      return listed_;
    }
    last_dir_error_.clear();
    // The path names another directory than the one watched: the watch
    // hears nothing of it.
    if (options_.watch != nullptr && dir_->dir_fd() != nullptr) {
      if (watched_dir_ != nullptr && watched_dir_ != dir_->dir_fd().get()) options_.watch->Lose();
      watched_dir_ = dir_->dir_fd().get();
    }
    if (dir_->reads() != listed_reads_) fresh = true;
    if (fresh) {
      listed_ = dir_->files();
      listed_reads_ = dir_->reads();
      ++listed_serial_;
      // Whatever is not a regular file is said once, when first seen.
      for (const auto& [name, kind] : dir_->skipped()) {
        if (skipped_logged_.insert(name).second) {
          log_(LogLevel::kInfo, absl::StrCat(options_.mmv_dir, "/", name, ": a ", kind,
                                             ", skipped (only regular files are recorded)"));
        }
      }
      std::erase_if(skipped_logged_, [&](const std::string& n) {
        return !dir_->skipped().contains(n);
      });
    }
  }
  if (fresh) {
    if (options_.mmv_dir.empty()) listed_.clear();
    AddNamedFiles();
    listed_valid_ = true;
    ++listed_serial_;
  }
  return listed_;
}

void MmvFileSet::AddNamedFiles() {
  for (const std::string& path : options_.files) {
    const size_t slash = path.rfind('/');
    listed_[slash == std::string::npos ? path : path.substr(slash + 1)] = path;
  }
}

void MmvFileSet::Problem(File& f, const std::string& name, const std::string& what) {
  f.transient_ = false;
  if (what != f.last_error_) {
    log_(LogLevel::kWarning, absl::StrCat(name, ": ", what, "; not recorded until it recovers"));
  }
  f.last_error_ = what;
}

void MmvFileSet::Unmap(File& f) {
  f.mapped_.reset();
  ++mappings_changed_;
}

void MmvFileSet::Drop(File& f, const std::string& problem) {
  Problem(f, f.name(), problem);
  Unmap(f);
  steady_ = false;
}

void MmvFileSet::Arrange(const std::map<std::string, std::string>& listed, bool* need_mark) {
  for (auto it = files_.begin(); it != files_.end();) {
    if (!listed.contains(it->first)) {
      // Said of a file recorded, or of one whose problem was said (so the
      // next problem of a file by that name is news).
      if (it->second.mapped_ || !it->second.last_error_.empty()) {
        log_(LogLevel::kInfo, absl::StrCat(it->first, ": file is gone"));
      }
      if (it->second.mapped_) {
        *need_mark = true;
        ++mappings_changed_;
      }
      it = files_.erase(it);
    } else {
      ++it;
    }
  }
  order_.clear();
  for (const auto& [name, path] : listed) {
    File& f = files_[name];
    // Files of the directory are opened relative to it (never through a
    // symbolic link); files named explicitly by their path.
    std::shared_ptr<const FileDescriptor> dir;
    if (dir_ != nullptr) {
      auto it = dir_->files().find(name);
      if (it != dir_->files().end() && it->second == path) dir = dir_->dir_fd();
    }
    if (f.source_ == nullptr || f.path_ != path || f.dir_ != dir) {
      f.name_ = name;
      f.path_ = path;
      f.dir_ = dir;
      f.source_ = dir != nullptr ? std::make_unique<MmvSource>(dir, name, path)
                                 : std::make_unique<MmvSource>(path);
    }
    order_.push_back(&f);
  }
  arranged_serial_ = listed_serial_;
}

const MmvFileSet::Live& MmvFileSet::Scan(bool retake, bool mapped_values, bool* need_mark) {
  // Asked once a scan (it consumes what the watch saw); a retaken tick
  // looks at everything.
  DirWatch* watch = retake ? nullptr : options_.watch;
  const bool unchanged = watch != nullptr && dir_ != nullptr && !watch->TakeChanged();
  const std::map<std::string, std::string>& listed =
      ListFiles(unchanged, watch != nullptr && watch->OnlyLooking());
  empty_ = listed.empty();
  // The files in order, arranged again only when the listing was read
  // again: a steady tick looks nothing up by name.
  const bool arranged = arranged_serial_ == listed_serial_;
  if (!arranged) Arrange(listed, need_mark);
  const bool exits = processes_.Poll();
  // A steady tick: the same files, every one read in place last time (or
  // left alone as damaged), no event for any of them, no process gone,
  // nothing mapped since, not the look once a second. Each snapshot would
  // be the one it gave last time, so the last ones stand (their reads are
  // still checked, after them: ResultWriter).
  reused_ = steady_ && unchanged && arranged && !exits && mapped_values && watch->AllQuiet() &&
            steady_mappings_ == mapping_serial_;
  if (reused_) return live_;
  live_.clear();
  live_.reserve(order_.size());
  bool all_in_place = watch != nullptr && mapped_values;
  for (File* file : order_) {
    File& f = *file;
    const std::string& name = f.name_;
    // Values are read in place for a file whose layout is fixed (the
    // record template's fast path) when the tick writes one result; a torn
    // read retakes the tick from copies (ResultWriter).
    const bool in_place = !retake && mapped_values && f.mapped_ != nullptr &&
                          f.mapped_->fixed_layout && !f.mapped_->shares_cluster;
    // A file no event named since the last scan keeps its entry and size:
    // not stat'ed (entries created, removed or renamed, and writes or
    // truncations, are all events).
    const bool same_entry = watch != nullptr && f.dir_ != nullptr && watch->Quiet(name);
    // A file not recorded for a problem that does not pass by itself (a
    // damaged file, an exited process, metadata that cannot be recorded),
    // of which nothing was heard since: read again only at an event or at
    // the watch's look once a second (a mapping may mend it silently), not
    // every tick (its preads and stat were most of a tick of the soak).
    if (unchanged && same_entry && f.mapped_ == nullptr && !f.last_error_.empty() &&
        !f.transient_) {
      continue;
    }
    absl::StatusOr<MmvSnapshot> snap = f.source_->Snapshot(
        in_place ? MmvSource::kMapped : MmvSource::kCopied, same_entry);
    bool ok = snap.ok();
    if (!ok) {
      Problem(f, name, std::string(snap.status().message()));
      f.transient_ = absl::IsUnavailable(snap.status());
    } else if (snap->file->header.flags & format::kMmvFlagProcess) {
      const int32_t pid = snap->file->header.process;
      if (snap->reloaded) processes_.Forget(pid);
      if (!processes_.Alive(pid)) {
        Problem(f, name, absl::StrCat("process ", pid, " has exited"));
        f.transient_ = false;
        ok = false;
      }
    }
    if (!ok) {
      if (f.mapped_) *need_mark = true;
      Unmap(f);
      all_in_place = false;
      continue;
    }
    if (!f.last_error_.empty()) {
      log_(LogLevel::kInfo, absl::StrCat(name, ": readable again"));
      f.last_error_.clear();
    }
    all_in_place = all_in_place && snap->mapped;
    live_.push_back({&f, std::move(*snap)});
  }
  processes_.Sweep();
  steady_ = all_in_place;
  steady_mappings_ = mapping_serial_;
  return live_;
}

absl::Status MmvFileSet::MapChanged(const Live& live, MmvMapper& mapper, bool conflict_rotates,
                                    bool* need_mark) {
  auto unchanged = [](const LiveFile& l) {
    return l.file->mapped_ && !l.snap.reloaded && l.file->mapped_->mmv == l.snap.file;
  };
  // A steady tick maps nothing (and reserves nothing: every file was
  // reserved when it was first mapped).
  if (std::all_of(live.begin(), live.end(), unchanged)) return absl::OkStatus();
  std::vector<std::pair<std::string, int32_t>> clusters;
  for (const auto& [f, snap] : live) clusters.push_back({f->name(), snap.file->header.cluster});
  mapper.ReserveClusters(clusters);
  for (const LiveFile& l : live) {
    if (unchanged(l)) continue;
    File* f = l.file;
    const MmvSnapshot& snap = l.snap;
    const uint64_t generation = snap.file->header.generation1;
    // Re-read while recorded: a new generation, or a new file (inode, size)
    // with the same one. Either way the application restarted.
    if (f->mapped_ && (generation != f->generation_ || snap.reloaded)) *need_mark = true;
    if (!f->mapped_ && f->recorded_) *need_mark = true;  // came back
    const std::string& file_name = f->name();
    absl::StatusOr<MappedFile> mapped = mapper.Map(file_name, snap.file);
    if (absl::IsAlreadyExists(mapped.status()) && conflict_rotates) return mapped.status();
    if (!mapped.ok()) {
      Problem(*f, file_name, std::string(mapped.status().message()));
      Unmap(*f);
      continue;
    }
    for (const std::string& w : mapped->warnings) {
      log_(LogLevel::kWarning, absl::StrCat(file_name, ": ", w));
    }
    f->mapped_ = std::make_shared<const MappedFile>(std::move(*mapped));
    f->generation_ = generation;
    f->projected_.clear();
    ++mapping_serial_;
    ++mappings_changed_;
  }
  return absl::OkStatus();
}

void MmvFileSet::ForgetMappings() {
  steady_ = false;
  for (auto& [name, f] : files_) {
    Unmap(f);  // mapped again (and described again) by the next tick
    f.recorded_ = false;
  }
}

std::shared_ptr<const MappedFile> MmvFileSet::Projected(File& f, const GroupSelection* group,
                                                        uint64_t plan_version) {
  if (group == nullptr) return f.mapped_;
  auto& [version, cached] = f.projected_[group->id];
  if (cached != nullptr && version == plan_version) return cached;
  const MappedFile& m = *f.mapped_;
  MappedFile p;
  p.name = m.name;
  p.mmv = m.mmv;
  p.cluster = m.cluster;
  p.shares_cluster = m.shares_cluster;
  p.sentinel = m.sentinel;
  p.fixed_layout = m.fixed_layout;
  for (const MappedMetric& mm : m.metrics) {
    auto it = group->metrics.find(mm.desc.pmid);
    if (it == group->metrics.end()) continue;
    if (it->second.all) {
      p.metrics.push_back(mm);
      continue;
    }
    MappedMetric cut;
    cut.desc = mm.desc;
    cut.mmv_type = mm.mmv_type;
    const bool offsets = mm.offsets.size() == mm.values.size();
    for (size_t i = 0; i < mm.values.size(); ++i) {
      const format::MmvValueEntry& e = m.mmv->values[mm.values[i]];
      if (!it->second.Takes(e.instance_index < 0 ? format::kInNull : e.instance)) continue;
      cut.values.push_back(mm.values[i]);
      if (offsets) cut.offsets.push_back(mm.offsets[i]);
    }
    if (!cut.values.empty()) p.metrics.push_back(std::move(cut));
  }
  NoteValueRange(&p);
  version = plan_version;
  cached = std::make_shared<const MappedFile>(std::move(p));
  return cached;
}

void MmvFileSet::Parts(const Live& live, const GroupSelection* group, uint64_t plan_version,
                       std::vector<FilePart>* parts) {
  for (const auto& [f, snap] : live) {
    if (!f->mapped_) continue;
    std::shared_ptr<const MappedFile> p = Projected(*f, group, plan_version);
    if (p->metrics.empty()) continue;
    MmvSource* source = snap.mapped ? f->source_.get() : nullptr;
    DirWatch* watch = source != nullptr && f->dir_ != nullptr ? options_.watch : nullptr;
    parts->push_back({std::move(p), snap.image, source, watch});
    f->recorded_ = true;
  }
}

std::vector<OfferedMetric> MmvFileSet::Offered(const Live& live) const {
  std::vector<OfferedMetric> out;
  for (const auto& [f, snap] : live) {
    if (f->mapped_) Offer(*f->mapped_, &out);
  }
  return out;
}

std::vector<OfferedMetric> MmvFileSet::Survey(const MappingOptions& mapping) {
  bool need_mark = false;
  const Live& live = Scan(/*retake=*/false, /*mapped_values=*/false, &need_mark);
  MmvMapper mapper(mapping);
  std::vector<std::pair<std::string, int32_t>> clusters;
  for (const auto& [f, snap] : live) clusters.push_back({f->name(), snap.file->header.cluster});
  mapper.ReserveClusters(clusters);
  std::vector<OfferedMetric> out;
  for (const auto& [f, snap] : live) {
    const std::string& name = f->name();
    absl::StatusOr<MappedFile> mapped = mapper.Map(name, snap.file);
    if (!mapped.ok()) {
      Problem(*f, name, std::string(mapped.status().message()));
      continue;
    }
    Offer(*mapped, &out);
  }
  return out;
}

size_t MmvFileSet::metrics() const {
  size_t n = 0;
  for (const auto& [name, f] : files_) {
    if (f.mapped_) n += f.mapped_->metrics.size();
  }
  return n;
}

bool MmvFileSet::SharesCluster(uint32_t cluster) const {
  // Asked of every file described: the set is made once per change of the
  // mappings, not a walk of every file per question (at 1,000 files, 11% of
  // a start-up).
  if (shared_clusters_of_ != mappings_changed_) {
    shared_clusters_.clear();
    for (const auto& [name, f] : files_) {
      if (f.mapped_ && f.mapped_->shares_cluster) shared_clusters_.insert(f.mapped_->cluster);
    }
    shared_clusters_of_ = mappings_changed_;
  }
  return shared_clusters_.contains(cluster);
}

format::InDom MmvFileSet::SharedInDom(uint32_t id) const {
  format::InDom out;
  out.indom = id;
  absl::flat_hash_set<int32_t> have;
  for (const auto& [name, f] : files_) {
    if (!f.mapped_) continue;
    for (const format::InDom& d : f.mapped_->indoms) {
      if (d.indom != id) continue;
      for (const format::InDomInstance& i : d.instances) {
        if (have.insert(i.inst).second) out.instances.push_back(i);
      }
    }
  }
  return out;
}

format::LabelRecord MmvFileSet::SharedLabels(const format::LabelRecord& r) const {
  // Every file's sets for this identifier, by instance, in file order: the
  // order in which pmdammv adds them (__pmAddLabels, later names winning).
  std::map<int32_t, std::vector<format::LabelSet>> sets;
  for (const auto& [name, f] : files_) {
    if (!f.mapped_) continue;
    for (const format::LabelRecord& other : f.mapped_->labels) {
      if (other.type != r.type || other.ident != r.ident) continue;
      for (const format::LabelSet& set : other.sets) sets[set.inst].push_back(set);
    }
  }
  format::LabelRecord out = r;
  out.sets.clear();
  for (const auto& [inst, per_file] : sets) {
    absl::StatusOr<format::LabelSet> set = format::MergeLabelSets(inst, per_file);
    if (!set.ok()) return r;  // each file's sets were valid: keep this file's
    out.sets.push_back(std::move(*set));
  }
  return out;
}

}  // namespace mmvlog::archiver

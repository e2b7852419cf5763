#include "archiver/record/recorder.h"

#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "archiver/store/archive_reader.h"
#include "archiver/record/prologue.h"
#include "format/archive_format.h"
#include "format/archive_types.h"
#include "format/label_merge.h"

namespace mmvlog::archiver {
namespace {

using format::Timestamp;

bool ProcessAlive(int32_t pid) {
  return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

int64_t UnixMicros(absl::Time t) { return absl::ToUnixMicros(t); }

}  // namespace

Recorder::Recorder(RecorderOptions options, LogFunction log)
    : options_(std::move(options)), log_(std::move(log)) {}

Recorder::~Recorder() {
  if (writer_ != nullptr) (void)writer_->Close();
}

uint64_t Recorder::bytes_written() const {
  return closed_archive_bytes_ + (writer_ ? writer_->total_bytes() : 0);
}

size_t Recorder::metrics() const {
  size_t n = 0;
  for (const auto& [name, s] : files_) {
    if (s.mapped) n += s.mapped->metrics.size();
  }
  return n;
}

std::map<std::string, std::string> Recorder::ListFiles(bool unchanged) {
  std::map<std::string, std::string> out;
  if (!options_.mmv_dir.empty()) {
    if (dir_ == nullptr) dir_ = std::make_unique<DirListing>(options_.mmv_dir);
    if (absl::Status s = dir_->Refresh(unchanged); !s.ok()) {
      std::string err(s.message());
      if (err != last_dir_error_) log_(LogLevel::kWarning, err);
      last_dir_error_ = err;
    } else {
      last_dir_error_.clear();
      out = dir_->files();
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
  for (const std::string& path : options_.files) {
    const size_t slash = path.rfind('/');
    out[slash == std::string::npos ? path : path.substr(slash + 1)] = path;
  }
  return out;
}

void Recorder::Problem(FileState& s, const std::string& name, const std::string& what) {
  if (what != s.last_error) {
    log_(LogLevel::kWarning, absl::StrCat(name, ": ", what, "; not recorded until it recovers"));
  }
  s.last_error = what;
}

absl::Status Recorder::OpenArchive(absl::Time now) {
  std::string base = options_.archive_base;
  if (!archives_.empty() && !next_base_explicit_) {
    // "<base>-2", "-3", ...: the first that does not exist yet (a resumed
    // recorder may find earlier ones).
    struct stat st;
    for (size_t n = archives_.size() + 1;; ++n) {
      base = absl::StrCat(options_.archive_base, "-", n);
      if (::stat((base + ".meta").c_str(), &st) != 0) break;
    }
  }
  const bool keep_pmids = next_base_explicit_ && mapper_ != nullptr;
  current_base_ = base;
  ArchiveOptions opts = options_.archive;
  opts.hostname =
      options_.label_hostname.empty() ? options_.host.hostname : options_.label_hostname;
  opts.timezone = options_.host.timezone;
  opts.zoneinfo = options_.host.zoneinfo;
  // The archive starts with the prologue, a microsecond before the first
  // sample (6.0.3's pmlogger writes it one fetch before; 7.x's at its first
  // fetch, stamped with it): the context labels, stamped at the first
  // sample, are then not in force at the archive's start, which gives
  // `pmseries --load` (6.0.3 and 7.2) pmlogger's source and series
  // (tests/pcp/series_identity_test).
  const Timestamp start = format::ToTimestamp(now - absl::Microseconds(1));
  struct stat st;
  if (archives_.empty() && options_.resume && ::stat((base + ".meta").c_str(), &st) == 0) {
    absl::StatusOr<std::unique_ptr<ArchiveWriter>> w = ArchiveWriter::Resume(base, opts);
    if (!w.ok()) return w.status();
      writer_ = std::move(*w);
    ++writer_serial_;
    next_base_explicit_ = false;
    mapper_ = std::make_unique<MmvMapper>(options_.mapping);
    absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(base);
    if (r.ok()) mapper_->Seed((*r)->meta().descs);
    archives_.push_back(base);
    ++stats_.archives;
    have_result_ = writer_->has_last();
    last_stamp_ = writer_->last_stamp();
    gap_ = have_result_;
    resumed_archive_ = true;
    prologue_volume_ = -1;
    log_(LogLevel::kInfo, absl::StrCat("continuing archive ", base, " in volume ",
                                       writer_->volume()));
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<ArchiveWriter>> w = ArchiveWriter::Create(base, opts, start);
  if (!w.ok()) return w.status();
  writer_ = std::move(*w);
  ++writer_serial_;
  next_base_explicit_ = false;
  resumed_archive_ = false;
  if (!keep_pmids) mapper_ = std::make_unique<MmvMapper>(options_.mapping);
  archives_.push_back(base);
  ++stats_.archives;
  have_result_ = false;
  context_labelled_ = false;
  const Timestamp first_sample = format::ToTimestamp(now);
  if (absl::Status s = WriteLogue(start, &first_sample); !s.ok()) return s;
  prologue_volume_ = writer_->volume();
  if (options_.live) live_ = LiveState::kCreated;
  log_(LogLevel::kInfo, absl::StrCat("recording to archive ", base));
  return absl::OkStatus();
}

absl::Status Recorder::WriteLogue(Timestamp when, const Timestamp* labels_at) {
  char cwd[4096];
  std::string path = current_base_;
  if (!path.starts_with("/") && ::getcwd(cwd, sizeof(cwd)) != nullptr) {
    path = absl::StrCat(cwd, "/", path);
  }
  Prologue p = MakePrologue(when, static_cast<int32_t>(::getpid()), path);
  if (labels_at != nullptr) {
    // A new archive's .meta opens with the context labels ahead of every
    // descriptor: pmproxy 7, streaming a pushed archive, names a metric's
    // series when it reads its descriptor, from the context labels read by
    // then (a descriptor before them got no series). They are stamped at
    // the first sample, as pmlogger stamps them, so the prologue's instance
    // domain (stamped at the prologue) comes first: metadata stays in time
    // order, as pmlogcheck 7 wants.
    if (absl::Status s = writer_->AddInDom(p.indom); !s.ok()) return s;
    if (absl::Status s = WriteContextLabels(*labels_at); !s.ok()) return s;
  }
  // pmlogger's order: the first descriptor, the instance domain, the rest.
  for (size_t i = 0; i < p.descs.size(); ++i) {
    if (absl::Status s = writer_->AddDesc(p.descs[i]); !s.ok()) return s;
    if (i > 0) continue;
    if (absl::Status s = writer_->AddInDom(p.indom); !s.ok()) return s;
  }
  return writer_->AppendResult(p.result);
}

absl::Status Recorder::WriteContextLabels(Timestamp when) {
  // The context and domain labels pmcd would supply, stamped at the first
  // sample as pmlogger stamps them (pmseries --load takes those in force
  // at the archive's start: none, for pmlogger's archives and ours).
  // userid and groupid are the recorder's, OPTIONAL as in PCP.
  const std::string context = options_.host.ContextLabels(::getuid(), ::getgid());
  for (const auto& [type, ident, json] :
       std::vector<std::tuple<uint32_t, uint32_t, std::string>>{
           {format::kLabelContext, static_cast<uint32_t>(format::kInNull), context},
           {format::kLabelDomain, options_.mapping.domain, "{\"agent\":\"mmv\"}"}}) {
    absl::StatusOr<format::LabelSet> set =
        format::MakeLabelSet(format::kInNull, json, static_cast<uint8_t>(type));
    if (!set.ok()) return set.status();
    for (format::LabelEntry& e : set->labels) {
      const std::string name = set->json.substr(e.name_offset, e.name_length);
      if (name == "userid" || name == "groupid") e.flags |= format::kLabelOptional;
    }
    format::LabelRecord r;
    r.timestamp = when;
    r.type = type;
    r.ident = ident;
    r.sets.push_back(std::move(*set));
    if (absl::Status s = writer_->AddLabels(r); !s.ok()) return s;
  }
  context_labelled_ = true;
  return absl::OkStatus();
}

absl::Status Recorder::WriteMetadata(FileState& st, Timestamp when) {
  const MappedFile& f = *st.mapped;
  const LogPlan* plan = options_.plan.get();
  const bool shared = f.shares_cluster || SharesCluster(f.cluster);
  // In pmlogger's order, metric by metric (cb.c): the descriptor, then the
  // label sets not yet written (context and domain when the archive did
  // not start them: a continued one; indom, cluster, item, instances), the
  // help text, then the instance
  // domain. The order matters to pmproxy, which names an instance's series
  // by the labels it has read when it reads the instance domain.
  auto labels_of = [&](uint32_t type, uint32_t ident) -> absl::Status {
    for (const format::LabelRecord& l : f.labels) {
      if (l.type != type || l.ident != ident) continue;
      format::LabelRecord r = shared ? SharedLabels(l) : l;
      r.timestamp = when;
      if (absl::Status s = writer_->AddLabels(r); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  auto texts_of = [&](uint32_t kind, uint32_t ident) -> absl::Status {
    for (const format::HelpText& t : f.texts) {
      if ((t.type & kind) == 0 || t.ident != ident) continue;
      if (absl::Status s = writer_->AddHelpText(t); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  for (const MappedMetric& m : f.metrics) {
    const uint32_t pmid = m.desc.pmid;
    if (st.described.contains(pmid) || (plan != nullptr && !plan->Logs(pmid))) continue;
    if (absl::Status s = writer_->AddDesc(m.desc); !s.ok()) return s;
    st.described.insert(pmid);
    if (!context_labelled_) {
      if (absl::Status s = WriteContextLabels(when); !s.ok()) return s;
    }
    const uint32_t indom = m.desc.indom;
    const bool new_indom = indom != format::kIndomNull && !st.described_indoms.contains(indom);
    if (new_indom) {
      if (absl::Status s = labels_of(format::kLabelIndom, indom); !s.ok()) return s;
    }
    if (!st.described_cluster) {
      if (absl::Status s = labels_of(format::kLabelCluster, format::PmidBuild(options_.mapping.domain, f.cluster, 0)); !s.ok()) return s;
      st.described_cluster = true;
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
      if (shared) d = SharedInDom(indom);
      d.timestamp = when;
      if (absl::Status s = writer_->AddInDom(d); !s.ok()) return s;
    }
    st.described_indoms.insert(indom);
  }
  return absl::OkStatus();
}

bool Recorder::SharesCluster(uint32_t cluster) const {
  for (const auto& [name, st] : files_) {
    if (st.mapped && st.mapped->shares_cluster && st.mapped->cluster == cluster) return true;
  }
  return false;
}

format::InDom Recorder::SharedInDom(uint32_t id) const {
  format::InDom out;
  out.indom = id;
  absl::flat_hash_set<int32_t> have;
  for (const auto& [name, st] : files_) {
    if (!st.mapped) continue;
    for (const format::InDom& d : st.mapped->indoms) {
      if (d.indom != id) continue;
      for (const format::InDomInstance& i : d.instances) {
        if (have.insert(i.inst).second) out.instances.push_back(i);
      }
    }
  }
  return out;
}

format::LabelRecord Recorder::SharedLabels(const format::LabelRecord& r) const {
  // Every file's sets for this identifier, by instance, in file order: the
  // order in which pmdammv adds them (__pmAddLabels, later names winning).
  std::map<int32_t, std::vector<format::LabelSet>> sets;
  for (const auto& [name, st] : files_) {
    if (!st.mapped) continue;
    for (const format::LabelRecord& other : st.mapped->labels) {
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

absl::Status Recorder::Rotate(absl::Time now, const std::string& why) {
  log_(LogLevel::kWarning, absl::StrCat(why, "; one archive cannot hold both, so "
                                        "recording continues in a new archive"));
  if (absl::Status s = Close(); !s.ok()) return s;
  mapper_.reset();  // the conflict is over a PMID: fresh ones
  if (absl::Status s = OpenArchive(now); !s.ok()) return s;
  for (auto& [name, st] : files_) {
    st.mapped.reset();  // remapped (fresh PMIDs) below
    st.recorded = false;
  }
  return absl::OkStatus();
}

void Recorder::Broken(const absl::Status& why) {
  // Once per outage: a resume that fails again at its first write (a disk
  // still full) is the same outage.
  if (phase_ == Phase::kRecording) {
    log_(LogLevel::kError, absl::StrCat(why.message(), "; samples are dropped until the archive "
                                        "can be written again"));
  }
  phase_ = Phase::kOutage;
  closed_archive_bytes_ += writer_->total_bytes();
  (void)writer_->Close();
  CountUnwritten();
  writer_.reset();
}

void Recorder::CountUnwritten() {
  // Held results that never reached the archive were counted as written.
  const uint64_t lost = writer_->unwritten_results();
  stats_.dropped += lost;
  stats_.samples -= std::min(stats_.samples, lost);
  stats_.results -= std::min(stats_.results, lost);
}

bool Recorder::TryResume() {
  ArchiveOptions opts = options_.archive;
  absl::StatusOr<std::unique_ptr<ArchiveWriter>> w = ArchiveWriter::Resume(archives_.back(), opts);
  if (!w.ok()) return false;
  writer_ = std::move(*w);
  ++writer_serial_;
  // The failed writer may have lost any part of a file's metadata: describe
  // every file again (the resumed writer skips what the archive holds).
  context_labelled_ = false;
  for (auto& [name, st] : files_) {
    st.described.clear();
    st.described_indoms.clear();
    st.described_cluster = false;
    st.described_plan = UINT64_MAX;
  }
  closed_archive_bytes_ -= std::min(closed_archive_bytes_, writer_->total_bytes());
  phase_ = Phase::kResuming;
  gap_ = true;
  return true;
}

void Recorder::OutageOver() {
  if (phase_ == Phase::kRecording) return;
  phase_ = Phase::kRecording;
  log_(LogLevel::kInfo, absl::StrCat("archive ", archives_.back(), " writable again; continuing in volume ",
                                     writer_->volume(), " after ", stats_.dropped, " dropped samples"));
}

absl::Status Recorder::Sample(absl::Time now) { return Tick(now, nullptr); }

// The most a live archive holds (LiveStep).
constexpr size_t kLiveHoldMax = 2 << 20;

absl::Time Recorder::NextLiveStep() const {
  // kCreated: as soon as the tick that created the archive is written.
  return live_ == LiveState::kNone ? absl::InfiniteFuture() : live_at_;
}

absl::Status Recorder::LiveStep(absl::Time now) {
  if (writer_ == nullptr || live_ == LiveState::kNone) {
    live_ = LiveState::kNone;
    return absl::OkStatus();
  }
  auto release = [&] {
    live_ = LiveState::kNone;
    live_at_ = absl::InfiniteFuture();
    if (absl::Status s = writer_->ReleaseRecords(); !s.ok()) Broken(s);
  };
  // A fast, wide recording is not held long: no more than 2 MB (writing
  // more at once can make a 10 ms tick late; pmproxy could not take such a
  // rate anyway).
  if (writer_->holding_records() && writer_->held_bytes() > kLiveHoldMax) {
    release();
    return absl::OkStatus();
  }
  if (live_ == LiveState::kCreated) {
    if (!have_result_) return absl::OkStatus();
    // The first result stays written: as the archive's last record it is
    // read even by a context opened at the end. The next ones wait.
    writer_->HoldRecords(kLiveHoldMax);
    // The second after the one in which pmproxy may still be handling the
    // files' creation and first writes (50 ms for its own delay).
    const absl::Time second = absl::FromUnixSeconds(absl::ToUnixSeconds(now + absl::Milliseconds(50)));
    live_at_ = second + absl::Seconds(1) + absl::Milliseconds(20);
    live_ = LiveState::kPoke;
  }
  if (live_ == LiveState::kPoke && now >= live_at_) {
    if (absl::Status s = writer_->TouchMeta(); !s.ok()) {
      log_(LogLevel::kWarning, std::string(s.message()));
    }
    live_at_ = now + absl::Milliseconds(200);
    live_ = LiveState::kRelease;
  }
  if (live_ == LiveState::kRelease && now >= live_at_) release();
  return absl::OkStatus();
}

void Recorder::FinishLive() {
  if (!options_.live || current_base_.empty()) return;
  const absl::Time now = absl::Now();
  absl::SleepFor(absl::FromUnixSeconds(absl::ToUnixSeconds(now)) + absl::Seconds(1) +
                 absl::Milliseconds(20) - now);
  (void)TouchArchive(current_base_);
}

absl::Status Recorder::SampleGroups(absl::Time now, const std::vector<size_t>& group_ids) {
  return Tick(now, &group_ids);
}

absl::Status Recorder::Tick(absl::Time now, const std::vector<size_t>* group_ids) {
  if (absl::Status s = LiveStep(now); !s.ok()) return s;
  if (!ContinueAfterOutage()) {
    ++stats_.dropped;
    return absl::OkStatus();
  }
  bool need_mark = false;
  Timestamp stamp = Stamp(now, &need_mark);
  Live live = ScanFiles(&need_mark);
  if (std::optional<absl::Status> done = EnsureArchive(now, live)) return *done;
  need_mark = need_mark || std::exchange(gap_, false);
  if (std::optional<absl::Status> done = MapChanged(now, live, &need_mark, group_ids)) {
    return *done;
  }
  ResolvePlan(live);
  if (std::optional<absl::Status> done = DescribeNew(now, live, stamp, group_ids)) return *done;
  if (need_mark && have_result_ && !MarkGap(&stamp)) return absl::OkStatus();
  absl::Status s = WriteResults(now, live, stamp, group_ids);
  if (std::exchange(torn_, false) && !copy_values_) {
    // Nothing was written: the same tick again, every file copied (the
    // copies are checked as they are made, and retried by MmvSource).
    copy_values_ = true;
    ++stats_.retaken;
    s = Tick(now, group_ids);
    copy_values_ = false;
  }
  return s;
}

bool Recorder::ContinueAfterOutage() {
  // The writer closed after a write error: each tick tries to continue the
  // archive (space freed); until then samples are dropped.
  if (phase_ != Phase::kOutage || writer_ != nullptr || archives_.empty()) return true;
  return TryResume();
}

Timestamp Recorder::Stamp(absl::Time now, bool* need_mark) {
  Timestamp stamp = format::ToTimestamp(now);
  if (!have_result_ || last_stamp_ < stamp) {
    clock_behind_ = false;
    return stamp;
  }
  // The wall clock stepped back: keep the archive in time order (each
  // sample 1 us after the last until the clock catches up) and tell rate
  // tools once that there is a discontinuity. Within a millisecond it is
  // only the groups of the last tick, stamped a microsecond apart.
  const absl::Time last = format::ToAbslTime(last_stamp_);
  if (!clock_behind_ && now < last - absl::Milliseconds(1)) {
    log_(LogLevel::kWarning, "wall clock stepped backwards; marking the gap");
    *need_mark = true;
    clock_behind_ = true;
  }
  return format::ToTimestamp(last + absl::Microseconds(1));
}

Recorder::Live Recorder::ScanFiles(bool* need_mark) {
  // Asked once a tick (it consumes what the watch saw); a tick retaken from
  // copies looks at everything.
  const bool unchanged = !copy_values_ && dir_ != nullptr &&
                         options_.mmv_dir_changed != nullptr && !options_.mmv_dir_changed();
  std::map<std::string, std::string> listed = ListFiles(unchanged);
  empty_ = listed.empty();
  for (auto it = files_.begin(); it != files_.end();) {
    if (!listed.contains(it->first)) {
      if (it->second.mapped) {
        log_(LogLevel::kInfo, absl::StrCat(it->first, ": file is gone"));
        *need_mark = true;
      }
      it = files_.erase(it);
    } else {
      ++it;
    }
  }
  Live live;
  for (const auto& [name, path] : listed) {
    FileState& st = files_[name];
    // Files of the directory are opened relative to it (never through a
    // symbolic link); files named explicitly by their path.
    std::shared_ptr<const FileDescriptor> dir;
    if (dir_ != nullptr) {
      auto it = dir_->files().find(name);
      if (it != dir_->files().end() && it->second == path) dir = dir_->dir_fd();
    }
    if (st.source == nullptr || st.path != path || st.dir != dir) {
      st.path = path;
      st.dir = dir;
      st.source = dir != nullptr ? std::make_unique<MmvSource>(dir, name, path)
                                 : std::make_unique<MmvSource>(path);
    }
    // Values are read in place for a file whose layout is fixed (the
    // record template's fast path) when the tick writes one result; a torn
    // read retries the tick from copies (WriteResult).
    const bool in_place = !copy_values_ && options_.plan == nullptr && st.mapped != nullptr &&
                          st.mapped->fixed_layout && !st.mapped->shares_cluster;
    absl::StatusOr<MmvSnapshot> snap =
        st.source->Snapshot(in_place ? MmvSource::kMapped : MmvSource::kCopied,
                            /*same_entry=*/unchanged && dir != nullptr);
    bool ok = snap.ok();
    if (!ok) {
      Problem(st, name, std::string(snap.status().message()));
    } else if ((snap->file->header.flags & format::kMmvFlagProcess) &&
               !ProcessAlive(snap->file->header.process)) {
      Problem(st, name, absl::StrCat("process ", snap->file->header.process, " has exited"));
      ok = false;
    }
    if (!ok) {
      if (st.mapped) *need_mark = true;
      st.mapped.reset();
      continue;
    }
    if (!st.last_error.empty()) {
      log_(LogLevel::kInfo, absl::StrCat(name, ": readable again"));
      st.last_error.clear();
    }
    live.push_back({&st, std::move(*snap)});
  }
  return live;
}

std::optional<absl::Status> Recorder::EnsureArchive(absl::Time now, const Live& live) {
  if (writer_ != nullptr) return std::nullopt;
  // The archive is created with the first sample that has a file to
  // record: an archive without any metric is one PCP cannot open.
  if (live.empty()) return absl::OkStatus();
  absl::Status s = OpenArchive(now);
  if (s.ok()) {
    if (phase_ == Phase::kOutage) phase_ = Phase::kResuming;
    return std::nullopt;
  }
  // A full disk (ENOSPC, EDQUOT, EFBIG), a device error (EIO) or a
  // transient one is waited out; a missing directory, a permission or an
  // existing archive is a mistake to report, not to wait for.
  if (absl::IsNotFound(s) || absl::IsPermissionDenied(s) || absl::IsAlreadyExists(s) ||
      absl::IsInvalidArgument(s) || absl::IsFailedPrecondition(s)) {
    return s;
  }
  // As for a write error: report once, drop the sample, try again next time.
  if (phase_ == Phase::kRecording) {
    log_(LogLevel::kError, absl::StrCat(s.message(), "; samples are dropped until the archive "
                                        "can be written"));
  }
  phase_ = Phase::kOutage;
  ++stats_.dropped;
  return absl::OkStatus();
}

std::optional<absl::Status> Recorder::MapChanged(absl::Time now, Live& live, bool* need_mark,
                                                 const std::vector<size_t>* group_ids) {
  std::vector<std::pair<std::string, int32_t>> clusters;
  for (const auto& [st, snap] : live) {
    clusters.push_back({st->path.substr(st->path.rfind('/') + 1), snap.file->header.cluster});
  }
  mapper_->ReserveClusters(clusters);
  for (auto& [st, snap] : live) {
    if (st->mapped && !snap.reloaded && st->mapped->mmv == snap.file) continue;
    const uint64_t generation = snap.file->header.generation1;
    // Re-read while recorded: a new generation, or a new file (inode, size)
    // with the same one. Either way the application restarted.
    if (st->mapped && (generation != st->generation || snap.reloaded)) *need_mark = true;
    if (!st->mapped && st->recorded) *need_mark = true;  // came back
    const std::string file_name = st->path.substr(st->path.rfind('/') + 1);
    absl::StatusOr<MappedFile> mapped = mapper_->Map(file_name, snap.file);
    if (absl::IsAlreadyExists(mapped.status()) && have_result_) {
      // A name would change PMID: continue in a new archive.
      if (absl::Status r = Rotate(now, std::string(mapped.status().message())); !r.ok()) return r;
      return Tick(now, group_ids);
    }
    if (!mapped.ok()) {
      Problem(*st, file_name, std::string(mapped.status().message()));
      st->mapped.reset();
      continue;
    }
    for (const std::string& w : mapped->warnings) {
      log_(LogLevel::kWarning, absl::StrCat(file_name, ": ", w));
    }
    st->mapped = std::make_shared<const MappedFile>(std::move(*mapped));
    st->generation = generation;
    st->described.clear();
    st->described_indoms.clear();
    st->described_cluster = false;
    st->described_plan = UINT64_MAX;
    st->projected.clear();
    ++mapping_serial_;
  }
  return std::nullopt;
}

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

std::vector<OfferedMetric> Recorder::Offered(const Live& live) const {
  std::vector<OfferedMetric> out;
  for (const auto& [st, snap] : live) {
    if (st->mapped) Offer(*st->mapped, &out);
  }
  return out;
}

std::vector<OfferedMetric> Recorder::Survey() {
  bool need_mark = false;
  Live live = ScanFiles(&need_mark);
  MmvMapper mapper(options_.mapping);
  std::vector<std::pair<std::string, int32_t>> clusters;
  for (const auto& [st, snap] : live) {
    clusters.push_back({st->path.substr(st->path.rfind('/') + 1), snap.file->header.cluster});
  }
  mapper.ReserveClusters(clusters);
  std::vector<OfferedMetric> out;
  for (const auto& [st, snap] : live) {
    const std::string name = st->path.substr(st->path.rfind('/') + 1);
    absl::StatusOr<MappedFile> mapped = mapper.Map(name, snap.file);
    if (!mapped.ok()) {
      Problem(*st, name, std::string(mapped.status().message()));
      continue;
    }
    Offer(*mapped, &out);
  }
  return out;
}

void Recorder::SetPlan(std::shared_ptr<LogPlan> plan) {
  options_.plan = std::move(plan);
  plan_started_ = false;
}

void Recorder::ResolvePlan(const Live& live) {
  LogPlan* plan = options_.plan.get();
  if (plan == nullptr || (plan_started_ && plan_mappings_ == mapping_serial_)) return;
  plan_mappings_ = mapping_serial_;
  if (!plan_started_) {
    plan_started_ = true;
    for (const std::string& w : plan->Start(Offered(live))) log_(LogLevel::kWarning, w);
    ++plan_version_;
  } else if (plan->Update(Offered(live))) {
    ++plan_version_;
  }
}

std::optional<absl::Status> Recorder::DescribeNew(absl::Time now, Live& live, Timestamp stamp,
                                                  const std::vector<size_t>* group_ids) {
  for (auto& [st, snap] : live) {
    if (!st->mapped || st->described_plan == plan_version_) continue;
    const std::string file_name = st->path.substr(st->path.rfind('/') + 1);
    absl::Status s = WriteMetadata(*st, stamp);
    if (absl::IsAlreadyExists(s) && writer_->results_in_volume() + writer_->volume() > 0) {
      // A PMID would change meaning: continue in a new archive (whose fresh
      // archive cannot conflict, so this happens at most once per sample).
      if (absl::Status r = Rotate(now, std::string(s.message())); !r.ok()) return r;
      return Tick(now, group_ids);
    }
    if (absl::IsInvalidArgument(s)) {
      // This file's metadata cannot be put in an archive (nothing of the
      // record was written): the file is skipped, the others recorded.
      Problem(*st, file_name, std::string(s.message()));
      st->mapped.reset();
      continue;
    }
    if (!s.ok()) {
      Broken(s);
      ++stats_.dropped;
      return absl::OkStatus();
    }
    st->described_plan = plan_version_;
  }
  return std::nullopt;
}

bool Recorder::MarkGap(Timestamp* stamp) {
  Timestamp mark = last_stamp_;
  mark.nsec += 1'000'000;  // pmlogger's convention: last record + 1 ms
  if (mark.nsec >= 1'000'000'000) {
    mark.nsec -= 1'000'000'000;
    ++mark.sec;
  }
  if (*stamp < mark) mark = *stamp;
  if (absl::Status s = writer_->AppendMark(mark); !s.ok()) {
    Broken(s);
    ++stats_.dropped;
    gap_ = true;
    return false;
  }
  ++stats_.marks;
  last_stamp_ = mark;
  // The result after a mark comes strictly after it.
  if (!(mark < *stamp)) {
    *stamp = format::ToTimestamp(format::ToAbslTime(mark) + absl::Microseconds(1));
  }
  return true;
}

const GroupSelection* Recorder::Group(size_t id) const {
  for (const GroupSelection& g : options_.plan->groups()) {
    if (g.id == id) return &g;
  }
  return nullptr;
}

std::shared_ptr<const MappedFile> Recorder::Projected(FileState& st,
                                                      const GroupSelection* group) {
  if (group == nullptr) return st.mapped;
  auto& [version, cached] = st.projected[group->id];
  if (cached != nullptr && version == plan_version_) return cached;
  const MappedFile& f = *st.mapped;
  MappedFile p;
  p.name = f.name;
  p.mmv = f.mmv;
  p.cluster = f.cluster;
  p.shares_cluster = f.shares_cluster;
  p.sentinel = f.sentinel;
  p.fixed_layout = f.fixed_layout;
  for (const MappedMetric& m : f.metrics) {
    auto it = group->metrics.find(m.desc.pmid);
    if (it == group->metrics.end()) continue;
    if (it->second.all) {
      p.metrics.push_back(m);
      continue;
    }
    MappedMetric cut;
    cut.desc = m.desc;
    cut.mmv_type = m.mmv_type;
    const bool offsets = m.offsets.size() == m.values.size();
    for (size_t i = 0; i < m.values.size(); ++i) {
      const format::MmvValueEntry& e = f.mmv->values[m.values[i]];
      if (!it->second.Takes(e.instance_index < 0 ? format::kInNull : e.instance)) continue;
      cut.values.push_back(m.values[i]);
      if (offsets) cut.offsets.push_back(m.offsets[i]);
    }
    if (!cut.values.empty()) p.metrics.push_back(std::move(cut));
  }
  version = plan_version_;
  cached = std::make_shared<const MappedFile>(std::move(p));
  return cached;
}

absl::Status Recorder::WriteResults(absl::Time now, const Live& live, Timestamp stamp,
                                    const std::vector<size_t>* group_ids) {
  // -v counts samples: not the prologue.
  const uint64_t in_volume =
      writer_->results_in_volume() - (writer_->volume() == prologue_volume_ ? 1 : 0);
  if (options_.volume_samples > 0 && in_volume >= options_.volume_samples) {
    if (absl::Status s = writer_->NewVolume(); !s.ok()) {
      Broken(s);
      ++stats_.dropped;
      return absl::OkStatus();
    }
  }
  // The groups of this tick, in the plan's order; without a plan, one.
  std::vector<const GroupSelection*> groups;
  if (options_.plan == nullptr) {
    groups.push_back(nullptr);
  } else {
    for (const GroupSelection& g : options_.plan->groups()) {
      if (group_ids == nullptr ||
          std::find(group_ids->begin(), group_ids->end(), g.id) != group_ids->end()) {
        groups.push_back(&g);
      }
    }
  }
  const int64_t now_usec = UnixMicros(now);
  size_t values = 0;
  bool wrote = false;
  for (const GroupSelection* g : groups) {
    Output& out = outputs_[g == nullptr ? SIZE_MAX : g->id];
    absl::StatusOr<bool> written = WriteResult(out, g, live, stamp, now_usec, &values);
    if (!written.ok()) {
      if (absl::IsFailedPrecondition(written.status()) ||
          absl::IsInvalidArgument(written.status())) {
        return written.status();  // a bug
      }
      Broken(written.status());
      ++stats_.dropped;
      return absl::OkStatus();
    }
    if (torn_) return absl::OkStatus();  // nothing written; Tick retries
    if (!*written) continue;
    wrote = true;
    ++stats_.results;
    last_stamp_ = stamp;
    have_result_ = true;
    // One result per group, each after the last: pmlogger's groups are
    // fetched one after the other.
    stamp = format::ToTimestamp(format::ToAbslTime(stamp) + absl::Microseconds(1));
  }
  OutageOver();
  if (!wrote) return absl::OkStatus();
  stats_.values += values;
  ++stats_.samples;
  return absl::OkStatus();
}

absl::StatusOr<bool> Recorder::WriteResult(Output& out, const GroupSelection* group,
                                           const Live& live, Timestamp stamp, int64_t now_usec,
                                           size_t* values) {
  parts_.clear();
  for (const auto& [st, snap] : live) {
    if (!st->mapped) continue;
    std::shared_ptr<const MappedFile> p = Projected(*st, group);
    if (p->metrics.empty()) continue;
    parts_.push_back({std::move(p), snap.image, snap.mapped ? st->source.get() : nullptr});
    st->recorded = true;
  }
  // Nothing to record: a result without metrics would read as a <mark> to
  // every PCP tool.
  if (parts_.empty()) return false;
  if (!TemplateFits(out)) MakeTemplate(out);
  absl::Status written;
  if (out.tmpl.has_value()) {
    // The fast path: the same files as the last time, so the same record
    // layout; only the timestamp and the values change.
    out.tmpl->SetTimestamp(stamp);
    size_t sets = 0;
    for (const Part& part : parts_) {
      if (part.source == nullptr) {
        sets = StoreValues(*part.file, part.image, &*out.tmpl, sets);
        continue;
      }
      size_t next = sets;
      if (!part.source->ReadMapped([&](std::span<const uint8_t> bytes) {
            next = StoreValues(*part.file, bytes, &*out.tmpl, sets);
          }) ||
          !part.source->StillCurrent()) {
        torn_ = true;
        return false;
      }
      sets = next;
    }
    written = writer_->AppendEncodedResult(stamp, out.tmpl->record());
    if (written.ok()) *values += out.tmpl->values();
  } else {
    result_.timestamp = stamp;
    size_t sets = 0;
    bool shared = false;
    for (Part& part : parts_) {
      if (part.source != nullptr) {
        absl::StatusOr<std::span<const uint8_t>> copy = part.source->CopyMapped();
        if (!copy.ok()) {
          torn_ = true;
          return false;
        }
        part.image = *copy;
      }
      sets = FillValueSets(*part.file, part.image, now_usec, &result_, sets);
      shared |= part.file->shares_cluster;
    }
    if (shared) sets = MergeSharedSets(&result_, sets);
    if (result_.sets.size() > sets) result_.sets.resize(sets);
    if (result_.sets.empty()) return false;
    written = writer_->AppendResult(result_);
    if (written.ok()) {
      for (const format::ValueSet& set : result_.sets) *values += set.values.size();
    }
  }
  if (!written.ok()) {
    out.tmpl.reset();
    return written;
  }
  return true;
}

void Recorder::MakeTemplate(Output& out) {
  out.tmpl.reset();
  out.files.clear();
  std::vector<std::vector<int32_t>> instances;  // SetLayout points into these
  for (const auto& [f, image, source] : parts_) {
    // Files sharing a cluster give one set per PMID between them: merged
    // sample by sample, so encoded whole.
    if (!f->fixed_layout || f->shares_cluster || image.size() < f->mmv->size) {
      out.files.clear();
      return;  // encoded whole, sample by sample
    }
    out.files.push_back(f);
    for (const MappedMetric& m : f->metrics) instances.push_back(Instances(*f, m));
  }
  std::vector<format::SetLayout> layout;
  size_t i = 0;
  for (const auto& f : out.files) {
    for (const MappedMetric& m : f->metrics) {
      layout.push_back({m.desc.pmid, m.desc.type, 0, instances[i++]});
    }
  }
  // No metric at all: such a result would read as a <mark>.
  if (layout.empty()) {
    out.files.clear();
    return;
  }
  out.tmpl = format::ResultTemplate::FromLayout(writer_->version(), {}, layout);
  out.writer = writer_serial_;
  if (!out.tmpl.has_value()) out.files.clear();
}

bool Recorder::TemplateFits(const Output& out) const {
  if (!out.tmpl.has_value() || out.writer != writer_serial_ || out.files.size() != parts_.size()) {
    return false;
  }
  for (size_t i = 0; i < parts_.size(); ++i) {
    // The same MappedFile objects (held by out.files, so no other mapping
    // can have their address) and a whole image of each.
    if (out.files[i] != parts_[i].file || parts_[i].image.size() < parts_[i].file->mmv->size) {
      return false;
    }
  }
  return true;
}

absl::Status Recorder::NewVolume() {
  if (writer_ == nullptr || phase_ == Phase::kOutage) return absl::OkStatus();
  return writer_->NewVolume();
}
absl::Status Recorder::Close() {
  live_ = LiveState::kNone;  // Close writes what is held
  live_at_ = absl::InfiniteFuture();
  if (writer_ == nullptr) return absl::OkStatus();
  if (!have_result_ && !resumed_archive_) {
    // Files came and went without a single result (or every metric was
    // filtered out): PCP cannot open such an archive, so leave none.
    (void)writer_->Close();
    for (const char* ext : {".meta", ".index"}) ::unlink((current_base_ + ext).c_str());
    for (int v = 0; v <= writer_->volume(); ++v) ::unlink(absl::StrCat(current_base_, ".", v).c_str());
    writer_->TakeFinishedVolumes();
    writer_.reset();
    log_(LogLevel::kInfo, absl::StrCat("nothing recorded in ", current_base_, "; removed it"));
    return absl::OkStatus();
  }
  // The epilogue, a millisecond after the last record (pmlogger's run_done),
  // after what is held: it is no sample to count as lost.
  absl::Status s = writer_->holding_records() ? writer_->ReleaseRecords() : absl::OkStatus();
  if (have_result_ && s.ok()) {
    s = WriteLogue(format::ToTimestamp(format::ToAbslTime(writer_->last_stamp()) +
                                       absl::Milliseconds(1)));
  }
  absl::Status closed = writer_->Close();
  if (s.ok()) s = closed;
  CountUnwritten();
  closed_archive_bytes_ += writer_->total_bytes();  // with the final index entry
  for (std::string& v : writer_->TakeFinishedVolumes()) finished_volumes_.push_back(std::move(v));
  writer_.reset();
  return s;
}

absl::Status Recorder::StartNewArchive(const std::string& base) {
  absl::Status s = Close();
  options_.archive_base = base;
  next_base_explicit_ = true;
  for (auto& [name, st] : files_) {
    st.mapped.reset();  // metadata again into the new archive, same PMIDs
    st.recorded = false;
  }
  have_result_ = false;
  return s;
}

std::vector<std::string> Recorder::TakeFinishedVolumes() {
  if (writer_ != nullptr) {
    for (std::string& v : writer_->TakeFinishedVolumes()) finished_volumes_.push_back(std::move(v));
  }
  return std::exchange(finished_volumes_, {});
}

}  // namespace mmvlog::archiver

#include "archiver/recorder.h"

#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "archiver/archive_reader.h"
#include "format/archive_format.h"
#include "format/archive_types.h"

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

std::map<std::string, std::string> Recorder::ListFiles() {
  std::map<std::string, std::string> out;
  if (!options_.mmv_dir.empty()) {
    if (dir_ == nullptr) dir_ = std::make_unique<DirListing>(options_.mmv_dir);
    if (absl::Status s = dir_->Refresh(); !s.ok()) {
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
  const Timestamp start = format::ToTimestamp(now);
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
    resumed_ = have_result_;
    resumed_archive_ = true;
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
  // The context and domain labels pmcd would supply.
  for (const auto& [type, ident, json] :
       std::vector<std::tuple<uint32_t, uint32_t, std::string>>{
           {format::kLabelContext, static_cast<uint32_t>(format::kInNull),
            options_.host.ContextLabels()},
           {format::kLabelDomain, options_.mapping.domain, "{\"agent\":\"mmv\"}"}}) {
    absl::StatusOr<format::LabelSet> set =
        format::MakeLabelSet(format::kInNull, json, static_cast<uint8_t>(type));
    if (!set.ok()) return set.status();
    format::LabelRecord r;
    r.timestamp = start;
    r.type = type;
    r.ident = ident;
    r.sets.push_back(std::move(*set));
    if (absl::Status s = writer_->AddLabels(r); !s.ok()) return s;
  }
  log_(LogLevel::kInfo, absl::StrCat("recording to archive ", base));
  return absl::OkStatus();
}

absl::Status Recorder::WriteMetadata(const MappedFile& f, Timestamp when) {
  for (const MappedMetric& m : f.metrics) {
    if (absl::Status s = writer_->AddDesc(m.desc); !s.ok()) return s;
  }
  for (format::InDom indom : f.indoms) {
    indom.timestamp = when;
    if (absl::Status s = writer_->AddInDom(indom); !s.ok()) return s;
  }
  for (const format::HelpText& t : f.texts) {
    if (absl::Status s = writer_->AddHelpText(t); !s.ok()) return s;
  }
  for (format::LabelRecord r : f.labels) {
    r.timestamp = when;
    if (absl::Status s = writer_->AddLabels(r); !s.ok()) return s;
  }
  return absl::OkStatus();
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
  if (!outage_) {
    log_(LogLevel::kError, absl::StrCat(why.message(), "; samples are dropped until the archive "
                                        "can be written again"));
  }
  outage_ = true;
  closed_archive_bytes_ += writer_->total_bytes();
  (void)writer_->Close();
  writer_.reset();
  broken_ = true;
}

bool Recorder::TryResume() {
  ArchiveOptions opts = options_.archive;
  absl::StatusOr<std::unique_ptr<ArchiveWriter>> w = ArchiveWriter::Resume(archives_.back(), opts);
  if (!w.ok()) return false;
  writer_ = std::move(*w);
  ++writer_serial_;
  closed_archive_bytes_ -= std::min(closed_archive_bytes_, writer_->total_bytes());
  broken_ = false;
  resumed_ = true;
  return true;
}

void Recorder::OutageOver() {
  if (!outage_) return;
  outage_ = false;
  log_(LogLevel::kInfo, absl::StrCat("archive ", archives_.back(), " writable again; continuing in volume ",
                                     writer_->volume(), " after ", stats_.dropped, " dropped samples"));
}

absl::Status Recorder::Sample(absl::Time now) {
  if (broken_ && !TryResume()) {
    ++stats_.dropped;
    return absl::OkStatus();
  }
  Timestamp stamp = format::ToTimestamp(now);
  bool need_mark = false;
  if (have_result_ && !(last_stamp_ < stamp)) {
    // The wall clock stepped back: keep the archive in time order (each
    // sample 1 us after the last until the clock catches up) and tell rate
    // tools once that there is a discontinuity.
    if (!clock_behind_) {
      log_(LogLevel::kWarning, "wall clock stepped backwards; marking the gap");
      need_mark = true;
    }
    clock_behind_ = true;
    stamp = format::ToTimestamp(format::ToAbslTime(last_stamp_) + absl::Microseconds(1));
  } else {
    clock_behind_ = false;
  }

  std::map<std::string, std::string> listed = ListFiles();
  for (auto it = files_.begin(); it != files_.end();) {
    if (!listed.contains(it->first)) {
      if (it->second.mapped) {
        log_(LogLevel::kInfo, absl::StrCat(it->first, ": file is gone"));
        need_mark = true;
      }
      it = files_.erase(it);
    } else {
      ++it;
    }
  }

  // Snapshot every file, then map the ones whose metadata is new.
  std::vector<std::pair<FileState*, MmvSnapshot>> live;
  std::vector<std::pair<std::string, int32_t>> clusters;
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
    absl::StatusOr<MmvSnapshot> snap = st.source->Snapshot();
    bool ok = snap.ok();
    if (!ok) {
      Problem(st, name, std::string(snap.status().message()));
    } else if ((snap->file->header.flags & format::kMmvFlagProcess) &&
               !ProcessAlive(snap->file->header.process)) {
      Problem(st, name, absl::StrCat("process ", snap->file->header.process, " has exited"));
      ok = false;
    }
    if (!ok) {
      if (st.mapped) need_mark = true;
      st.mapped.reset();
      continue;
    }
    if (!st.last_error.empty()) {
      log_(LogLevel::kInfo, absl::StrCat(name, ": readable again"));
      st.last_error.clear();
    }
    clusters.push_back({name, snap->file->header.cluster});
    live.push_back({&st, std::move(*snap)});
  }
  // The archive is created with the first sample that has a file to
  // record: an archive without any metric is one PCP cannot open.
  if (writer_ == nullptr) {
    if (live.empty()) return absl::OkStatus();
    if (absl::Status s = OpenArchive(now); !s.ok()) {
      // A full disk (ENOSPC, EDQUOT, EFBIG), a device error (EIO) or a
      // transient one is waited out; a missing directory, a permission or
      // an existing archive is a mistake to report, not to wait for.
      if (absl::IsNotFound(s) || absl::IsPermissionDenied(s) || absl::IsAlreadyExists(s) ||
          absl::IsInvalidArgument(s) || absl::IsFailedPrecondition(s)) {
        return s;
      }
      // The archive cannot be created now (a full disk): as for a write
      // error, report once, drop the sample and try again next time.
      if (!outage_) {
        log_(LogLevel::kError, absl::StrCat(s.message(), "; samples are dropped until the archive "
                                            "can be written"));
      }
      outage_ = true;
      ++stats_.dropped;
      return absl::OkStatus();
    }
  }
  need_mark = need_mark || resumed_;
  resumed_ = false;
  mapper_->ReserveClusters(clusters);

  for (auto& [st, snap] : live) {
    if (st->mapped && !snap.reloaded && st->mapped->mmv == snap.file) continue;
    const uint64_t generation = snap.file->header.generation1;
    // Re-read while recorded: a new generation, or a new file (inode, size)
    // with the same one. Either way the application restarted.
    if (st->mapped && (generation != st->generation || snap.reloaded)) need_mark = true;
    if (!st->mapped && st->recorded) need_mark = true;                  // came back
    const std::string file_name = st->path.substr(st->path.rfind('/') + 1);
    absl::StatusOr<MappedFile> mapped = mapper_->Map(file_name, snap.file);
    if (absl::IsAlreadyExists(mapped.status()) && have_result_) {
      // A name would change PMID: continue in a new archive, as below.
      if (absl::Status r = Rotate(now, std::string(mapped.status().message())); !r.ok()) {
        return r;
      }
      return Sample(now);
    }
    if (!mapped.ok()) {
      Problem(*st, file_name, std::string(mapped.status().message()));
      st->mapped.reset();
      continue;
    }
    for (const std::string& w : mapped->warnings) {
      log_(LogLevel::kWarning, absl::StrCat(file_name, ": ", w));
    }
    absl::Status s = WriteMetadata(*mapped, stamp);
    if (absl::IsAlreadyExists(s) && writer_->results_in_volume() + writer_->volume() > 0) {
      // A PMID would change meaning: continue in a new archive (whose fresh
      // archive cannot conflict, so this happens at most once per sample).
      if (absl::Status r = Rotate(now, std::string(s.message())); !r.ok()) return r;
      return Sample(now);
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
    st->mapped = std::make_shared<const MappedFile>(std::move(*mapped));
    st->generation = generation;
  }

  if (need_mark && have_result_) {
    Timestamp mark = last_stamp_;
    mark.nsec += 1'000'000;  // pmlogger's convention: last record + 1 ms
    if (mark.nsec >= 1'000'000'000) {
      mark.nsec -= 1'000'000'000;
      ++mark.sec;
    }
    if (stamp < mark) mark = stamp;
    if (absl::Status s = writer_->AppendMark(mark); !s.ok()) {
      Broken(s);
      ++stats_.dropped;
      resumed_ = true;
      return absl::OkStatus();
    }
    ++stats_.marks;
    last_stamp_ = mark;
    // The result after a mark comes strictly after it.
    if (!(mark < stamp)) {
      stamp = format::ToTimestamp(format::ToAbslTime(mark) + absl::Microseconds(1));
    }
  }

  if (options_.volume_samples > 0 && writer_->results_in_volume() >= options_.volume_samples) {
    if (absl::Status s = writer_->NewVolume(); !s.ok()) {
      Broken(s);
      ++stats_.dropped;
      return absl::OkStatus();
    }
  }
  const int64_t now_usec = UnixMicros(now);
  absl::Status written;
  size_t values = 0;
  if (!TemplateFits(live)) MakeTemplate(live);
  if (template_.has_value()) {
    // The fast path: the same files as the last sample, so the same record
    // layout; only the timestamp and the values change.
    template_->SetTimestamp(stamp);
    size_t sets = 0;
    for (auto& [st, snap] : live) {
      if (!st->mapped) continue;
      sets = StoreValues(*st->mapped, snap.image, &*template_, sets);
      st->recorded = true;
    }
    written = writer_->AppendEncodedResult(stamp, template_->record());
    values = template_->values();
  } else {
    result_.timestamp = stamp;
    size_t sets = 0;
    for (auto& [st, snap] : live) {
      if (!st->mapped) continue;
      sets = FillValueSets(*st->mapped, snap.image, now_usec, &result_, sets);
      st->recorded = true;
    }
    if (result_.sets.size() > sets) result_.sets.resize(sets);  // files went away
    // Nothing to record (no file yet, or none left): a result without
    // metrics would read as a <mark> to every PCP tool.
    if (result_.sets.empty()) {
      OutageOver();
      return absl::OkStatus();
    }
    written = writer_->AppendResult(result_);
    for (const format::ValueSet& set : result_.sets) values += set.values.size();
  }
  if (!written.ok()) {
    template_.reset();
    if (absl::IsFailedPrecondition(written) || absl::IsInvalidArgument(written)) return written;  // a bug
    Broken(written);
    ++stats_.dropped;
    return absl::OkStatus();
  }
  OutageOver();
  stats_.values += values;
  ++stats_.samples;
  last_stamp_ = stamp;
  have_result_ = true;
  return absl::OkStatus();
}

void Recorder::MakeTemplate(const std::vector<std::pair<FileState*, MmvSnapshot>>& live) {
  template_.reset();
  template_files_.clear();
  std::vector<std::vector<int32_t>> instances;
  for (const auto& [st, snap] : live) {
    if (!st->mapped) continue;
    if (!st->mapped->fixed_layout || snap.image.size() < st->mapped->mmv->size) {
      template_files_.clear();
      return;  // encoded whole, sample by sample
    }
    template_files_.push_back(st->mapped);
    for (const MappedMetric& m : st->mapped->metrics) {
      instances.push_back(Instances(*st->mapped, m));
    }
  }
  std::vector<format::SetLayout> layout;
  size_t i = 0;
  for (const auto& f : template_files_) {
    for (const MappedMetric& m : f->metrics) {
      layout.push_back({m.desc.pmid, m.desc.type, 0, instances[i++]});
    }
  }
  // No metric at all: such a result would read as a <mark>.
  if (layout.empty()) {
    template_files_.clear();
    return;
  }
  template_ = format::ResultTemplate::FromLayout(writer_->version(), {}, layout);
  template_writer_ = writer_serial_;
  if (!template_.has_value()) template_files_.clear();
}

bool Recorder::TemplateFits(
    const std::vector<std::pair<FileState*, MmvSnapshot>>& live) const {
  if (!template_.has_value() || template_writer_ != writer_serial_) return false;
  size_t n = 0;
  for (const auto& [st, snap] : live) {
    if (!st->mapped) continue;
    // The same MappedFile objects (held by template_files_, so no other
    // mapping can have their address) and a whole image of each.
    if (n == template_files_.size() || template_files_[n] != st->mapped ||
        snap.image.size() < st->mapped->mmv->size) {
      return false;
    }
    ++n;
  }
  return n == template_files_.size();
}

absl::Status Recorder::NewVolume() {
  if (writer_ == nullptr || broken_) return absl::OkStatus();
  return writer_->NewVolume();
}

absl::Status Recorder::Close() {
  if (writer_ == nullptr) return absl::OkStatus();
  if (!writer_->has_last() && !resumed_archive_) {
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
  absl::Status s = writer_->Close();
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

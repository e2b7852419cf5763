#include "archiver/store/archive_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "archiver/file/held_file.h"
#include "archiver/file/write_behind.h"
#include "archiver/store/archive_reader.h"
#include "archiver/store/recovery.h"
#include "archiver/store/rotation_policy.h"
#include "format/archive/archive_format.h"

namespace mmvlog::archiver {

using format::Desc;
using format::InDom;
using format::InDomInstance;
using format::Timestamp;

namespace {

// v2 records hold 32-bit seconds; later times cannot be represented.
absl::Status CheckTime(int version, Timestamp t, absl::string_view what) {
  if (version == format::kLogVersion2 &&
      (t.sec < 0 || t.sec > std::numeric_limits<int32_t>::max())) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " time ", t.sec, " does not fit a v2 archive's 32-bit seconds; use v3"));
  }
  return absl::OkStatus();
}

}  // namespace


ArchiveWriter::ArchiveWriter(std::string base, const ArchiveOptions& options,
                             Timestamp start)
    : base_(std::move(base)), options_(options), start_(start) {}

ArchiveWriter::~ArchiveWriter() {
  if (!closed_) (void)Close();
}

absl::StatusOr<std::unique_ptr<ArchiveWriter>> ArchiveWriter::Create(
    std::string base, const ArchiveOptions& options, Timestamp start) {
  if (options.version != format::kLogVersion2 &&
      options.version != format::kLogVersion3) {
    return absl::InvalidArgumentError(
        absl::StrCat("archive version ", options.version, " (know 2 and 3)"));
  }
  if (absl::Status s = CheckTime(options.version, start, "start"); !s.ok()) return s;
  std::unique_ptr<ArchiveWriter> w(new ArchiveWriter(std::move(base), options, start));
  if (absl::Status s = w->Open(); !s.ok()) {
    w->closed_ = true;
    // Leave nothing half-made behind (e.g. a disk that is full): remove the
    // files this call created, never ones that existed (AlreadyExists).
    if (!absl::IsAlreadyExists(s)) {
      for (const std::string& path : w->created_) ::unlink(path.c_str());
    }
    return s;
  }
  return w;
}

absl::StatusOr<std::unique_ptr<ArchiveWriter>> ArchiveWriter::Resume(
    std::string base, const ArchiveOptions& options) {
  RecoveryReport report;
  if (absl::Status s = RecoverArchive(base, false, &report, /*resuming=*/true); !s.ok()) {
    return s;
  }
  absl::StatusOr<std::unique_ptr<ArchiveReader>> reader = ArchiveReader::Open(base);
  if (!reader.ok()) return reader.status();
  const ArchiveReader& r = **reader;
  ArchiveOptions opts = options;
  opts.version = r.label().version;
  opts.hostname = r.label().hostname;
  opts.timezone = r.label().timezone;
  opts.zoneinfo = r.label().zoneinfo;
  opts.pid = r.label().pid;
  std::unique_ptr<ArchiveWriter> w(new ArchiveWriter(base, opts, r.label().start));
  // A resume that fails half way writes nothing more (no final index entry
  // into files it could not open): its files are just closed.
  auto fail = [&w](absl::Status s) {
    w->closed_ = true;
    return s;
  };
  for (const format::Desc& d : r.meta().descs) w->descs_.emplace(d.pmid, d);
  for (const auto& [id, history] : r.meta().indoms) w->indoms_[id] = history.back();
  for (const format::HelpText& t : r.meta().texts) w->texts_.insert({t.type, t.ident});
  for (const format::LabelRecord& l : r.meta().labels) w->labels_[{l.type, l.ident}] = l;
  // The last timestamp: results are in time order, so the last one read.
  int last_volume = -1;
  std::string last_volume_path;
  const std::string stem = base.substr(base.rfind('/') + 1);
  for (const std::string& v : r.volumes()) {
    // <base>.N or <base>.N.zst: N follows the base name.
    const std::string file = v.substr(v.rfind('/') + 1);
    const int n = std::atoi(file.c_str() + stem.size() + 1);
    if (n > last_volume) {
      last_volume = n;
      last_volume_path = v;
    }
  }
  for (;;) {
    absl::StatusOr<std::optional<format::DecodedResult>> next = (*reader)->Next();
    if (!next.ok()) return fail(next.status());
    if (!next->has_value()) break;
    w->have_last_ = true;
    w->last_stamp_ = (*next)->timestamp;
  }
  absl::StatusOr<std::unique_ptr<WritableFile>> meta = OpenWritableFile(base + ".meta", true);
  if (!meta.ok()) return fail(meta.status());
  w->meta_ = std::move(*meta);
  absl::StatusOr<std::unique_ptr<WritableFile>> index = OpenWritableFile(base + ".index", true);
  if (!index.ok()) return fail(index.status());
  w->index_ = std::make_unique<HeldFile>(std::move(*index));
  w->meta_offset_after_last_result_ = w->meta_->size();
  absl::Status opened;
  if (!w->have_last_ && last_volume >= 0 && !absl::EndsWith(last_volume_path, ".zst")) {
    // Nothing recorded yet (a crash or a full disk before the first
    // result): continue in the last volume, which holds only its label. A
    // new volume would leave it in front, and PCP cannot open an archive
    // whose first volume holds no record.
    absl::StatusOr<std::unique_ptr<WritableFile>> data =
        OpenWritableFile(last_volume_path, true, w->VolumeStream());
    opened = data.status();
    if (data.ok()) {
      w->data_ = std::make_unique<HeldFile>(std::move(*data));
      w->volume_ = last_volume;
    }
  } else {
    opened = w->OpenVolume(last_volume + 1);
  }
  if (!opened.ok()) return fail(opened);
  w->last_volume_ = -1;  // no result of this session yet for the final entry
  return w;
}

absl::Status ArchiveWriter::Fail(absl::Status s) {
  if (status_.ok()) status_ = s;
  return s;
}

format::LogLabel ArchiveWriter::Label(int32_t volume) const {
  format::LogLabel l;
  l.version = options_.version;
  l.pid = options_.pid;
  l.start = start_;
  l.volume = volume;
  l.hostname = options_.hostname;
  l.timezone = options_.timezone;
  l.zoneinfo = options_.zoneinfo;
  return l;
}

absl::Status ArchiveWriter::Open() {
  scratch_.clear();
  if (absl::Status s = format::EncodeLogLabel(Label(format::kVolumeMeta), &scratch_); !s.ok()) {
    return s;
  }
  absl::StatusOr<std::unique_ptr<WritableFile>> meta = OpenWritableFile(base_ + ".meta");
  if (!meta.ok()) return meta.status();
  meta_ = std::move(*meta);
  created_.push_back(meta_->path());
  if (absl::Status s = meta_->Append(scratch_); !s.ok()) return s;

  scratch_.clear();
  if (absl::Status s = format::EncodeLogLabel(Label(format::kVolumeIndex), &scratch_); !s.ok()) {
    return s;
  }
  absl::StatusOr<std::unique_ptr<WritableFile>> index = OpenWritableFile(base_ + ".index");
  if (!index.ok()) return index.status();
  index_ = std::make_unique<HeldFile>(std::move(*index));
  created_.push_back(index_->path());
  if (absl::Status s = index_->Append(scratch_); !s.ok()) return s;
  meta_offset_after_last_result_ = meta_->size();
  return OpenVolume(0);
}

absl::Status ArchiveWriter::OpenVolume(int n) {
  scratch_.clear();
  if (absl::Status s = format::EncodeLogLabel(Label(n), &scratch_); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<WritableFile>> data =
      OpenWritableFile(absl::StrCat(base_, ".", n), false, VolumeStream());
  if (!data.ok()) return data.status();
  if (data_ != nullptr) finished_volume_bytes_ += data_->size();
  data_ = std::make_unique<HeldFile>(std::move(*data));
  if (holding_) data_->Hold();
  created_.push_back(data_->path());
  volume_ = n;
  results_in_volume_ = 0;
  index_pending_ = true;
  if (absl::Status s = data_->Append(scratch_); !s.ok()) {
    // A failed append leaves the file as it was, empty here: remove it
    // rather than leave a volume without a label behind.
    if (data_->size() == 0) {
      (void)data_->Close();
      ::unlink(data_->path().c_str());
    }
    return s;
  }
  return absl::OkStatus();
}

absl::Status ArchiveWriter::NewVolume() {
  if (!status_.ok()) return status_;
  // A volume without a record reads as "contains no PCP data", and as the
  // first volume it makes the archive unreadable: keep the empty one.
  if (results_in_volume_ == 0) return absl::OkStatus();
  // What the finished volume holds is written, and its index entries after
  // it, before the volume is synced and closed.
  if (holding_) {
    if (absl::Status s = WriteHeld(/*keep_holding=*/true); !s.ok()) return s;
  }
  if (options_.sync_on_switch) {
    if (absl::Status s = data_->Sync(); !s.ok()) return Fail(s);
    if (absl::Status s = FlushMeta(); !s.ok()) return s;
    if (absl::Status s = meta_->Sync(); !s.ok()) return Fail(s);
  }
  if (absl::Status s = data_->Close(); !s.ok()) return Fail(s);
  finished_volumes_.push_back(data_->path());
  if (absl::Status s = OpenVolume(volume_ + 1); !s.ok()) return Fail(s);
  return absl::OkStatus();
}

StreamOptions ArchiveWriter::VolumeStream() const {
  return {.preallocate = true,
          .write_behind = options_.write_behind ? &WriteBehind::Global() : nullptr,
          .write_behind_min_rate = options_.write_behind_min_rate};
}

absl::Status ArchiveWriter::WriteMeta() {
  if (options_.version == format::kLogVersion2 &&
      meta_bytes() + scratch_.size() > format::kV2MaxFileSize) {
    return Fail(absl::ResourceExhaustedError(absl::StrCat(
        base_, ".meta: a v2 .meta cannot grow past 2 GiB; start a new archive")));
  }
  // Gathered, and written in one piece before the record that needs it
  // (FlushMeta): a tick that describes a thousand new files makes one
  // write, not one per record (issue 32).
  meta_pending_.insert(meta_pending_.end(), scratch_.begin(), scratch_.end());
  return absl::OkStatus();
}

absl::Status ArchiveWriter::FlushMeta() {
  if (meta_pending_.empty()) return absl::OkStatus();
  absl::Status s = meta_->Append(meta_pending_);
  meta_pending_.clear();
  return s.ok() ? s : Fail(s);
}

absl::Status ArchiveWriter::WriteIndex(Timestamp when, uint64_t meta_offset,
                                       uint64_t data_offset) {
  format::IndexEntry e;
  e.timestamp = when;
  e.volume = volume_;
  e.meta_offset = meta_offset;
  e.data_offset = data_offset;
  std::vector<uint8_t> buf;
  if (absl::Status s = format::EncodeIndexEntry(options_.version, e, &buf); !s.ok()) {
    return Fail(s);
  }
  if (absl::Status s = index_->Append(buf); !s.ok()) return Fail(s);
  data_offset_at_last_index_ = data_offset;
  index_pending_ = false;
  return absl::OkStatus();
}

absl::Status ArchiveWriter::AddDesc(const Desc& desc) {
  if (!status_.ok()) return status_;
  auto it = descs_.find(desc.pmid);
  if (it != descs_.end()) {
    if (it->second == desc) return absl::OkStatus();
    return absl::AlreadyExistsError(absl::StrCat(
        base_, ": PMID ", desc.pmid, " (", desc.names.empty() ? "" : desc.names[0],
        ") already has a different descriptor in this archive"));
  }
  scratch_.clear();
  if (absl::Status s = format::EncodeDesc(desc, &scratch_); !s.ok()) return s;
  if (absl::Status s = WriteMeta(); !s.ok()) return s;
  descs_.emplace(desc.pmid, desc);
  return absl::OkStatus();
}

absl::Status ArchiveWriter::AddHelpText(const format::HelpText& text) {
  if (!status_.ok()) return status_;
  if (!texts_.insert({text.type, text.ident}).second) return absl::OkStatus();
  scratch_.clear();
  if (absl::Status s = format::EncodeHelpText(text, &scratch_); !s.ok()) {
    texts_.erase({text.type, text.ident});
    return s;
  }
  return WriteMeta();
}

absl::Status ArchiveWriter::AddLabels(const format::LabelRecord& labels) {
  if (!status_.ok()) return status_;
  if (absl::Status s = CheckTime(options_.version, labels.timestamp, "labels"); !s.ok()) {
    return s;
  }
  const std::pair<uint32_t, uint32_t> key{labels.type, labels.ident};
  auto it = labels_.find(key);
  if (it != labels_.end() && it->second.sets == labels.sets) return absl::OkStatus();
  scratch_.clear();
  if (absl::Status s = format::EncodeLabelRecord(options_.version, labels, &scratch_);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = WriteMeta(); !s.ok()) return s;
  labels_[key] = labels;
  return absl::OkStatus();
}

absl::Status ArchiveWriter::AddInDom(const InDom& indom) {
  if (!status_.ok()) return status_;
  if (indom.delta) {
    return absl::InvalidArgumentError("AddInDom takes the full instance list");
  }
  if (absl::Status s = CheckTime(options_.version, indom.timestamp, "indom"); !s.ok()) {
    return s;
  }
  InDom record = indom;
  auto it = indoms_.find(indom.indom);
  if (it != indoms_.end()) {
    absl::flat_hash_map<int32_t, const std::string*> old_names;
    for (const InDomInstance& i : it->second.instances) old_names[i.inst] = &i.name;
    absl::flat_hash_set<int32_t> now;
    std::vector<InDomInstance> delta;
    bool renamed = false;
    for (const InDomInstance& i : indom.instances) {
      now.insert(i.inst);
      auto o = old_names.find(i.inst);
      if (o == old_names.end()) {
        delta.push_back(i);
      } else if (*o->second != i.name) {
        renamed = true;
      }
    }
    for (const InDomInstance& i : it->second.instances) {
      if (!now.contains(i.inst)) delta.push_back({i.inst, "", true});
    }
    if (delta.empty() && !renamed) return absl::OkStatus();  // unchanged
    if (options_.version == format::kLogVersion3 && !renamed &&
        delta.size() < indom.instances.size()) {
      record.delta = true;
      record.instances = std::move(delta);
    }
  }
  scratch_.clear();
  if (absl::Status s = format::EncodeInDom(options_.version, record, &scratch_); !s.ok()) {
    return s;
  }
  if (absl::Status s = WriteMeta(); !s.ok()) return s;
  indoms_[indom.indom] = indom;
  index_pending_ = true;  // as pmlogger: every indom write gets an index entry
  return absl::OkStatus();
}

absl::Status ArchiveWriter::AppendResult(const format::Result& result) {
  if (!status_.ok()) return status_;
  for (const format::ValueSet& set : result.sets) {
    auto it = descs_.find(set.pmid);
    if (it == descs_.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat(base_, ": result holds PMID ", set.pmid, " before its descriptor"));
    }
    if (it->second.indom != format::kIndomNull && set.error == 0 &&
        !indoms_.contains(it->second.indom)) {
      return absl::FailedPreconditionError(
          absl::StrCat(base_, ": result uses indom ", it->second.indom,
                       " before its instance domain record"));
    }
  }
  uint64_t data_offset = 0;
  if (absl::Status s = PrepareResult(result.timestamp,
                                     format::EncodedResultSize(options_.version, result),
                                     &data_offset);
      !s.ok()) {
    return s;
  }
  scratch_.clear();
  format::EncodeResult(options_.version, result, &scratch_);
  return FinishResult(result.timestamp, data_offset, scratch_, /*mark=*/result.sets.empty());
}

absl::Status ArchiveWriter::AppendEncodedResult(Timestamp timestamp,
                                                std::span<const uint8_t> record) {
  uint64_t data_offset = 0;
  if (absl::Status s = PrepareResult(timestamp, record.size(), &data_offset); !s.ok()) return s;
  // Results come encoded now: give back the buffer a whole result needed
  // (peak memory is part of the product: bench/README.md, schedule.py).
  if (scratch_.capacity() > (64 << 10)) std::vector<uint8_t>().swap(scratch_);
  return FinishResult(timestamp, data_offset, record, /*mark=*/false);
}

absl::Status ArchiveWriter::PrepareResult(Timestamp timestamp, size_t size,
                                          uint64_t* data_offset) {
  if (!status_.ok()) return status_;
  if (closed_) return absl::FailedPreconditionError(absl::StrCat(base_, ": closed"));
  if (have_last_ && timestamp < last_stamp_) {
    return absl::InvalidArgumentError(absl::StrCat(
        base_, ": result at ", timestamp.sec, ".", timestamp.nsec,
        " is earlier than the previous one at ", last_stamp_.sec, ".",
        last_stamp_.nsec));
  }
  if (absl::Status s = CheckTime(options_.version, timestamp, "result"); !s.ok()) return s;
  // The metadata this record needs, before it (readers of a live archive
  // find every PMID's descriptor when they reach its values).
  if (absl::Status s = FlushMeta(); !s.ok()) return s;
  RotationPolicy policy;
  policy.volume_bytes = options_.max_volume_bytes;
  if (options_.version == format::kLogVersion2) policy.ceiling = format::kV2MaxFileSize;
  RotationState state;
  state.volume_bytes = data_->size();
  state.next_record_bytes = size;
  state.volume_results = results_in_volume_;
  if (DecideRotation(policy, state) == Rotation::kNewVolume) {
    if (absl::Status s = NewVolume(); !s.ok()) return s;
  }
  if (options_.version == format::kLogVersion2 &&
      data_->size() + size > format::kV2MaxFileSize) {
    return absl::ResourceExhaustedError(absl::StrCat(
        base_, ": a result of ", size, " bytes cannot fit a v2 volume (2 GiB)"));
  }
  *data_offset = data_->size();
  if (index_pending_ ||
      *data_offset - data_offset_at_last_index_ >= options_.index_interval_bytes) {
    if (absl::Status s = WriteIndex(timestamp, meta_offset_after_last_result_, *data_offset);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status ArchiveWriter::FinishResult(Timestamp timestamp, uint64_t data_offset,
                                         std::span<const uint8_t> record, bool mark) {
  if (absl::Status s = data_->Append(record); !s.ok()) return Fail(s);
  if (data_->holding() && !mark) ++held_results_;
  ++results_in_volume_;
  have_last_ = true;
  last_stamp_ = timestamp;
  last_meta_offset_ = meta_offset_after_last_result_;
  last_data_offset_ = data_offset;
  last_volume_ = volume_;
  meta_offset_after_last_result_ = meta_->size();
  return absl::OkStatus();
}

void ArchiveWriter::HoldRecords() {
  holding_ = true;
  data_->Hold();
  index_->Hold();
}

absl::Status ArchiveWriter::ReleaseRecords() {
  holding_ = false;
  return WriteHeld(/*keep_holding=*/false);
}

absl::Status ArchiveWriter::WriteHeld(bool keep_holding) {
  const uint64_t results = std::exchange(held_results_, 0);
  // The results first: an index entry never points past the volume's end.
  absl::Status s = data_->Release();
  if (!s.ok()) {
    // Lost with the held bytes (a write that fails leaves the file as it
    // was): so are the entries that point at them.
    unwritten_results_ += results;
    index_->Discard();
    (void)Fail(s);
    if (data_->size() == 0) {
      // A volume begun while holding: not even its label reached it.
      (void)data_->Close();
      ::unlink(data_->path().c_str());
    }
  }
  if (absl::Status i = index_->Release(); !i.ok() && s.ok()) s = Fail(i);
  if (keep_holding) {
    data_->Hold();
    index_->Hold();
  }
  return s;
}

absl::Status ArchiveWriter::TouchMeta() {
  if (absl::Status s = FlushMeta(); !s.ok()) return s;
  return TouchArchive(base_);
}

absl::Status TouchArchive(const std::string& base) {
  // The directory too: a watcher of its parent that has not seen it yet
  // (one created in a second whose change was already handled) finds it.
  const size_t slash = base.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : base.substr(0, slash + 1);
  for (const std::string& path : {base + ".meta", dir}) {
    if (::utimensat(AT_FDCWD, path.c_str(), nullptr, 0) != 0) {
      return absl::ErrnoToStatus(errno, absl::StrCat("touch ", path));
    }
  }
  return absl::OkStatus();
}

absl::Status ArchiveWriter::AppendMark(Timestamp when) {
  format::Result mark;
  mark.timestamp = when;
  return AppendResult(mark);
}

absl::Status ArchiveWriter::Close() {
  if (closed_) return status_;
  closed_ = true;
  if (status_.ok()) (void)FlushMeta();  // its error is status_'s
  if (holding_) (void)ReleaseRecords();  // its error is status_'s
  absl::Status result = status_;
  if (result.ok() && have_last_ && last_volume_ == volume_ && index_ != nullptr) {
    // As pmlogger's exit: an entry pointing at the last result.
    format::IndexEntry e;
    e.timestamp = last_stamp_;
    e.volume = last_volume_;
    e.meta_offset = last_meta_offset_;
    e.data_offset = last_data_offset_;
    std::vector<uint8_t> buf;
    result = format::EncodeIndexEntry(options_.version, e, &buf);
    if (result.ok()) result = index_->Append(buf);
  }
  for (WritableFile* f : {static_cast<WritableFile*>(data_.get()), meta_.get(),
                          static_cast<WritableFile*>(index_.get())}) {
    if (f == nullptr) continue;
    if (options_.sync_on_switch && result.ok()) {
      absl::Status s = f->Sync();
      if (result.ok()) result = s;
    }
    absl::Status s = f->Close();
    if (result.ok()) result = s;
  }
  if (result.ok() && data_ != nullptr) finished_volumes_.push_back(data_->path());
  return result;
}

std::vector<std::string> ArchiveWriter::TakeFinishedVolumes() {
  return std::exchange(finished_volumes_, {});
}

}  // namespace mmvlog::archiver

#include "archiver/store/recovery.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <variant>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "archiver/store/archive_reader.h"
#include "archiver/file/posix_file.h"
#include "archiver/file/writable_file.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_framing.h"
#include "format/archive/archive_index.h"
#include "format/archive/archive_label.h"
#include "format/archive/archive_meta.h"
#include "format/archive/archive_result.h"
#include "format/errors.h"

namespace mmvlog::archiver {
namespace {

using format::Timestamp;

struct Scan {
  uint64_t good_end = 0;      // end of the last complete record
  bool torn = false;
  bool has_label = false;
  int version = 0;
  std::optional<Timestamp> first_result;     // volumes
  uint64_t first_result_offset = 0;
  std::optional<Timestamp> last_result;
  uint64_t last_result_offset = 0;
  std::vector<std::pair<Timestamp, uint64_t>> timed;  // .meta: (ts, offset)
  bool has_desc = false;                              // .meta: any metric
  std::optional<format::LogLabel> label;
};

absl::StatusOr<Scan> ScanFile(const std::string& path, int kind /*0 meta, 1 vol*/, int version) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(text->data()), text->size());
  format::RecordScanner scanner(bytes, 0);
  Scan scan;
  for (bool first = true;; first = false) {
    absl::StatusOr<std::optional<format::Frame>> f = scanner.Next();
    if (!f.ok()) {
      if (absl::IsOutOfRange(f.status())) {
        scan.torn = true;
        return scan;
      }
      return format::WithContext(f.status(), path);
    }
    if (!f->has_value()) return scan;
    if (first) {
      absl::StatusOr<format::LogLabel> label = format::DecodeLogLabel((*f)->payload);
      if (!label.ok()) return format::WithContext(label.status(), path);
      scan.has_label = true;
      scan.version = label->version;
      scan.label = *label;
      version = label->version;
    } else if (kind == 1) {
      absl::StatusOr<format::DecodedResult> r =
          format::DecodeResult(version, (*f)->payload, (*f)->offset);
      if (!r.ok()) return format::WithContext(r.status(), path);
      if (!scan.first_result) {
        scan.first_result = r->timestamp;
        scan.first_result_offset = (*f)->offset;
      }
      scan.last_result = r->timestamp;
      scan.last_result_offset = (*f)->offset;
    } else {
      absl::StatusOr<format::MetaRecord> m =
          format::DecodeMetaRecord(version, (*f)->payload, (*f)->offset);
      if (!m.ok()) return format::WithContext(m.status(), path);
      if (std::holds_alternative<format::Desc>(*m)) scan.has_desc = true;
      if (auto* d = std::get_if<format::InDom>(&*m)) {
        scan.timed.push_back({d->timestamp, (*f)->offset});
      } else if (auto* l = std::get_if<format::LabelRecord>(&*m)) {
        scan.timed.push_back({l->timestamp, (*f)->offset});
      }
    }
    scan.good_end = scanner.offset();
  }
}

}  // namespace

namespace {

// One recovery: each step reads what the steps before found. Steps that
// end the recovery (nothing left to recover) set done_.
class Recovery {
 public:
  Recovery(absl::string_view name, bool dry_run, RecoveryReport* report, bool resuming)
      : base_(ArchiveBaseName(name)),
        meta_path_(base_ + ".meta"),
        dry_run_(dry_run),
        resuming_(resuming),
        report_(report) {}

  absl::Status Run() {
    if (absl::Status s = RecoverMeta(); !s.ok() || done_) return s;
    if (absl::Status s = RecoverVolumes(); !s.ok()) return s;
    if (absl::Status s = MarkEmptyArchive(); !s.ok() || done_) return s;
    return RebuildIndex();
  }

 private:
  // Says what is done (the report) and does it, unless a dry run.
  template <typename F>
  absl::Status Act(const std::string& what, F&& fn) {
    report_->actions.push_back(what);
    if (dry_run_) return absl::OkStatus();
    return fn();
  }
  absl::Status TruncateTo(const std::string& path, uint64_t size, uint64_t was) {
    return Act(absl::StrCat(path, ": cut torn tail at offset ", size, " (", was - size, " bytes)"),
               [&]() -> absl::Status {
                 if (::truncate(path.c_str(), static_cast<off_t>(size)) != 0) {
                   return absl::ErrnoToStatus(errno, absl::StrCat("truncate ", path));
                 }
                 return absl::OkStatus();
               });
  }
  // The label and torn tail of .meta; an archive killed while being
  // created is removed (done_).
  absl::Status RecoverMeta();
  // Each volume: torn tails cut, label-only tails removed; what the index
  // needs (each volume's first record, the last one).
  absl::Status RecoverVolumes();
  // An archive with no record at all: a <mark> at its start, or removed
  // when nothing was described (done_).
  absl::Status MarkEmptyArchive();
  // The index: whole entries that point inside the (repaired) files.
  absl::Status RebuildIndex();

  const std::string base_;
  const std::string meta_path_;
  const bool dry_run_;
  const bool resuming_;
  RecoveryReport* report_;
  bool done_ = false;
  Scan meta_;
  int version_ = 0;
  std::vector<std::pair<int64_t, std::string>> volumes_;
  absl::flat_hash_set<int64_t> compressed_;
  std::vector<uint64_t> volume_size_;
  std::optional<Timestamp> last_;
  int64_t last_volume_ = -1;
  uint64_t last_offset_ = 0;
  std::vector<format::IndexEntry> volume_starts_;  // each volume's first record
};

absl::Status Recovery::RecoverMeta() {
  absl::StatusOr<Scan> scanned = ScanFile(meta_path_, 0, 0);
  if (!scanned.ok()) return scanned.status();
  meta_ = std::move(*scanned);
  if (!meta_.has_label) {
    // Killed while creating the archive: if no volume holds more than a
    // label, nothing was recorded and the files are only debris.
    std::vector<std::string> debris = {meta_path_, base_ + ".index"};
    bool holds_data = false;
    absl::StatusOr<std::vector<VolumeFile>> files = ListVolumes(base_);
    if (!files.ok()) return files.status();
    for (const VolumeFile& v : *files) {
      struct stat st;
      if (v.compressed || (::stat(v.path.c_str(), &st) == 0 &&
                           static_cast<uint64_t>(st.st_size) >
                               format::kLabelV3PayloadSize + format::kFrameOverhead)) {
        holds_data = true;
      }
      debris.push_back(v.path);
    }
    if (holds_data || resuming_) {
      return absl::DataLossError(absl::StrCat(meta_path_, ": no complete archive label; cannot recover"));
    }
    done_ = true;
    return Act(absl::StrCat(base_, ": killed while being created, nothing recorded; removed its files"),
               [&]() -> absl::Status {
                 for (const std::string& p : debris) ::unlink(p.c_str());
                 return absl::OkStatus();
               });
  }
  version_ = meta_.version;
  absl::StatusOr<struct stat> meta_st = StatPath(meta_path_);
  if (!meta_st.ok()) return meta_st.status();
  if (meta_.torn) {
    if (absl::Status s = TruncateTo(meta_path_, meta_.good_end, meta_st->st_size); !s.ok()) return s;
  }

  return absl::OkStatus();
}

absl::Status Recovery::RecoverVolumes() {
  // Volumes, in order; compressed ones were finished before compression
  // and are left alone.
  absl::StatusOr<std::vector<VolumeFile>> listed = ListVolumes(base_);
  if (!listed.ok()) return listed.status();
  for (const VolumeFile& v : *listed) {
    if (v.compressed) {
      compressed_.insert(v.number);
    } else {
      volumes_.push_back({v.number, v.path});
    }
  }
  volume_size_.assign(volumes_.empty() ? 0 : volumes_.back().first + 1, 0);
  std::vector<Scan> scans;
  int64_t last_with_records = -1;
  for (const auto& [n, path] : volumes_) {
    absl::StatusOr<Scan> vol = ScanFile(path, 1, version_);
    if (!vol.ok()) return vol.status();
    if (vol->last_result) last_with_records = n;
    scans.push_back(std::move(*vol));
  }
  for (size_t i = 0; i < volumes_.size(); ++i) {
    const auto& [n, path] = volumes_[i];
    const Scan* vol = &scans[i];
    absl::StatusOr<struct stat> st = StatPath(path);
    if (!st.ok()) return st.status();
    // Volumes after the last one with a record that hold only their label
    // (died between starting a volume and its first record): pmlogcheck
    // would say "contains no PCP data" of them.
    const bool label_only_tail = vol->has_label && last_with_records >= 0 && n > last_with_records;
    if (!vol->has_label || label_only_tail) {
      // Died while creating the volume: it holds nothing.
      if (absl::Status s = Act(absl::StrCat(path, label_only_tail
                                                      ? ": holds only its label; removed"
                                                      : ": no complete label; removed"),
                               [&]() -> absl::Status {
                                 if (::unlink(path.c_str()) != 0) {
                                   return absl::ErrnoToStatus(errno, absl::StrCat("remove ", path));
                                 }
                                 return absl::OkStatus();
                               });
          !s.ok()) {
        return s;
      }
      continue;
    }
    if (vol->torn) {
      if (absl::Status s = TruncateTo(path, vol->good_end, st->st_size); !s.ok()) return s;
    }
    volume_size_[n] = vol->good_end;
    if (vol->first_result) {
      format::IndexEntry start;
      start.timestamp = *vol->first_result;
      start.volume = static_cast<int32_t>(n);
      start.data_offset = vol->first_result_offset;
      volume_starts_.push_back(start);
    }
    if (vol->last_result) {
      last_ = vol->last_result;
      last_volume_ = n;
      last_offset_ = vol->last_result_offset;
    }
  }
  return absl::OkStatus();
}

absl::Status Recovery::MarkEmptyArchive() {
  // Killed after the metadata but before the first result: PCP refuses an
  // archive with no record at all ("empty archive"). A <mark> at the start
  // time is the truth (recording stopped) and makes it a valid archive.
  if (!last_ && !resuming_) {
    const uint64_t label_size =
        (version_ == format::kLogVersion2 ? format::kLabelV2PayloadSize
                                         : format::kLabelV3PayloadSize) +
        format::kFrameOverhead;
    if (meta_.good_end <= label_size || !meta_.has_desc) {
      // Killed before any metric was described (at most the host's
      // labels): PCP cannot open such an archive ("Corrupted record"), and
      // it holds nothing to keep.
      std::vector<std::string> paths = {meta_path_, base_ + ".index"};
      for (const auto& [n, path] : volumes_) paths.push_back(path);
      done_ = true;
      return Act(absl::StrCat(base_, ": nothing was recorded; removed the empty archive"),
                 [&]() -> absl::Status {
                   for (const std::string& p : paths) ::unlink(p.c_str());
                   return absl::OkStatus();
                 });
    }
    // Killed after the metadata but before the first result: PCP refuses an
    // archive with no record ("empty archive"). A <mark> at the start time
    // is the truth (recording stopped) and makes it a valid archive.
    std::optional<format::LogLabel> label = meta_.label;
    int64_t first_volume = -1;
    for (size_t n = 0; n < volume_size_.size(); ++n) {
      if (volume_size_[n] > 0) {
        first_volume = static_cast<int64_t>(n);
        break;
      }
    }
    std::vector<uint8_t> bytes;
    if (first_volume < 0) {
      // Died before volume 0 had its label: write both.
      first_volume = 0;
      label->volume = 0;
      if (absl::Status s = format::EncodeLogLabel(*label, &bytes); !s.ok()) return s;
      if (volume_size_.empty()) volume_size_.resize(1, 0);
    }
    const std::string path = absl::StrCat(base_, ".", first_volume);
    const uint64_t mark_offset = volume_size_[first_volume] + bytes.size();
    format::Result mark;
    mark.timestamp = label->start;
    format::EncodeResult(version_, mark, &bytes);
    if (absl::Status s = Act(absl::StrCat(path, ": no record at all; added a <mark> at the start"),
                             [&]() -> absl::Status {
                               if (volume_size_[first_volume] == 0) ::unlink(path.c_str());
                               absl::StatusOr<std::unique_ptr<WritableFile>> w =
                                   OpenWritableFile(path, volume_size_[first_volume] > 0);
                               if (!w.ok()) return w.status();
                               if (absl::Status a = (*w)->Append(bytes); !a.ok()) return a;
                               return (*w)->Close();
                             });
        !s.ok()) {
      return s;
    }
    last_ = label->start;
    last_volume_ = first_volume;
    last_offset_ = mark_offset;
    volume_size_[first_volume] += bytes.size();
  }
  return absl::OkStatus();
}

// One piece: the index's entries checked, completed and written, one pass
// over one list.
absl::Status Recovery::RebuildIndex() {
  // The index: whole entries that point inside the (repaired) files.
  const std::string index_path = base_ + ".index";
  absl::StatusOr<std::string> index = ReadWholeFile(index_path);
  std::vector<format::IndexEntry> kept;
  const uint64_t label_size =
      (version_ == format::kLogVersion2 ? format::kLabelV2PayloadSize : format::kLabelV3PayloadSize) +
      format::kFrameOverhead;
  const size_t esize = format::IndexEntrySize(version_);
  bool rewrite = !index.ok() || index->size() < label_size;
  // How many of the entries there, from the first, point inside the files:
  // what a cut in place keeps when the rewrite cannot be written.
  std::optional<size_t> valid_prefix;
  if (!rewrite) {
    const size_t n = (index->size() - label_size) / esize;
    if (label_size + n * esize != index->size()) rewrite = true;  // torn entry
    for (size_t i = 0; i < n; ++i) {
      absl::StatusOr<format::IndexEntry> e = format::DecodeIndexEntry(
          version_, std::span<const uint8_t>(
                       reinterpret_cast<const uint8_t*>(index->data()) + label_size + i * esize, esize));
      if (e.ok() && compressed_.contains(e->volume) && e->meta_offset <= meta_.good_end) {
        kept.push_back(*e);  // a finished, compressed_ volume: complete
        continue;
      }
      if (!e.ok() || e->volume < 0 || static_cast<size_t>(e->volume) >= volume_size_.size() ||
          e->data_offset >= volume_size_[e->volume] || e->meta_offset > meta_.good_end) {
        rewrite = true;
        if (!valid_prefix) valid_prefix = i;
        continue;
      }
      kept.push_back(*e);
    }
    if (!valid_prefix) valid_prefix = n;
  }
  // An added entry's .meta offset: before any metadata stamped after it.
  auto meta_offset_at = [&](Timestamp when) {
    for (const auto& [ts, off] : meta_.timed) {
      if (when < ts) return off;
    }
    return meta_.good_end;
  };
  // libpcp positions a reader with the index: if the first entry lies past
  // the first record it starts reading there, silently skipping what came
  // before. So each volume's first record gets an entry unless one is kept
  // for it, as pmlogger writes at the start of each volume.
  const size_t kept_before_starts = kept.size();
  for (format::IndexEntry start : volume_starts_) {
    const bool covered = std::any_of(kept.begin(), kept.begin() + kept_before_starts,
                                     [&](const format::IndexEntry& e) {
                                       return e.volume == start.volume &&
                                              e.data_offset <= start.data_offset;
                                     });
    if (covered) continue;
    start.meta_offset = meta_offset_at(start.timestamp);
    kept.push_back(start);
    rewrite = true;
  }
  if (kept.size() > kept_before_starts) {
    std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
      return std::pair(a.volume, a.data_offset) < std::pair(b.volume, b.data_offset);
    });
  }
  // The final entry pmlogger writes at exit: at the last result.
  if (last_) {
    format::IndexEntry fin;
    fin.timestamp = *last_;
    fin.volume = static_cast<int32_t>(last_volume_);
    fin.data_offset = last_offset_;
    fin.meta_offset = meta_offset_at(*last_);
    const bool have_final = !kept.empty() && kept.back().volume == fin.volume &&
                            kept.back().data_offset >= fin.data_offset;
    if (!have_final) {
      kept.push_back(fin);
      rewrite = true;
    }
  }
  if (!rewrite) return absl::OkStatus();
  return Act(absl::StrCat(index_path, ": rewritten with ", kept.size(), " valid entries"),
             [&]() -> absl::Status {
               // Keep the label that was there (or rebuild it from .meta's).
               std::vector<uint8_t> out;
               format::LogLabel label = *meta_.label;
               label.volume = format::kVolumeIndex;
               if (absl::Status s = format::EncodeLogLabel(label, &out); !s.ok()) return s;
               for (const format::IndexEntry& e : kept) {
                 if (absl::Status s = format::EncodeIndexEntry(version_, e, &out); !s.ok()) return s;
               }
               absl::Status written = WriteFileAtomically(index_path, out);
               if (written.ok() || !valid_prefix) return written;
               // No room for a new index (a full disk, a quota): cut this one
               // back to its valid entries in place, which needs no space, so
               // that it never names a volume that is not there.
               const uint64_t size = label_size + *valid_prefix * esize;
               if (::truncate(index_path.c_str(), static_cast<off_t>(size)) != 0) return written;
               report_->actions.push_back(absl::StrCat(index_path, ": ", written.message(),
                                                      "; cut in place to its first ",
                                                      *valid_prefix, " valid entries"));
               return absl::OkStatus();
             });
}

}  // namespace

absl::Status RecoverArchive(absl::string_view name, bool dry_run, RecoveryReport* report,
                            bool resuming) {
  return Recovery(name, dry_run, report, resuming).Run();
}

}  // namespace mmvlog::archiver

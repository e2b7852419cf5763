#include "archiver/store/archive_reader.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <variant>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "archiver/file/posix_file.h"
#include "archiver/store/prefetch_stream.h"
#include "archiver/store/read_stream.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_result.h"
#include "format/endian.h"
#include "format/errors.h"

namespace mmvlog::archiver {
namespace {

using format::Timestamp;

bool AllDigits(absl::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), absl::ascii_isdigit);
}

// Reads a small file (.meta, .index) whole: `path` itself, or compressed
// under one of libpcp's suffixes (pmlogcompress leaves <base>.meta.xz).
absl::StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  std::string found = path;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    for (const char* ext : {".xz", ".lzma", ".bz2", ".bz", ".gz", ".z", ".Z", ".zst"}) {
      if (::stat((path + ext).c_str(), &st) == 0) {
        found = path + ext;
        break;
      }
    }
  }
  absl::StatusOr<std::unique_ptr<ReadStream>> in = OpenReadStream(found);
  if (!in.ok()) return in.status();
  return ReadWholeStream(**in);
}

// Reads the label at the start of a file's bytes; returns its frame size.
absl::StatusOr<format::LogLabel> ReadLabel(const std::vector<uint8_t>& bytes,
                                           const std::string& path,
                                           format::RecordScanner* scanner) {
  absl::StatusOr<std::optional<format::Frame>> frame = scanner->Next();
  if (!frame.ok()) return format::WithContext(frame.status(), path);
  if (!frame->has_value()) {
    return absl::DataLossError(absl::StrCat(path, ": empty file, no archive label"));
  }
  absl::StatusOr<format::LogLabel> label = format::DecodeLogLabel((*frame)->payload);
  if (!label.ok()) return format::WithContext(label.status(), absl::StrCat(path, ": label"));
  (void)bytes;
  return label;
}

}  // namespace

const format::InDom* ArchiveMetadata::InDomAt(uint32_t indom, Timestamp t) const {
  auto it = indoms.find(indom);
  if (it == indoms.end()) return nullptr;
  const format::InDom* best = nullptr;
  for (const format::InDom& d : it->second) {
    if (d.timestamp <= t) best = &d;
  }
  // Before the first observation, PCP uses the first one.
  return best != nullptr ? best : &it->second.front();
}

const std::string* ArchiveMetadata::Text(uint32_t type, uint32_t ident) const {
  for (const format::HelpText& t : texts) {
    if (t.type == type && t.ident == ident) return &t.text;
  }
  return nullptr;
}

std::string MetaFileBase(absl::string_view file) {
  file.remove_suffix(CompressionSuffix(file).size());
  if (!absl::ConsumeSuffix(&file, ".meta")) return "";
  return std::string(file);
}

bool ArchiveFileExists(const std::string& base, absl::string_view ext) {
  struct stat st;
  const std::string path = absl::StrCat(base, ext);
  if (::stat(path.c_str(), &st) == 0) return true;
  for (const char* c : {".xz", ".lzma", ".bz2", ".bz", ".gz", ".z", ".Z", ".zst"}) {
    if (::stat((path + c).c_str(), &st) == 0) return true;
  }
  return false;
}

std::string ArchiveBaseName(absl::string_view name) {
  std::string s(name);
  // pmlogger_daily names end in digits ("20261122.04.11"): a name whose
  // .meta exists is a base name already.
  if (ArchiveFileExists(s, ".meta")) return s;
  s.resize(s.size() - CompressionSuffix(s).size());
  for (absl::string_view ext : {".meta", ".index"}) {
    if (absl::EndsWith(s, ext)) return s.substr(0, s.size() - ext.size());
  }
  size_t dot = s.rfind('.');
  size_t slash = s.rfind('/');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash) &&
      AllDigits(absl::string_view(s).substr(dot + 1))) {
    return s.substr(0, dot);
  }
  return s;
}

absl::StatusOr<std::vector<VolumeFile>> ListVolumes(const std::string& base) {
  const size_t slash = base.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : base.substr(0, slash);
  const std::string stem = slash == std::string::npos ? base : base.substr(slash + 1);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return absl::ErrnoToStatus(errno, absl::StrCat("open directory ", dir));
  std::vector<VolumeFile> out;
  while (struct dirent* e = ::readdir(d)) {
    absl::string_view f = e->d_name;
    if (!absl::StartsWith(f, stem + ".")) continue;
    absl::string_view rest = f.substr(stem.size() + 1);
    const absl::string_view suffix = CompressionSuffix(rest);
    rest.remove_suffix(suffix.size());
    int64_t n;
    if (!AllDigits(rest) || !absl::SimpleAtoi(rest, &n)) continue;
    out.push_back({n, absl::StrCat(dir, "/", f), !suffix.empty()});
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const VolumeFile& a, const VolumeFile& b) {
    return a.number != b.number ? a.number < b.number : a.path < b.path;
  });
  return out;
}

absl::StatusOr<std::shared_ptr<const ArchiveCatalog>> ArchiveReader::ReadCatalog(
    absl::string_view name) {
  auto c = std::make_shared<ArchiveCatalog>();
  c->base = ArchiveBaseName(name);
  absl::StatusOr<std::vector<VolumeFile>> volumes = ListVolumes(c->base);
  if (!volumes.ok()) return volumes.status();
  for (size_t i = 1; i < volumes->size(); ++i) {
    if ((*volumes)[i].number == (*volumes)[i - 1].number) {
      return absl::FailedPreconditionError(absl::StrCat(
          "both ", (*volumes)[i - 1].path, " and ", (*volumes)[i].path, " exist"));
    }
  }
  for (VolumeFile& v : *volumes) {
    c->volume_paths.push_back(std::move(v.path));
    c->volume_numbers.push_back(v.number);
  }
  if (absl::Status s = ReadMeta(*c); !s.ok()) return s;
  if (absl::Status s = ReadIndex(*c); !s.ok()) return s;
  if (c->volume_paths.empty()) {
    return absl::NotFoundError(absl::StrCat(c->base, ": no volumes (", c->base, ".0)"));
  }
  return c;
}

std::unique_ptr<ArchiveReader> ArchiveReader::Over(std::shared_ptr<const ArchiveCatalog> catalog) {
  std::unique_ptr<ArchiveReader> r(new ArchiveReader());
  r->warnings_ = catalog->warnings;
  r->catalog_ = std::move(catalog);
  return r;
}

absl::StatusOr<std::unique_ptr<ArchiveReader>> ArchiveReader::Open(absl::string_view name) {
  absl::StatusOr<std::shared_ptr<const ArchiveCatalog>> c = ReadCatalog(name);
  if (!c.ok()) return c.status();
  return Over(*std::move(c));
}

absl::Status ArchiveReader::ReadMeta(ArchiveCatalog& c) {
  const std::string path = c.base + ".meta";
  absl::StatusOr<std::vector<uint8_t>> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  format::RecordScanner scanner(*bytes, 0);
  absl::StatusOr<format::LogLabel> label = ReadLabel(*bytes, path, &scanner);
  if (!label.ok()) return label.status();
  c.label = *label;
  if (c.label.volume != format::kVolumeMeta) {
    return absl::DataLossError(absl::StrCat(path, ": label volume ", c.label.volume,
                                            ", expected -1 for .meta"));
  }
  for (;;) {
    const uint64_t at = scanner.offset();
    absl::StatusOr<std::optional<format::Frame>> frame = scanner.Next();
    if (!frame.ok()) {
      if (absl::IsOutOfRange(frame.status())) {
        c.warnings.push_back(absl::StrCat(path, ": ", frame.status().message(),
                                         ": metadata ends at offset ", at));
        break;
      }
      return format::WithContext(frame.status(), path);
    }
    if (!frame->has_value()) break;
    absl::StatusOr<format::MetaRecord> rec =
        format::DecodeMetaRecord(c.label.version, (*frame)->payload, (*frame)->offset);
    if (!rec.ok()) return format::WithContext(rec.status(), path);
    if (auto* desc = std::get_if<format::Desc>(&*rec)) {
      c.meta.desc_by_pmid[desc->pmid] = c.meta.descs.size();
      for (const std::string& n : desc->names) c.meta.pmid_by_name[n] = desc->pmid;
      c.meta.descs.push_back(std::move(*desc));
    } else if (auto* indom = std::get_if<format::InDom>(&*rec)) {
      auto& history = c.meta.indoms[indom->indom];
      if (indom->delta) {
        if (history.empty()) {
          return absl::DataLossError(absl::StrCat(
              path, ": offset ", (*frame)->offset, ": delta for indom ",
              indom->indom, " before any full record"));
        }
        format::InDom full = history.back();
        full.timestamp = indom->timestamp;
        for (const format::InDomInstance& i : indom->instances) {
          auto it = std::find_if(full.instances.begin(), full.instances.end(),
                                 [&](const format::InDomInstance& x) { return x.inst == i.inst; });
          if (i.deleted) {
            if (it != full.instances.end()) full.instances.erase(it);
          } else if (it != full.instances.end()) {
            it->name = i.name;
          } else {
            full.instances.push_back(i);
          }
        }
        history.push_back(std::move(full));
      } else {
        history.push_back(std::move(*indom));
      }
    } else if (auto* labels = std::get_if<format::LabelRecord>(&*rec)) {
      c.meta.labels.push_back(std::move(*labels));
    } else if (auto* text = std::get_if<format::HelpText>(&*rec)) {
      c.meta.texts.push_back(std::move(*text));
    }
  }
  return absl::OkStatus();
}

absl::Status ArchiveReader::ReadIndex(ArchiveCatalog& c) {
  const std::string path = c.base + ".index";
  absl::StatusOr<std::vector<uint8_t>> bytes = ReadFileBytes(path);
  if (!bytes.ok()) {
    // The temporal index is optional (LOGARCHIVE(5)).
    if (absl::IsNotFound(bytes.status())) {
      c.warnings.push_back(absl::StrCat(path, ": missing"));
      return absl::OkStatus();
    }
    return bytes.status();
  }
  format::RecordScanner scanner(*bytes, 0);
  absl::StatusOr<format::LogLabel> label = ReadLabel(*bytes, path, &scanner);
  if (!label.ok()) return label.status();
  if (label->version != c.label.version) {
    return absl::DataLossError(absl::StrCat(path, ": version ", label->version,
                                            " differs from .meta's ", c.label.version));
  }
  const size_t entry = c.label.version == format::kLogVersion2 ? format::kIndexEntryV2
                                                              : format::kIndexEntryV3;
  uint64_t at = scanner.offset();
  while (at + entry <= bytes->size()) {
    absl::StatusOr<format::IndexEntry> e = format::DecodeIndexEntry(
        c.label.version, std::span<const uint8_t>(bytes->data() + at, entry));
    if (!e.ok()) return format::WithContext(e.status(), absl::StrCat(path, ": offset ", at));
    c.index.push_back(*e);
    at += entry;
  }
  if (at != bytes->size()) {
    c.warnings.push_back(absl::StrCat(path, ": torn index entry at offset ", at, " (",
                                     bytes->size() - at, " bytes) ignored"));
  }
  return absl::OkStatus();
}

void ArchiveReader::StartAt(const format::IndexEntry& e) {
  for (size_t i = 0; i < catalog_->volume_numbers.size(); ++i) {
    if (catalog_->volume_numbers[i] != e.volume) continue;
    next_volume_ = i;
    start_offset_ = e.data_offset;
    return;
  }
}

format::IndexEntry ArchiveReader::position() const {
  format::IndexEntry e;
  if (scanner_ != nullptr) {
    e.volume = static_cast<int32_t>(catalog_->volume_numbers[next_volume_ - 1]);
    e.data_offset = scanner_->offset();
  } else if (next_volume_ > 0 && next_volume_ <= catalog_->volume_numbers.size() && !volume_path_.empty()) {
    // The volume read last is done: its end (where a growing one goes on).
    e.volume = static_cast<int32_t>(catalog_->volume_numbers[next_volume_ - 1]);
    e.data_offset = stopped_at_;
  } else if (next_volume_ < catalog_->volume_numbers.size()) {
    e.volume = static_cast<int32_t>(catalog_->volume_numbers[next_volume_]);
    e.data_offset = start_offset_;
  }
  return e;
}

absl::Status ArchiveReader::LoadVolume(size_t i, uint64_t start) {
  volume_path_ = catalog_->volume_paths[i];
  buffer_offset_ = 0;
  filled_ = 0;
  at_end_ = false;
  window_.reset();
  mapped_fd_.reset();
  volume_compressed_ = !CompressionSuffix(volume_path_).empty();
  if (!volume_compressed_) {
    absl::StatusOr<FileDescriptor> fd = OpenForRead(volume_path_);
    if (!fd.ok()) return fd.status();
    absl::StatusOr<struct stat> st = StatFd(fd->get(), volume_path_);
    if (!st.ok()) return st.status();
    // A FIFO or a device is read as a stream.
    if (S_ISREG(st->st_mode)) {
      mapped_fd_ = std::move(*fd);
      if (MoveWindow(0, 0).ok()) return LoadMappedVolume(start);
      // Not mapped (more volumes at once than the SIGBUS handler keeps, or
      // a file system that cannot map): read as a stream. A failed move
      // changed nothing of the state set above.
      mapped_fd_.reset();
    }
  }
  absl::StatusOr<std::unique_ptr<ReadStream>> in = OpenReadStream(volume_path_);
  if (!in.ok()) return in.status();
  // Decompressed on a thread of its own, beside the decoding of records.
  volume_ = volume_compressed_ ? std::make_unique<PrefetchStream>(std::move(*in)) : std::move(*in);
  // The label alone first when a skip follows (its frame is a few hundred
  // bytes); else the first chunk, records and all (a start near the label
  // is reached by reading on).
  constexpr uint64_t kLabelRead = 4096;
  const bool skip = start > kLabelRead;
  if (skip) {
    buffer_.resize(kLabelRead);
    absl::StatusOr<size_t> n = volume_->Read(buffer_);
    if (!n.ok()) return n.status();
    filled_ = *n;
    at_end_ = filled_ < kLabelRead;
    scanner_ = std::make_unique<format::RecordScanner>(
        std::span<const uint8_t>(buffer_.data(), filled_), 0);
    bytes_ = buffer_.data();
  } else if (absl::Status s = Refill(0, 0); !s.ok()) {
    return s;
  }
  if (!damage_.ok() && filled_ < format::kLabelV2PayloadSize + format::kFrameOverhead) {
    return TakeDamage();  // damaged before the label's end: say how, not "empty"
  }
  if (absl::Status s = ReadVolumeLabel(); !s.ok()) return s;
  if (!skip && start > scanner_->offset()) {
    // A start within the first chunk (a reader following a small archive):
    // the scanner goes on from there, not from the label.
    if (absl::Status s = Refill(start, 0); !s.ok()) return s;
    return absl::OkStatus();
  }
  if (skip && !at_end_) {
    if (absl::Status s = volume_->SkipTo(start); !s.ok()) {
      damage_ = s;  // damage before the start: nothing after it is read
      return TakeDamage();
    }
    if (volume_->position() != start) {  // the volume ends before `start`
      scanner_.reset();
      return absl::OkStatus();
    }
    buffer_offset_ = start;
    filled_ = 0;
    if (absl::Status s = Refill(start, 0); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ArchiveReader::ReadVolumeLabel() {
  absl::StatusOr<format::LogLabel> label = ReadLabel(buffer_, volume_path_, scanner_.get());
  if (!label.ok()) return label.status();
  if (label->version != catalog_->label.version || label->hostname != catalog_->label.hostname) {
    return absl::DataLossError(absl::StrCat(volume_path_,
                                            ": label does not match the archive's .meta label"));
  }
  return absl::OkStatus();
}

absl::Status ArchiveReader::LoadMappedVolume(uint64_t start) {
  volume_.reset();
  if (absl::Status s = ReadVolumeLabel(); !s.ok()) return s;
  if (start > scanner_->offset()) {
    if (absl::Status s = MoveWindow(start, 0); !s.ok()) return s;
    if (start > mapped_size_) scanner_.reset();  // the volume ends before `start`
  }
  return absl::OkStatus();
}

absl::Status ArchiveReader::MoveWindow(uint64_t at, uint64_t need) {
  // The file's size each time: a volume being written is read on as it
  // grows, as a stream's reads go on.
  absl::StatusOr<struct stat> st = StatFd(mapped_fd_.get(), volume_path_);
  if (!st.ok()) return st.status();
  const uint64_t size = static_cast<uint64_t>(st->st_size);
  mapped_size_ = size;
  // Windows begin 2 MB apart, so that a large folio of the page cache can
  // be mapped whole, and span 4 MB: a replay's resident memory stays that
  // of its columns (pages mapped count in it), and a 1 GB volume read
  // through 4 MB or 16 MB windows costs the same.
  constexpr uint64_t kAlign = 2 << 20;
  constexpr uint64_t kWindow = 4 << 20;
  static_assert(kWindow >= 2 * kAlign, "a window reaches past `at`");
  window_.reset();
  const uint64_t from = at & ~(kAlign - 1);
  size_t length = 0;
  if (at < size) {
    length = static_cast<size_t>(std::min(std::max(kWindow, at - from + need), size - from));
    absl::StatusOr<GuardedMapping> map =
        GuardedMapping::MapPatched(mapped_fd_.get(), from, length, volume_path_);
    if (!map.ok()) return map.status();
    window_ = std::move(*map);
  }
  buffer_offset_ = at;
  bytes_ = window_.valid() ? window_.guarded_bytes().data() + (at - from) : nullptr;
  filled_ = window_.valid() ? length - static_cast<size_t>(at - from) : 0;
  at_end_ = !window_.valid() || from + length == size;
  scanner_ = std::make_unique<format::RecordScanner>(std::span<const uint8_t>(bytes_, filled_),
                                                     buffer_offset_);
  return absl::OkStatus();
}

absl::Status ArchiveReader::Intact() const {
  if (!window_.shrank()) return absl::OkStatus();
  absl::StatusOr<struct stat> st = StatFd(mapped_fd_.get(), volume_path_);
  return absl::DataLossError(absl::StrCat(
      volume_path_, ": offset ", last_record_.data_offset, ": the file was cut short",
      st.ok() ? absl::StrCat(" to ", st->st_size, " bytes") : "", " while it was read"));
}

absl::Status ArchiveReader::Refill(uint64_t at, uint64_t need) {
  if (mapped_fd_.valid()) return MoveWindow(at, need);
  // 256 KB: small enough to stay in L2 between the kernel's copy and the
  // decoder (4 MB overran it: 5-10% of a replay's CPU), large enough that
  // a record seldom straddles two reads (one larger is read whole: `need`).
  constexpr uint64_t kReadChunk = 256 << 10;
  const size_t keep = static_cast<size_t>(at - buffer_offset_);
  if (keep > 0 && keep < filled_) {
    std::memmove(buffer_.data(), buffer_.data() + keep, filled_ - keep);
  }
  filled_ -= std::min(keep, filled_);
  buffer_offset_ = at;
  size_t want = static_cast<size_t>(std::max(kReadChunk, need));
  if (want <= filled_) want = filled_ + kReadChunk;  // always read on
  // The stream is read on from where it stopped (buffer_offset_ + filled_),
  // a chunk at a time: a damaged length claiming gigabytes costs no more
  // memory than the stream holds.
  while (filled_ < want && !at_end_) {
    const size_t target = std::min(want, filled_ + static_cast<size_t>(kReadChunk));
    if (buffer_.size() < target) buffer_.resize(target);
    absl::StatusOr<size_t> n =
        volume_->Read(std::span<uint8_t>(buffer_).subspan(filled_, target - filled_));
    if (!n.ok()) {
      // Damage in a compressed stream: the records before it stay readable.
      damage_ = n.status();
      at_end_ = true;
      break;
    }
    const bool short_read = *n < target - filled_;  // a stream reads less only at its end
    filled_ += *n;
    if (short_read) {
      // The end, or damage after the bytes just read: the next read says.
      at_end_ = true;
      uint8_t probe[1];
      absl::StatusOr<size_t> more = volume_->Read(probe);
      if (!more.ok()) {
        damage_ = more.status();
      } else if (*more > 0) {
        return absl::InternalError(absl::StrCat(volume_path_, ": stream read short before its end"));
      }
    }
  }
  bytes_ = buffer_.data();
  scanner_ = std::make_unique<format::RecordScanner>(
      std::span<const uint8_t>(buffer_.data(), filled_), buffer_offset_);
  return absl::OkStatus();
}

uint64_t ArchiveReader::RecordNeeds(uint64_t at) {
  const size_t pos = static_cast<size_t>(at - buffer_offset_);
  if (filled_ - pos < 4) return 0;
  const uint64_t length = format::LoadBig32(bytes_ + pos);
  // Refill grows only as the data goes; MoveWindow stops at the file's end.
  if (volume_compressed_ || mapped_fd_.valid()) return length;
  // A damaged length can claim up to 4 GB: never read past the file.
  absl::StatusOr<struct stat> st = StatPath(volume_path_);
  if (!st.ok()) return length;
  const uint64_t size = static_cast<uint64_t>(st->st_size);
  return std::min(length, size > at ? size - at : 0);
}

absl::Status ArchiveReader::TakeDamage() {
  absl::Status s = std::exchange(damage_, absl::OkStatus());
  scanner_.reset();
  window_.reset();
  next_volume_ = catalog_->volume_paths.size();  // nothing after damage is trusted
  return s;
}

absl::StatusOr<std::optional<format::DecodedResult>> ArchiveReader::Next() {
  format::DecodedResult result;
  absl::StatusOr<bool> more = NextInto(&result);
  if (!more.ok()) return more.status();
  if (!*more) return std::nullopt;
  return std::optional<format::DecodedResult>(std::move(result));
}

absl::StatusOr<bool> ArchiveReader::NextInto(format::DecodedResult* result) {
  absl::StatusOr<std::optional<format::Frame>> frame = NextFrame();
  if (!frame.ok()) return frame.status();
  if (!frame->has_value()) return false;
  if (absl::Status s = DecodeFrame(**frame, result); !s.ok()) return s;
  return true;
}

absl::Status ArchiveReader::DecodeFrame(const format::Frame& frame,
                                        format::DecodedResult* result) const {
  absl::Status s = format::WithContext(
      format::DecodeResultInto(catalog_->label.version, frame.payload, frame.offset, result),
      volume_path_);
  if (absl::Status intact = Intact(); !intact.ok()) return intact;  // decoded from zeros
  return s;
}

absl::StatusOr<format::Timestamp> ArchiveReader::FrameTimestamp(const format::Frame& frame) const {
  absl::StatusOr<format::Timestamp> t =
      format::DecodeResultTimestamp(catalog_->label.version, frame.payload, frame.offset);
  if (!t.ok()) return format::WithContext(t.status(), volume_path_);
  return t;
}

absl::StatusOr<std::optional<format::Frame>> ArchiveReader::NextFrame() {
  // A volume cut short under its window: the bytes read since are zeros
  // (the frame given last, or the one just scanned), and nothing after is
  // trusted.
  auto cut_short = [this]() -> absl::Status {
    damage_ = Intact();
    return TakeDamage();
  };
  for (;;) {
    if (window_.shrank()) return cut_short();
    if (scanner_ == nullptr) {
      if (next_volume_ >= catalog_->volume_paths.size()) return std::nullopt;
      const uint64_t start = std::exchange(start_offset_, 0);
      if (absl::Status s = LoadVolume(next_volume_++, start); !s.ok()) return s;
      if (scanner_ == nullptr) continue;
    }
    const uint64_t at = scanner_->offset();
    absl::StatusOr<std::optional<format::Frame>> frame = scanner_->Next();
    if (window_.shrank()) {
      last_record_.data_offset = at;
      return cut_short();
    }
    if (!frame.ok()) {
      if (!absl::IsOutOfRange(frame.status())) {
        return format::WithContext(frame.status(), volume_path_);
      }
      // The record runs past what is buffered: read on, unless that is
      // the end of the file (a torn tail).
      if (!at_end_) {
        if (absl::Status s = Refill(at, RecordNeeds(at)); !s.ok()) return s;
        continue;
      }
      if (!damage_.ok()) return TakeDamage();
      warnings_.push_back(absl::StrCat(volume_path_, ": ", frame.status().message(),
                                       ": data ends at offset ", at));
      stopped_at_ = at;
      scanner_.reset();
      continue;
    }
    if (!frame->has_value()) {
      if (!at_end_) {
        if (absl::Status s = Refill(at, 0); !s.ok()) return s;
        continue;
      }
      if (!damage_.ok()) return TakeDamage();
      stopped_at_ = at;
      scanner_.reset();
      continue;
    }
    last_record_.volume = static_cast<int32_t>(catalog_->volume_numbers[next_volume_ - 1]);
    last_record_.data_offset = at;
    return frame;
  }
}

}  // namespace mmvlog::archiver

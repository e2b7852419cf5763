// ArchiveReader: reads a PCP archive (v2 or v3, any number of volumes)
// written by mmvlog or by PCP itself, its volumes and .meta plain or
// compressed under any suffix libpcp reads (<base>.N.xz, <base>.meta.xz,
// .lzma, .bz2, .bz, .gz, .z, .Z, .zst; archiver/store/read_stream.h), mixed.
//
// Open() reads the whole .meta (descriptors, instance domains over time,
// labels, help text); Next() returns results in file order (time order for
// any archive PCP accepts). A plain volume is read in place, through a
// window of a few MB of its mapping moved along it; a compressed one a few
// hundred KB at a time: memory does not grow with its size either way. A
// plain volume cut short while it is read is DataLoss naming it, never a
// SIGBUS (archiver/mmv/guarded_mapping.h). Damage in a compressed stream
// is an error naming the file and the offset in the decompressed stream,
// returned after every record before it.
//
// Damage: a record that runs past the end of its file (a torn tail, left by a
// crash) ends that file's data and is reported in warnings(), not as an
// error; anything else inconsistent is DataLoss naming the file and offset.
#ifndef MMVLOG_ARCHIVER_STORE_ARCHIVE_READER_H_
#define MMVLOG_ARCHIVER_STORE_ARCHIVE_READER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "archiver/file/posix_file.h"
#include "archiver/mmv/guarded_mapping.h"
#include "archiver/store/read_stream.h"
#include "format/archive/archive_framing.h"
#include "format/archive/archive_index.h"
#include "format/archive/archive_label.h"
#include "format/archive/archive_meta.h"
#include "format/archive/archive_result.h"

namespace mmvlog::archiver {

// Everything in .meta, in file order where order matters.
struct ArchiveMetadata {
  std::vector<format::Desc> descs;  // in file order
  absl::flat_hash_map<uint32_t, size_t> desc_by_pmid;
  absl::flat_hash_map<std::string, uint32_t> pmid_by_name;
  // Per indom: every observation, deltas applied (each entry is a full set).
  absl::flat_hash_map<uint32_t, std::vector<format::InDom>> indoms;
  std::vector<format::LabelRecord> labels;
  std::vector<format::HelpText> texts;

  const format::Desc* Desc(uint32_t pmid) const {
    auto it = desc_by_pmid.find(pmid);
    return it == desc_by_pmid.end() ? nullptr : &descs[it->second];
  }
  // The instance domain in force at `t` (latest observation at or before t),
  // or nullptr.
  const format::InDom* InDomAt(uint32_t indom, format::Timestamp t) const;
  // Help text of `type` (kTextOneLine/kTextHelp | kTextPmid/kTextIndom).
  const std::string* Text(uint32_t type, uint32_t ident) const;
};

// The base name of an archive's metadata file ("dir/base.meta" or
// "dir/base.meta.xz", ...), or "" for another name.
std::string MetaFileBase(absl::string_view file);

// Whether `base` has a file with extension `ext` (".meta", ".0"), plain or
// compressed.
bool ArchiveFileExists(const std::string& base, absl::string_view ext);

// Splits "dir/base.0", "dir/base.meta", "dir/base.index", "dir/base.3.zst"
// or "dir/base" into "dir/base". A name whose ".meta" exists is taken as a
// base name as it is (pmlogger_daily names such as 20261122.04.11 end in
// digits).
std::string ArchiveBaseName(absl::string_view name);

// One volume file of an archive.
struct VolumeFile {
  int64_t number = 0;
  std::string path;
  bool compressed = false;  // <base>.N.xz, .bz2, .gz, .zst, ... (read_stream.h)
};

// The volume files of `base` (<base>.N and <base>.N.zst), by number.
// Errors: the directory cannot be read.
absl::StatusOr<std::vector<VolumeFile>> ListVolumes(const std::string& base);

// What is read of an archive before its records: the label, the whole
// .meta, the index and the list of volumes. Read once and shared by every
// reader of the archive (a replay opens one reader per pass: the end, the
// stream, each look-ahead), so a directory of N archives costs N reads of
// their metadata, not a multiple of it.
struct ArchiveCatalog {
  std::string base;
  format::LogLabel label;
  ArchiveMetadata meta;
  std::vector<format::IndexEntry> index;
  std::vector<std::string> volume_paths;  // in order, e.g. {"a.0", "a.1.zst"}
  std::vector<int64_t> volume_numbers;    // of volume_paths
  std::vector<std::string> warnings;      // of .meta and .index (torn tails)
};

class ArchiveReader {
 public:
  // Opens by base name or the name of any of its files.
  static absl::StatusOr<std::unique_ptr<ArchiveReader>> Open(absl::string_view name);
  // Reads the catalog alone (by base name or the name of any file).
  static absl::StatusOr<std::shared_ptr<const ArchiveCatalog>> ReadCatalog(
      absl::string_view name);
  // A reader over a catalog read before: it reads the volumes only. What
  // was added to the archive since the catalog was read is not seen.
  static std::unique_ptr<ArchiveReader> Over(std::shared_ptr<const ArchiveCatalog> catalog);

  const std::shared_ptr<const ArchiveCatalog>& catalog() const { return catalog_; }
  const format::LogLabel& label() const { return catalog_->label; }
  const ArchiveMetadata& meta() const { return catalog_->meta; }
  const std::string& base() const { return catalog_->base; }
  // Volume files in order, e.g. {"a.0", "a.1.zst"}.
  const std::vector<std::string>& volumes() const { return catalog_->volume_paths; }
  const std::vector<format::IndexEntry>& index() const { return catalog_->index; }

  // Makes reading begin at index entry `e` (LOGARCHIVE(5)): its volume, at
  // its offset, so the records before it (none later than its time) are
  // not read; a compressed .xz volume is entered at the block holding the
  // offset. An entry naming a volume the archive does not have changes
  // nothing. Call before the first Next.
  void StartAt(const format::IndexEntry& e);

  // Where the record after the last one returned begins, as an index entry
  // (its volume and data offset; no time, no .meta offset): StartAt of it
  // in a new reader of the same archive reads on from there (a reader
  // following an archive that grows). At the end of a volume it names that
  // volume's end; before the first read, the start.
  format::IndexEntry position() const;
  // Where the record returned last begins (the same form): a reader that
  // starts there reads it again.
  const format::IndexEntry& last_record() const { return last_record_; }

  // The next result (or <mark>); nullopt after the last. The spans inside
  // point into a buffer that stays valid until the next call.
  absl::StatusOr<std::optional<format::DecodedResult>> Next();

  // The same, decoded into `*result` and reusing its memory (for reading
  // many records): true with the next result, false after the last. On
  // error `*result` must not be used.
  absl::StatusOr<bool> NextInto(format::DecodedResult* result);

  // The next record undecoded (its payload valid until the next call), for
  // a reader that decodes only what it has not seen before (replay's
  // SampleStream); nullopt after the last. NextInto is this and DecodeFrame.
  absl::StatusOr<std::optional<format::Frame>> NextFrame();
  // Decodes a frame NextFrame gave, errors naming its volume.
  absl::Status DecodeFrame(const format::Frame& frame, format::DecodedResult* result) const;
  // DataLoss when the volume was cut short while it was read in place (the
  // bytes of the frames given since may be zeros): asked by a reader of
  // NextFrame's payloads after using them (DecodeFrame asks it itself).
  absl::Status Intact() const;
  // Its timestamp alone, checked as DecodeFrame checks it.
  absl::StatusOr<format::Timestamp> FrameTimestamp(const format::Frame& frame) const;

  // Torn tails and other recoverable findings, one line each, naming file
  // and offset.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  ArchiveReader() = default;
  static absl::Status ReadMeta(ArchiveCatalog& c);
  static absl::Status ReadIndex(ArchiveCatalog& c);
  // Opens volume i and reads its label; then reading starts at `start` if
  // that is past the label (the bytes between are skipped).
  absl::Status LoadVolume(size_t i, uint64_t start);
  // Moves the bytes from file offset `at` on to the front of buffer_ and
  // reads on, until buffer_ holds at least max(kReadChunk, need) bytes or
  // the end of the file (a plain volume: moves its window to `at`);
  // restarts scanner_ at `at`.
  absl::Status Refill(uint64_t at, uint64_t need);
  // Refill's work for a plain volume: maps the window that begins at or
  // before `at` and holds at least `need` bytes from it (or the file's end).
  absl::Status MoveWindow(uint64_t at, uint64_t need);
  // Reads the volume's label at scanner_; DataLoss unless it is the
  // archive's (version and host).
  absl::Status ReadVolumeLabel();
  // LoadVolume's rest for a plain volume, its first window mapped.
  absl::Status LoadMappedVolume(uint64_t start);
  // Bytes the record at `at` needs in the buffer (its length when buffered,
  // at most what the file holds from `at` on); 0 when not known.
  uint64_t RecordNeeds(uint64_t at);
  // Returns (and clears) the decompression error met in this volume, after
  // the records before it were returned; reading stops there.
  absl::Status TakeDamage();

  std::shared_ptr<const ArchiveCatalog> catalog_;
  uint64_t start_offset_ = 0;            // in volume next_volume_ (StartAt)
  std::vector<std::string> warnings_;
  size_t next_volume_ = 0;
  // The current volume: scanner_ walks buffer_[0, filled_), the file's
  // bytes from offset buffer_offset_; at_end_ once they run to the end of
  // the stream (a compressed volume is decompressed as it is read).
  std::string volume_path_;
  std::unique_ptr<ReadStream> volume_;
  bool volume_compressed_ = false;
  absl::Status damage_;
  std::vector<uint8_t> buffer_;
  // A plain volume: read in place, no copy (the kernel's copy was a third
  // of a scalar replay's CPU: issue 31), a window of it mapped at a time.
  FileDescriptor mapped_fd_;
  GuardedMapping window_;
  uint64_t mapped_size_ = 0;  // the file's size when window_ was mapped
  const uint8_t* bytes_ = nullptr;  // [0, filled_): buffer_'s or window_'s
  uint64_t buffer_offset_ = 0;
  size_t filled_ = 0;
  bool at_end_ = false;
  std::unique_ptr<format::RecordScanner> scanner_;
  uint64_t stopped_at_ = 0;  // where reading of the last volume stopped
  format::IndexEntry last_record_;

};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_ARCHIVE_READER_H_

// MmvSource: consistent snapshots of one live MMV file.
//
// The metadata is always copied with pread(2) into a private image and
// parsed from there: a mapping of a file that shrinks raises SIGBUS in the
// reader (it killed pmcd in PCP 6.0.3, shared/notes/PCP-BEHAVIOUR.md
// section 1.10), and a file that shrinks mid-pread is just a short read.
// Values may be read through a mapping, guarded (below).
//
// A snapshot is consistent when the header's generations are equal and
// non-zero before and after the copy and unchanged since the metadata was
// parsed (PCP's g1 == g2 check, used as a sequence lock). While they are, only
// the VALUES section and the slots of string values are copied again: one
// copy of the values per sample. A new generation, a new inode (the
// application recreated the file) or a new size re-reads and re-parses the
// whole file. Copies that race with a writer are retried a bounded number of
// times, then reported as Unavailable.
//
// Mapped reads: Snapshot(kMapped) of an unchanged file gives the values
// where they are, in a GuardedMapping of the file, instead of copying them
// (a 100k-value file is 3.2 MB a tick). The caller reads them with
// ReadMapped() (a file that shrinks mid-read is a failed read, not a
// SIGBUS) and then asks StillCurrent(): the generation and size checks that
// follow a copy, done after the caller's own reads. Per tick that is one
// stat and one fstat where a copy costs a stat and three preads; with a
// DirWatch that heard nothing of the file (same_entry, size_known), no
// system call at all.
//
// Hostile files: the file is opened with O_NOFOLLOW | O_NONBLOCK (relative to
// the MMV directory's descriptor when it came from a listing) and must be a
// regular file, so a symbolic link or a FIFO put in the directory is never
// followed or waited on. Only the header, the TOC and the sections the TOC
// names are copied (format::MmvExtent decides, from the sizes alone), so a
// sparse 10 GB file costs what its sections cost, and sections beyond
// max_image_bytes are refused without reading them.
#ifndef MMVLOG_ARCHIVER_MMV_MMV_SOURCE_H_
#define MMVLOG_ARCHIVER_MMV_MMV_SOURCE_H_

#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "archiver/mmv/guarded_mapping.h"
#include "archiver/file/posix_file.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_reader.h"

namespace mmvlog::archiver {

struct MmvSourceOptions {
  // Copies attempted before a snapshot is reported Unavailable.
  int max_attempts = 4;
  // The most bytes of one file copied: a file whose sections end later is
  // refused (100k values take about 3.2 MB).
  uint64_t max_image_bytes = uint64_t{256} << 20;
};

struct MmvSnapshot {
  // The parsed metadata; the same object until the file changes.
  std::shared_ptr<const format::MmvFile> file;
  // The file's bytes: values and string-value slots are current, the rest as
  // of the last full read. Valid until the next call to Snapshot().
  std::span<const uint8_t> image;
  // True when the metadata was (re)read for this snapshot.
  bool reloaded = false;
  // Snapshot(kMapped): the current values are in the file's mapping, read
  // through MmvSource::ReadMapped (then MmvSource::StillCurrent) or
  // MmvSource::CopyMapped; `image` holds them as of the last copy.
  bool mapped = false;
};

class MmvSource {
 public:
  // A file named by its path (a symbolic link as its last component is not
  // followed).
  explicit MmvSource(std::string path, MmvSourceOptions options = {})
      : path_(path), name_(std::move(path)), options_(options) {}
  // The file `name` in the directory open as `dir` (kept open while this
  // source lives); `path` names it in messages.
  MmvSource(std::shared_ptr<const FileDescriptor> dir, std::string name, std::string path,
            MmvSourceOptions options = {})
      : path_(std::move(path)), name_(std::move(name)), dir_(std::move(dir)), options_(options) {}

  // Takes a snapshot. Errors (all prefixed with the path):
  // NotFound when the file is gone; FailedPrecondition when it is not a
  // regular file (a symbolic link, a FIFO, ...) or its sections exceed
  // max_image_bytes; Unavailable when the generation is not
  // settled or kept changing; ParseMmv's errors for a damaged file;
  // errno-based errors for I/O. A failed snapshot leaves the source usable:
  // the next call starts afresh.
  // `same_entry`: the caller knows the directory entry still names the file
  // this source has open (a DirWatch saw no change), so it is not looked up
  // again; a file cut short or rewritten in place is still noticed (short
  // reads, generations, StillCurrent).
  enum Values { kCopied, kMapped };
  absl::StatusOr<MmvSnapshot> Snapshot(Values values = kCopied, bool same_entry = false);

  // For a mapped snapshot: fn(bytes) over the mapping; false when the file
  // shrank under the read (fn abandoned; see GuardedMapping::Read).
  template <typename Fn>
  bool ReadMapped(Fn&& fn) const {
    return map_.valid() && map_.Read(std::forward<Fn>(fn));
  }
  // For a mapped snapshot, after reading it: the header's generations are
  // still the settled ones the metadata was parsed with and the file is
  // still the size it was parsed at, so what was read belongs to that
  // metadata. `size_known`: the caller knows the size did not change since
  // the snapshot (a DirWatch heard nothing of the file since, looking after
  // the read), so it is not asked again; otherwise one fstat.
  bool StillCurrent(bool size_known = false) const;
  // For a mapped snapshot, the steady tick's read, within a
  // GuardedMapping::ReadAll whose mappings include mapping() (a tick guards
  // all its files' mappings at once): fn(bytes) over the mapping, then the
  // header compared with the settled one the metadata was parsed from
  // (StillCurrent's first check, done after fn's reads). kChanged: the
  // header moved (a new generation), so what fn read may not belong to the
  // metadata; kFaulted: nothing is mapped. A file that shrank under the
  // read faults the ReadAll. The size is SizeCurrent's.
  enum class MappedRead { kCurrent, kChanged, kFaulted };
  const GuardedMapping* mapping() const { return &map_; }
  template <typename Fn>
  MappedRead ReadGuardedCurrent(Fn&& fn) const {
    if (!map_.valid()) return MappedRead::kFaulted;
    const std::span<const uint8_t> bytes = map_.guarded_bytes();
    fn(bytes);
    std::atomic_thread_fence(std::memory_order_acquire);
    return HeaderMatches(bytes) ? MappedRead::kCurrent : MappedRead::kChanged;
  }
  // Within the same ReadAll, a few files before ReadGuardedCurrent: starts
  // loading the header's line and the lines of [from, to) of the mapping
  // (a file's values: a thousand files are a thousand places the hardware
  // does not foresee), at most kPrefetchLines of them, their pages read
  // for real so that the prefetches find their translations
  // (GuardedMapping::Touch).
  static constexpr size_t kPrefetchLines = 24;
  void Prefetch(size_t from, size_t to) const {
    to = std::min(to, from + kPrefetchLines * 64);
    if (from >= 4096) map_.Touch(0, 1);
    map_.Touch(from, to);
    map_.Prefetch(0);
    for (size_t at = from & ~size_t{63}; at < to; at += 64) map_.Prefetch(at);
  }
  // Starts loading this object's fields a mapped read needs (the mapping's
  // address, the header it is compared with): a thousand sources are a
  // thousand places out of cache.
  void PrefetchFields() const {
    __builtin_prefetch(&map_);
    __builtin_prefetch(header_ + sizeof(header_) - 1);
  }
  // StillCurrent's second check: the file is the size it was parsed at
  // (one fstat, unless `size_known`).
  bool SizeCurrent(bool size_known) const;
  // For a mapped snapshot: its values copied into the private image (as
  // kCopied would have), checked with StillCurrent; Unavailable otherwise.
  absl::StatusOr<std::span<const uint8_t>> CopyMapped();

  const std::string& path() const { return path_; }
  // The name it was opened by: relative to the directory, or the path.
  const std::string& name() const { return name_; }

 private:
  absl::Status Reopen();
  // Copies the whole file and parses it.
  absl::Status LoadAll();
  // Copies the hot ranges; OK when the generation held still around it.
  absl::Status RefreshValues(bool* consistent);
  absl::StatusOr<format::MmvHeader> ReadHeader();
  // The mapped header's generations are the settled ones of file_.
  bool GenerationCurrent() const;
  // `bytes` (the mapping) begins with the header file_ was parsed from,
  // byte for byte (the generations, and the TOC count, flags, process and
  // cluster they settle).
  bool HeaderMatches(std::span<const uint8_t> bytes) const {
    return bytes.size() >= sizeof(header_) &&
           std::memcmp(bytes.data(), header_, sizeof(header_)) == 0;
  }

  int dir_fd() const { return dir_ != nullptr ? dir_->get() : -1; }

  std::string path_;
  std::string name_;  // relative to dir_, or the path
  std::shared_ptr<const FileDescriptor> dir_;
  MmvSourceOptions options_;
  FileDescriptor fd_;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  uint64_t file_size_ = 0;  // st_size when image_ was last read whole
  std::vector<uint8_t> image_;
  GuardedMapping map_;  // the bytes image_ holds, mapped (when mmap worked)
  std::shared_ptr<const format::MmvFile> file_;
  uint8_t header_[format::kMmvHeaderSize] = {};  // file_'s, as read
  // [offset, size) ranges re-read per sample, coalesced and sorted.
  std::vector<std::pair<uint64_t, uint64_t>> hot_ranges_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_MMV_MMV_SOURCE_H_

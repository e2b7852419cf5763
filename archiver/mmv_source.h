// MmvSource: consistent snapshots of one live MMV file.
//
// The file is never mapped: a mapping of a file that shrinks raises SIGBUS
// in the reader (it killed pmcd in PCP 6.0.3, shared/notes/PCP-BEHAVIOUR.md
// section 1.10), so every byte is copied with pread(2) into a private image,
// and a file that shrinks mid-read is just a short read.
//
// A snapshot is consistent when the header's generations are equal and
// non-zero before and after the copy and unchanged since the metadata was
// parsed (PCP's g1 == g2 check, used as a sequence lock). While they are, only
// the VALUES section and the slots of string values are copied again: one
// copy of the values per sample. A new generation, a new inode (the
// application recreated the file) or a new size re-reads and re-parses the
// whole file. Copies that race with a writer are retried a bounded number of
// times, then reported as Unavailable.
#ifndef MMVLOG_ARCHIVER_MMV_SOURCE_H_
#define MMVLOG_ARCHIVER_MMV_SOURCE_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "archiver/posix_file.h"
#include "format/mmv_reader.h"

namespace mmvlog::archiver {

struct MmvSourceOptions {
  // Copies attempted before a snapshot is reported Unavailable.
  int max_attempts = 4;
};

struct MmvSnapshot {
  // The parsed metadata; the same object until the file changes.
  std::shared_ptr<const format::MmvFile> file;
  // The file's bytes: values and string-value slots are current, the rest as
  // of the last full read. Valid until the next call to Snapshot().
  std::span<const uint8_t> image;
  // True when the metadata was (re)read for this snapshot.
  bool reloaded = false;
};

class MmvSource {
 public:
  explicit MmvSource(std::string path, MmvSourceOptions options = {})
      : path_(std::move(path)), options_(options) {}

  // Takes a snapshot. Errors (all prefixed with the path):
  // NotFound when the file is gone; Unavailable when the generation is not
  // settled or kept changing; ParseMmv's errors for a damaged file;
  // errno-based errors for I/O. A failed snapshot leaves the source usable:
  // the next call starts afresh.
  absl::StatusOr<MmvSnapshot> Snapshot();

  const std::string& path() const { return path_; }

 private:
  absl::Status Reopen();
  // Copies the whole file and parses it.
  absl::Status LoadAll();
  // Copies the hot ranges; OK when the generation held still around it.
  absl::Status RefreshValues(bool* consistent);
  absl::StatusOr<format::MmvHeader> ReadHeader();

  std::string path_;
  MmvSourceOptions options_;
  FileDescriptor fd_;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  std::vector<uint8_t> image_;
  std::shared_ptr<const format::MmvFile> file_;
  // [offset, size) ranges re-read per sample, coalesced and sorted.
  std::vector<std::pair<uint64_t, uint64_t>> hot_ranges_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_MMV_SOURCE_H_

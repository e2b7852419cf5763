// WritableFile: the narrow append-only file interface the archive writer
// uses, its POSIX implementation, and the sticky-error rule: once an append
// fails the file's tail is unknown, so every later call returns the first
// error without writing (RocksDB/Riegeli). What happens next is policy.
#ifndef MMVLOG_ARCHIVER_FILE_WRITABLE_FILE_H_
#define MMVLOG_ARCHIVER_FILE_WRITABLE_FILE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "archiver/file/write_behind.h"

namespace mmvlog::archiver {

class WritableFile {
 public:
  virtual ~WritableFile() = default;
  // Appends `data` with as few write(2) calls as the kernel allows (one,
  // normally), so a crash loses at most the record being written.
  virtual absl::Status Append(std::span<const uint8_t> data) = 0;
  virtual absl::Status Sync() = 0;
  virtual absl::Status Close() = 0;
  // Bytes in the file (as last written).
  virtual uint64_t size() const = 0;
  virtual const std::string& path() const = 0;
};

// How a file that grows by large appends (an archive volume) is written.
struct StreamOptions {
  // Reserve disk ahead of the appends in chunks of 8 appends (1-64 MiB)
  // without changing the file's size (Close releases what was not used).
  bool preallocate = false;
  // Where to hand every 8 MiB, and the rest at Close, to be written back
  // and dropped from the page cache in the background (archiver/
  // write_behind.h; normally WriteBehind::Global()); nullptr: nowhere. A
  // range that fails to reach the disk becomes the file's error, returned
  // by the next call.
  WriteBehind* write_behind = nullptr;
  // Hand over only the 8 MiB steps written at least this fast (bytes a
  // second); a slower file's are left to the kernel, and so is its tail at
  // Close once its last step was. 0: every step. A step left to the kernel
  // reports a failed writeback only to Sync (fdatasync), as pmlogger's
  // writes do.
  uint64_t write_behind_min_rate = 0;
};

// Creates `path`, failing if it exists (as PCP's __pmLogCreate does), or
// opens it for appending at its current end when `append` is set.
absl::StatusOr<std::unique_ptr<WritableFile>> OpenWritableFile(
    const std::string& path, bool append = false, StreamOptions stream = {});

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_FILE_WRITABLE_FILE_H_

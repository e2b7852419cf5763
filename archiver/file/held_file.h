// HeldFile: a WritableFile that can keep its appends back for a while
// (Hold) and write them all later (Release), as if they had been written
// in order. size() counts what is held, so offsets computed from it stay
// right.
//
// Why: pmproxy's discovery (libpcp_web discover.c) opens a new archive at
// its end when it first notices it; a result written before then is never
// read. The recorder holds a new archive's results until pmproxy has had
// its chance (archiver/record/recorder.h, live archives).
//
// Where the held bytes wait: in an anonymous in-memory file (memfd), not in
// the process's heap. Holding is a one-off ~1 MB per archive, and fresh heap
// pages cost one page fault each as they are first written (on these VMs
// ~17 us each: 7 ms for 1.2 MB, a tenth of a 10 s, 1k-value recording's
// CPU), where write(2) to a memfd fills pages inside the kernel (~0.4 ms;
// bench/README.md, "The live hold"). Without memfd_create, the heap.
#ifndef MMVLOG_ARCHIVER_FILE_HELD_FILE_H_
#define MMVLOG_ARCHIVER_FILE_HELD_FILE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "archiver/file/posix_file.h"
#include "archiver/file/writable_file.h"

namespace mmvlog::archiver {

class HeldFile final : public WritableFile {
 public:
  explicit HeldFile(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}

  // From now on appends are kept back.
  void Hold();
  // Writes what is held (in 64 KiB appends, in order) and stops holding.
  absl::Status Release();
  bool holding() const { return holding_; }
  uint64_t held_bytes() const { return held_size_; }
  // Forgets what is held, still holding: for records that must not reach
  // the file after all (index entries whose results could not be written).
  void Discard();

  absl::Status Append(std::span<const uint8_t> data) override;
  // Both write what is held first.
  absl::Status Sync() override;
  absl::Status Close() override;
  uint64_t size() const override { return file_->size() + held_size_; }
  const std::string& path() const override { return file_->path(); }

 private:
  std::unique_ptr<WritableFile> file_;
  bool holding_ = false;
  uint64_t held_size_ = 0;
  FileDescriptor memfd_;       // where held bytes wait; not valid: in heap_
  std::vector<uint8_t> heap_;  // when there is no memfd
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_FILE_HELD_FILE_H_

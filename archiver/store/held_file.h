// HeldFile: a WritableFile that can keep its appends in memory for a while
// (Hold) and write them all at once later (Release), as if they had been
// written in order. size() counts what is held, so offsets computed from it
// stay right.
//
// Why: pmproxy's discovery (libpcp_web discover.c) opens a new archive at
// its end when it first notices it; a result written before then is never
// read. The recorder holds a new archive's results until pmproxy has had
// its chance (archiver/record/recorder.h, live archives).
#ifndef MMVLOG_ARCHIVER_STORE_HELD_FILE_H_
#define MMVLOG_ARCHIVER_STORE_HELD_FILE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "archiver/store/writable_file.h"

namespace mmvlog::archiver {

class HeldFile final : public WritableFile {
 public:
  explicit HeldFile(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}

  // From now on appends are kept in memory, room for `expect` bytes made
  // at once (growing by doubling re-copies and faults in pages again).
  void Hold(size_t expect = 0) {
    holding_ = true;
    held_.reserve(expect);
  }
  // Writes what is held (one append) and stops holding.
  absl::Status Release();
  bool holding() const { return holding_; }
  uint64_t held_bytes() const { return held_.size(); }
  // Forgets what is held, still holding: for records that must not reach
  // the file after all (index entries whose results could not be written).
  void Discard() { held_.clear(); }

  absl::Status Append(std::span<const uint8_t> data) override;
  // Both write what is held first.
  absl::Status Sync() override;
  absl::Status Close() override;
  uint64_t size() const override { return file_->size() + held_.size(); }
  const std::string& path() const override { return file_->path(); }

 private:
  std::unique_ptr<WritableFile> file_;
  bool holding_ = false;
  std::vector<uint8_t> held_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_HELD_FILE_H_

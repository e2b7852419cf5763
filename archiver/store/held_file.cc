#include "archiver/store/held_file.h"

#include <utility>

namespace mmvlog::archiver {

absl::Status HeldFile::Release() {
  holding_ = false;
  if (held_.empty()) return absl::OkStatus();
  const std::vector<uint8_t> held = std::exchange(held_, {});
  return file_->Append(held);
}

absl::Status HeldFile::Append(std::span<const uint8_t> data) {
  if (!holding_) return file_->Append(data);
  held_.insert(held_.end(), data.begin(), data.end());
  return absl::OkStatus();
}

absl::Status HeldFile::Sync() {
  if (absl::Status s = Release(); !s.ok()) return s;
  return file_->Sync();
}

absl::Status HeldFile::Close() {
  absl::Status s = Release();
  absl::Status closed = file_->Close();
  return s.ok() ? closed : s;
}

}  // namespace mmvlog::archiver

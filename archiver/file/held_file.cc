#include "archiver/file/held_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {
namespace {

// Release's appends: large enough for few write(2)s, small enough that its
// buffer's first-touch faults stay few (16 pages).
constexpr size_t kReleaseChunk = 64 << 10;

// An empty anonymous in-memory file (not valid when memfd_create fails).
FileDescriptor NewMemfd() { return FileDescriptor(::memfd_create("mmvlog-held", MFD_CLOEXEC)); }

// Writes all of `data` to `fd` at `offset`; false on any failure.
bool PwriteAll(int fd, std::span<const uint8_t> data, uint64_t offset) {
  while (!data.empty()) {
    const ssize_t n = ::pwrite(fd, data.data(), data.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data = data.subspan(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

}  // namespace

void HeldFile::Hold() {
  holding_ = true;
  if (!memfd_.valid() && held_size_ == 0) memfd_ = NewMemfd();
}

void HeldFile::Discard() {
  held_size_ = 0;
  heap_.clear();
  // A fresh memfd, not ftruncate: its pages go back at once either way.
  memfd_ = holding_ ? NewMemfd() : FileDescriptor();
}

absl::Status HeldFile::Release() {
  holding_ = false;
  const uint64_t held = std::exchange(held_size_, 0);
  const FileDescriptor memfd = std::move(memfd_);
  if (held == 0) return absl::OkStatus();
  if (!memfd.valid()) {
    const std::vector<uint8_t> bytes = std::exchange(heap_, {});
    return file_->Append(bytes);
  }
  std::vector<uint8_t> chunk(static_cast<size_t>(std::min<uint64_t>(held, kReleaseChunk)));
  for (uint64_t at = 0; at < held;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(held - at, chunk.size()));
    absl::StatusOr<size_t> n = ReadAt(memfd.get(), at, std::span(chunk.data(), want), path());
    if (n.ok() && *n < want) {
      n = absl::DataLossError(absl::StrCat(path(), ": held records end at offset ", at + *n,
                                           " of ", held, " in memory"));
    }
    if (!n.ok()) return n.status();
    if (absl::Status s = file_->Append(std::span(chunk.data(), want)); !s.ok()) return s;
    at += want;
  }
  return absl::OkStatus();
}

absl::Status HeldFile::Append(std::span<const uint8_t> data) {
  if (!holding_) return file_->Append(data);
  if (memfd_.valid()) {
    if (PwriteAll(memfd_.get(), data, held_size_)) {
      held_size_ += data.size();
      return absl::OkStatus();
    }
    // Memory for the memfd ran out: what it holds so far goes to the heap
    // and so does the rest of the hold (no record is dropped for it).
    std::vector<uint8_t> bytes(static_cast<size_t>(held_size_));
    absl::StatusOr<size_t> n = ReadAt(memfd_.get(), 0, std::span(bytes), path());
    if (!n.ok()) return n.status();
    if (*n < bytes.size()) {
      return absl::DataLossError(absl::StrCat(path(), ": held records end at offset ", *n,
                                              " of ", bytes.size(), " in memory"));
    }
    memfd_.reset();
    heap_ = std::move(bytes);
  }
  heap_.insert(heap_.end(), data.begin(), data.end());
  held_size_ += data.size();
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

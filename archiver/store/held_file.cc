#include "archiver/store/held_file.h"

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

HeldFile::~HeldFile() { CloseMemfd(); }

void HeldFile::CloseMemfd() {
  if (memfd_ >= 0) ::close(memfd_);
  memfd_ = -1;
}

void HeldFile::Hold() {
  holding_ = true;
  if (memfd_ < 0 && held_size_ == 0) memfd_ = ::memfd_create("mmvlog-held", MFD_CLOEXEC);
}

void HeldFile::Discard() {
  held_size_ = 0;
  heap_.clear();
  // A fresh memfd, not ftruncate: its pages go back at once either way.
  CloseMemfd();
  if (holding_) memfd_ = ::memfd_create("mmvlog-held", MFD_CLOEXEC);
}

absl::Status HeldFile::Release() {
  holding_ = false;
  if (held_size_ == 0) {
    CloseMemfd();
    return absl::OkStatus();
  }
  const uint64_t held = std::exchange(held_size_, 0);
  if (memfd_ < 0) {
    const std::vector<uint8_t> bytes = std::exchange(heap_, {});
    return file_->Append(bytes);
  }
  std::vector<uint8_t> chunk(static_cast<size_t>(std::min<uint64_t>(held, kReleaseChunk)));
  absl::Status status;
  for (uint64_t at = 0; at < held && status.ok();) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(held - at, chunk.size()));
    const ssize_t n = ::pread(memfd_, chunk.data(), want, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      status = absl::DataLossError(
          absl::StrCat(path(), ": held records could not be read back from memory (offset ",
                       at, " of ", held, ")"));
      break;
    }
    status = file_->Append(std::span<const uint8_t>(chunk.data(), static_cast<size_t>(n)));
    at += static_cast<uint64_t>(n);
  }
  CloseMemfd();
  return status;
}

absl::Status HeldFile::Append(std::span<const uint8_t> data) {
  if (!holding_) return file_->Append(data);
  if (memfd_ >= 0) {
    if (PwriteAll(memfd_, data, held_size_)) {
      held_size_ += data.size();
      return absl::OkStatus();
    }
    // Memory for the memfd ran out: what it holds so far goes to the heap
    // and so does the rest of the hold (no record is dropped for it).
    std::vector<uint8_t> bytes(static_cast<size_t>(held_size_));
    if (held_size_ > 0 &&
        ::pread(memfd_, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
      return absl::DataLossError(
          absl::StrCat(path(), ": held records could not be read back from memory"));
    }
    CloseMemfd();
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

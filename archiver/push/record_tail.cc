#include "archiver/push/record_tail.h"

#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/endian.h"

namespace mmvlog::archiver {
namespace {

constexpr size_t kReadChunk = 256 << 10;
// No record of an archive PCP writes comes near this (a result is at most
// a PDU, pmproxy takes bodies under 10 MiB): a larger length is damage.
constexpr uint32_t kMaxRecord = 1u << 30;

}  // namespace

absl::StatusOr<std::unique_ptr<RecordTail>> RecordTail::Open(const std::string& path,
                                                             uint64_t offset, size_t entry_size) {
  std::unique_ptr<RecordTail> t(new RecordTail(path, entry_size));
  if (absl::Status s = t->Reopen(offset); !s.ok()) return s;
  return t;
}

absl::Status RecordTail::Reopen(uint64_t offset) {
  absl::StatusOr<std::unique_ptr<ReadStream>> s = OpenReadStream(path_);
  if (!s.ok()) return s.status();
  compressed_ = !CompressionSuffix(path_).empty();
  if (absl::Status skip = (*s)->SkipTo(offset); !skip.ok()) return skip;
  stream_ = std::move(*s);
  filled_ = 0;
  buffer_offset_ = offset;
  pos_ = 0;
  released_ = offset;
  return absl::OkStatus();
}

absl::StatusOr<size_t> RecordTail::Fill(size_t want) {
  if (released_ > buffer_offset_) {
    const size_t drop = static_cast<size_t>(std::min<uint64_t>(released_ - buffer_offset_, pos_));
    std::memmove(buffer_.data(), buffer_.data() + drop, filled_ - drop);
    filled_ -= drop;
    buffer_offset_ += drop;
    pos_ -= drop;
  }
  const size_t chunk = std::max(want, kReadChunk);
  // Grown, never shrunk: a tail asked after every sample reads into room
  // it has (zeroing 256 KiB each time was most of the push's CPU).
  if (buffer_.size() < filled_ + chunk) buffer_.resize(filled_ + chunk);
  absl::StatusOr<size_t> n = stream_->Read(std::span<uint8_t>(buffer_.data() + filled_, chunk));
  if (n.ok()) filled_ += *n;
  return n;
}

absl::StatusOr<std::optional<std::span<const uint8_t>>> RecordTail::Next() {
  const size_t need = entry_size_ != 0 ? entry_size_ : 4;
  if (pending_bytes() < need) {
    absl::StatusOr<size_t> n = Fill(need - pending_bytes());
    if (!n.ok()) return n.status();
    if (pending_bytes() < need) return std::nullopt;
  }
  size_t size = entry_size_;
  if (size == 0) {
    const uint32_t len = format::LoadBig32(buffer_.data() + pos_);
    if (len <= format::kMinRecordLength || len > kMaxRecord) {
      return absl::DataLossError(
          absl::StrCat(path_, ": record at offset ", offset(), ": impossible length ", len));
    }
    if (pending_bytes() < len) {
      absl::StatusOr<size_t> n = Fill(len - pending_bytes());
      if (!n.ok()) return n.status();
      if (pending_bytes() < len) return std::nullopt;
    }
    const uint32_t trailer = format::LoadBig32(buffer_.data() + pos_ + len - 4);
    if (trailer != len) {
      return absl::DataLossError(absl::StrCat(path_, ": record at offset ", offset(),
                                              ": header length ", len, " != trailer length ",
                                              trailer));
    }
    size = len;
  }
  const std::span<const uint8_t> record(buffer_.data() + pos_, size);
  pos_ += size;
  return record;
}

absl::Status RecordTail::Seek(uint64_t offset) {
  const uint64_t end = buffer_offset_ + filled_;
  if (offset >= buffer_offset_ && offset <= end) {
    pos_ = static_cast<size_t>(offset - buffer_offset_);
    return absl::OkStatus();
  }
  if (offset > end) {
    if (absl::Status s = stream_->SkipTo(offset); !s.ok()) return s;
    filled_ = 0;
    buffer_offset_ = offset;
    pos_ = 0;
    released_ = std::max(released_, offset);
    return absl::OkStatus();
  }
  return Reopen(offset);
}

void RecordTail::Release(uint64_t offset) {
  released_ = std::max(released_, std::min(offset, this->offset()));
}

}  // namespace mmvlog::archiver

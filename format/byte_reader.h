// A bounds-checked cursor over a byte span. Reads past the end return zero
// and set a sticky error naming the offset; no decoder does its own
// `offset + size <= len` arithmetic.
#ifndef MMVLOG_FORMAT_BYTE_READER_H_
#define MMVLOG_FORMAT_BYTE_READER_H_

#include <cstdint>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace mmvlog::format {

class ByteReader {
 public:
  // `in` must outlive the reader. `base_offset` is added to every offset in
  // error messages, so a reader over a record reports file offsets.
  explicit ByteReader(std::span<const uint8_t> in, uint64_t base_offset = 0)
      : in_(in), base_(base_offset) {}

  uint32_t ReadBig32();
  uint64_t ReadBig64();
  uint16_t ReadBig16();
  uint8_t ReadU8();
  int32_t ReadBigI32() { return static_cast<int32_t>(ReadBig32()); }
  int64_t ReadBigI64() { return static_cast<int64_t>(ReadBig64()); }
  // Returns the next `n` bytes, or an empty span once failed.
  std::span<const uint8_t> ReadBytes(size_t n);
  // Skips `n` bytes.
  void Skip(size_t n) { (void)ReadBytes(n); }

  // Position relative to the start of `in`, and remaining bytes.
  size_t position() const { return pos_; }
  size_t remaining() const { return in_.size() - pos_; }
  // File offset of the cursor (base_offset + position).
  uint64_t offset() const { return base_ + pos_; }
  bool ok() const { return status_.ok(); }
  const absl::Status& status() const { return status_; }

  // Records a decoding error at the current offset unless one is already
  // recorded (the first error sticks).
  void Fail(absl::string_view message);

  // The first error, or DataLoss "N unexpected bytes left" if the input was
  // not consumed exactly, or OK.
  absl::Status Finish() const;

 private:
  bool Need(size_t n);

  std::span<const uint8_t> in_;
  uint64_t base_;
  size_t pos_ = 0;
  absl::Status status_;
};

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_BYTE_READER_H_

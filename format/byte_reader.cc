#include "format/byte_reader.h"

#include "absl/strings/str_cat.h"
#include "format/endian.h"
#include "format/errors.h"

namespace mmvlog::format {

bool ByteReader::Need(size_t n) {
  if (!status_.ok()) return false;
  if (n > remaining()) {
    status_ = ErrorAt(absl::StatusCode::kOutOfRange, offset(),
                      absl::StrCat("need ", n, " bytes, only ", remaining(),
                                   " left"));
    return false;
  }
  return true;
}

uint8_t ByteReader::ReadU8() {
  if (!Need(1)) return 0;
  return in_[pos_++];
}

uint16_t ByteReader::ReadBig16() {
  if (!Need(2)) return 0;
  uint16_t v = LoadBig16(in_.data() + pos_);
  pos_ += 2;
  return v;
}

uint32_t ByteReader::ReadBig32() {
  if (!Need(4)) return 0;
  uint32_t v = LoadBig32(in_.data() + pos_);
  pos_ += 4;
  return v;
}

uint64_t ByteReader::ReadBig64() {
  if (!Need(8)) return 0;
  uint64_t v = LoadBig64(in_.data() + pos_);
  pos_ += 8;
  return v;
}

std::span<const uint8_t> ByteReader::ReadBytes(size_t n) {
  if (!Need(n)) return {};
  std::span<const uint8_t> out = in_.subspan(pos_, n);
  pos_ += n;
  return out;
}

void ByteReader::Fail(absl::string_view message) {
  if (status_.ok()) status_ = DataLossAt(offset(), message);
}

absl::Status ByteReader::Finish() const {
  if (!status_.ok()) return status_;
  if (remaining() != 0) {
    return DataLossAt(offset(),
                      absl::StrCat(remaining(), " unexpected bytes left"));
  }
  return absl::OkStatus();
}

}  // namespace mmvlog::format

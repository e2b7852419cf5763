#include "format/archive/archive_framing.h"

#include <cassert>

#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/byte_reader.h"
#include "format/endian.h"
#include "format/errors.h"

namespace mmvlog::format {

void AppendFramed(std::span<const uint8_t> payload, std::vector<uint8_t>* out) {
  size_t begin = BeginFrame(out);
  out->insert(out->end(), payload.begin(), payload.end());
  EndFrame(begin, out);
}

size_t BeginFrame(std::vector<uint8_t>* out) {
  size_t begin = out->size();
  out->resize(begin + 4);
  return begin;
}

void EndFrame(size_t begin, std::vector<uint8_t>* out) {
  assert(begin + 4 <= out->size());
  const uint64_t length = out->size() - begin + 4;
  assert(length <= UINT32_MAX);
  out->resize(out->size() + 4);
  StoreBig32(out->data() + begin, static_cast<uint32_t>(length));
  StoreBig32(out->data() + out->size() - 4, static_cast<uint32_t>(length));
}

RecordScanner::RecordScanner(std::span<const uint8_t> data,
                             uint64_t base_offset)
    : data_(data), base_(base_offset) {}

absl::StatusOr<std::optional<Frame>> RecordScanner::Next() {
  if (!error_.ok()) return error_;
  if (pos_ == data_.size()) return std::optional<Frame>();
  ByteReader r(data_.subspan(pos_), offset());
  const uint32_t length = r.ReadBig32();
  if (!r.ok()) {
    error_ = ErrorAt(absl::StatusCode::kOutOfRange, offset(),
                     absl::StrCat("torn record: length field needs 4 bytes, "
                                  "only ", r.remaining(), " left"));
    return error_;
  }
  // A short length is damage even at the end of the data: no writer (not
  // even a torn one) produces it.
  if (length < kMinRecordLength) {
    error_ = DataLossAt(offset(), absl::StrCat("record length ", length,
                                               " < ", kMinRecordLength));
    return error_;
  }
  if (length - 4 > r.remaining()) {
    error_ = ErrorAt(absl::StatusCode::kOutOfRange, offset(),
                     absl::StrCat("torn record: length ", length, ", only ",
                                  data_.size() - pos_, " bytes left"));
    return error_;
  }
  std::span<const uint8_t> payload = r.ReadBytes(length - kFrameOverhead);
  const uint32_t trailer = r.ReadBig32();
  if (trailer != length) {
    error_ = DataLossAt(offset(), absl::StrCat("header length ", length,
                                               " != trailer length ", trailer));
    return error_;
  }
  Frame frame{offset(), payload};
  pos_ += length;
  return std::optional<Frame>(frame);
}

}  // namespace mmvlog::format

// Record framing for PCP archive volumes and .meta files (LOGARCHIVE(5),
// "RECORD FRAMING"): every record is its length N (4 bytes, big-endian,
// counting the whole record), N - 8 bytes of payload, and N again. The
// temporal index entries after the .index label are not framed.
//
// AppendFramed / BeginFrame / EndFrame build records in a caller-owned
// buffer; RecordScanner walks the records of a file already in memory. No
// I/O happens here.
#ifndef MMVLOG_FORMAT_ARCHIVE_ARCHIVE_FRAMING_H_
#define MMVLOG_FORMAT_ARCHIVE_ARCHIVE_FRAMING_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mmvlog::format {

// Appends length, payload, length to `out`.
// REQUIRES: payload.size() + kFrameOverhead fits in 32 bits.
void AppendFramed(std::span<const uint8_t> payload, std::vector<uint8_t>* out);

// In-place framing for encoders that write the payload straight into `out`:
//   size_t begin = BeginFrame(out);  ... append the payload ...
//   EndFrame(begin, out);
// BeginFrame reserves the leading length field and returns its position in
// `out`. EndFrame appends the trailing length and fills in both.
// REQUIRES (EndFrame): `begin` came from BeginFrame on the same vector, and
// the record fits in 32 bits.
size_t BeginFrame(std::vector<uint8_t>* out);
void EndFrame(size_t begin, std::vector<uint8_t>* out);

// One record found by RecordScanner.
struct Frame {
  uint64_t offset = 0;                // file offset of the leading length
  std::span<const uint8_t> payload;   // without both lengths; points into
                                      // the scanner's data
  // Size of the whole record on disk (payload + framing).
  uint64_t size() const { return payload.size() + 8; }
};

// Walks framed records over `data`, the bytes of a file from `base_offset`
// on (so offsets in frames and errors are file offsets). `data` must outlive
// the scanner and every Frame it returns.
//
// Next() returns:
//   - a Frame for each complete, consistent record, in order;
//   - std::nullopt at a clean end (the data ends exactly after a record);
//   - OutOfRange for a torn tail: the record (or its length field) runs past
//     the end of the data. The message names the record's offset, which is
//     where an appender may truncate;
//   - DataLoss for a length below kMinRecordLength or a trailing length
//     that differs from the leading one, naming the record's offset.
// Errors are sticky: once Next() failed it returns the same error again.
// Skipping damage is the caller's decision, not the scanner's.
class RecordScanner {
 public:
  RecordScanner(std::span<const uint8_t> data, uint64_t base_offset);

  absl::StatusOr<std::optional<Frame>> Next();

  // File offset of the next record to be read (after an error: of the
  // record that failed).
  uint64_t offset() const { return base_ + pos_; }

 private:
  std::span<const uint8_t> data_;
  uint64_t base_;
  size_t pos_ = 0;     // position in data_ of the next record
  absl::Status error_;  // first error, sticky
};

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_ARCHIVE_FRAMING_H_

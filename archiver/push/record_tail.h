// RecordTail: the complete records of one archive file from an offset on,
// as the file is written (pmproxy's discovery follows archives the same
// way): framed records of .meta and volumes (LOGARCHIVE(5) "RECORD
// FRAMING"), or the fixed-size entries of .index. The file may be plain and
// still growing, or finished and compressed (any suffix
// archiver/store/read_stream.h reads).
//
// A record that is not all there yet (being written, or a torn tail left by
// a crash) is not returned: Next() says "none now", and returns it once it
// is complete. ArchiveWriter writes each record in one write(2), and the
// kernel never shows a file size ahead of the bytes written, so a complete
// length with a wrong trailer is damage (DataLoss naming the file and
// offset), not a race.
//
// Bytes are kept from the last Release() on, so Seek() back to any offset
// at or after it costs no read (the pusher resends what pmproxy did not
// acknowledge from there). A seek further back opens the file again.
#ifndef MMVLOG_ARCHIVER_PUSH_RECORD_TAIL_H_
#define MMVLOG_ARCHIVER_PUSH_RECORD_TAIL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "archiver/store/read_stream.h"

namespace mmvlog::archiver {

class RecordTail {
 public:
  // Opens `path` to read from `offset` (a record boundary, usually the end
  // of the label). `entry_size`: 0 for framed records, else the size of an
  // .index entry. NotFound when the file does not exist.
  static absl::StatusOr<std::unique_ptr<RecordTail>> Open(const std::string& path,
                                                          uint64_t offset, size_t entry_size = 0);

  // The next complete record (framed bytes, or one index entry), or nullopt
  // when the file holds none at offset() now. The span stays valid until
  // the next call of any method.
  absl::StatusOr<std::optional<std::span<const uint8_t>>> Next();
  // File offset of the record Next() returns next.
  uint64_t offset() const { return buffer_offset_ + pos_; }
  // Reading goes on from `offset` (a record boundary). Errors as Open, or
  // the stream's when skipping forward in a compressed file.
  absl::Status Seek(uint64_t offset);
  // Bytes before `offset` are not needed again.
  void Release(uint64_t offset);
  // Bytes read past offset() that do not make a complete record yet.
  uint64_t pending_bytes() const { return filled_ - pos_; }
  const std::string& path() const { return path_; }
  bool compressed() const { return compressed_; }

 private:
  RecordTail(std::string path, size_t entry_size) : path_(std::move(path)), entry_size_(entry_size) {}
  absl::Status Reopen(uint64_t offset);
  // Reads more of the file; returns how many bytes were added.
  absl::StatusOr<size_t> Fill(size_t want);

  std::string path_;
  size_t entry_size_;
  bool compressed_ = false;
  std::unique_ptr<ReadStream> stream_;
  // buffer_[0, filled_) holds the file's bytes [buffer_offset_,
  // buffer_offset_ + filled_); pos_ indexes offset(); released_ is a file
  // offset.
  std::vector<uint8_t> buffer_;
  size_t filled_ = 0;
  uint64_t buffer_offset_ = 0;
  size_t pos_ = 0;
  uint64_t released_ = 0;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_RECORD_TAIL_H_

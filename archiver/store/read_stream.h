// ReadStream: a file read front to back, decompressed on the way when its
// name ends in a suffix libpcp reads transparently (io.c's compress_ctl):
//
//   .xz .lzma         liblzma (lzma_auto_decoder: xz and legacy lzma;
//                     SkipTo seeks .xz by block, pmlogcompress writes 10 MiB
//                     blocks)
//   .bz2 .bz          libbz2 (concatenated streams, as bzip2 -d)
//   .gz .z            zlib (gzip members, concatenated, as gzip -d)
//   .zst              libzstd (frames, concatenated)
//   .Z                `gzip -dc` (compress(1)'s LZW has no library in
//                     Debian; libpcp runs gzip for .Z too)
//
// Memory is bounded whatever the file's size: a fixed input buffer and the
// decoder's own state, never a whole-file buffer or a temporary copy.
// Damage (a truncated stream, a bad CRC, garbage) is DataLoss naming the
// file and the offset in the decompressed stream where it was found; the
// bytes before it have been returned.
#ifndef MMVLOG_ARCHIVER_STORE_READ_STREAM_H_
#define MMVLOG_ARCHIVER_STORE_READ_STREAM_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmvlog::archiver {

class ReadStream {
 public:
  virtual ~ReadStream() = default;
  // Reads up to out.size() bytes; fewer only at the end of the stream.
  virtual absl::StatusOr<size_t> Read(std::span<uint8_t> out) = 0;
  // Moves on to `offset` in the decompressed stream (at or after
  // position()), as if the bytes between had been read: a plain file seeks,
  // an .xz file starts at the compressed block holding `offset` (found in
  // the stream's own index, as `xz --list` finds it), the others decompress
  // and drop the bytes between (their formats have no index to seek by).
  // Errors as Read, for damage met on the way.
  virtual absl::Status SkipTo(uint64_t offset);
  // Bytes returned so far (the offset in the decompressed stream).
  uint64_t position() const { return position_; }
  const std::string& path() const { return path_; }

 protected:
  explicit ReadStream(std::string path) : path_(std::move(path)) {}
  std::string path_;
  uint64_t position_ = 0;
};

// The compression suffix of `name` (".xz", ..., ".Z"), or "" for none.
absl::string_view CompressionSuffix(absl::string_view name);

// Opens `path` as a stream, choosing the decoder by its suffix. NotFound
// when it does not exist.
absl::StatusOr<std::unique_ptr<ReadStream>> OpenReadStream(const std::string& path);

// Reads a whole stream (small files: .meta, .index).
absl::StatusOr<std::vector<uint8_t>> ReadWholeStream(ReadStream& in);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_READ_STREAM_H_

// zstd compression of finished archive volumes (<base>.N -> <base>.N.zst,
// which PCP reads from release 6.3.2 on) and decompression for our reader.
#ifndef MMVLOG_ARCHIVER_STORE_COMPRESS_H_
#define MMVLOG_ARCHIVER_STORE_COMPRESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mmvlog::archiver {

// The zstd level `mmvlog record --compress` uses unless told otherwise
// (its --compress_level default repeats it). Level 8 (zstd's lazy2 match
// finder) is the lowest that kept recorded volumes within 1.3x of
// `xz -6`'s size (1.13-1.24x on four value mixes), at 50-110x xz -6's
// speed; levels 1-7 gave up to 1.74x (level 3: 1.27-1.69x), 9-19 were at
// most 2 % smaller than 8 and slower. bench/compress_bench, bench/README.md.
inline constexpr int kDefaultCompressionLevel = 8;

// Streams `path` into `path`.zst (via a temporary name and rename, so a
// crash never leaves a partial .zst), then removes `path`. `level` is zstd's
// (1..19).
absl::Status CompressFile(const std::string& path, int level = kDefaultCompressionLevel);

// Reads a whole .zst file into memory. A truncated frame is DataLoss.
absl::StatusOr<std::vector<uint8_t>> ReadZstdFile(const std::string& path);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_COMPRESS_H_

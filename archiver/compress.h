// zstd compression of finished archive volumes (<base>.N -> <base>.N.zst,
// which PCP reads from release 6.3.2 on) and decompression for our reader.
#ifndef MMVLOG_ARCHIVER_COMPRESS_H_
#define MMVLOG_ARCHIVER_COMPRESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mmvlog::archiver {

// Streams `path` into `path`.zst (via a temporary name and rename, so a
// crash never leaves a partial .zst), then removes `path`. `level` is zstd's
// (1..19; 3 is zstd's default).
absl::Status CompressFile(const std::string& path, int level = 3);

// Reads a whole .zst file into memory. A truncated frame is DataLoss.
absl::StatusOr<std::vector<uint8_t>> ReadZstdFile(const std::string& path);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_COMPRESS_H_

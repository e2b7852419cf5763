// Compression of finished archive volumes: xz (<base>.N -> <base>.N.xz, which
// every libpcp reads in-process, and what pmlogger_daily writes) or zstd
// (<base>.N.zst, which PCP reads from release 6.3.2 on); zstd decompression
// for our reader.
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

// The xz preset pmlogger_daily (pmlogcompress) uses: xz -2, in blocks of
// 10 MiB so that a reader can start inside a volume (libpcp, replay -S).
inline constexpr int kDefaultXzLevel = 2;
inline constexpr uint64_t kXzBlockBytes = uint64_t{10} << 20;

// Streams `path` into `path`.xz as CompressFile does (temporary name,
// rename, then `path` removed); `level` is xz's preset (0..9).
absl::Status CompressFileXz(const std::string& path, int level = kDefaultXzLevel);

// How finished volumes are compressed.
enum class Codec { kNone, kXz, kZstd };

// ".xz", ".zst", or "" for kNone.
const char* CodecSuffix(Codec codec);

// What a PCP of `version` ("6.0.3", "7.2.0") reads in-process: zstd from
// 6.3.2 on, xz before (and xz when the version cannot be read: every libpcp
// with compression reads it).
Codec CodecPcpReads(const std::string& version);

// Compresses `path` with `codec` at its default level (`level` when > 0).
absl::Status CompressVolume(const std::string& path, Codec codec, int level = 0);

// Reads a whole .zst file into memory. A truncated frame is DataLoss.
absl::StatusOr<std::vector<uint8_t>> ReadZstdFile(const std::string& path);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_COMPRESS_H_

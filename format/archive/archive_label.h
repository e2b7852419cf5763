// The archive label: the first record of every archive file (.0 .. .N,
// .meta, .index). Normative: LOGARCHIVE(5), "ARCHIVE LABEL", versions 2 and
// 3. All three files of one archive carry the same label except `volume`.
// The v3 start seconds are stored in PCP's word order (V3SecondsWordSwap in
// archive_format.h), not as LOGARCHIVE(5) draws them.
#ifndef MMVLOG_FORMAT_ARCHIVE_ARCHIVE_LABEL_H_
#define MMVLOG_FORMAT_ARCHIVE_ARCHIVE_LABEL_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/archive/archive_types.h"

namespace mmvlog::format {

struct LogLabel {
  int version = 3;    // kLogVersion2 or kLogVersion3
  int32_t pid = 0;    // PID of the writing process
  Timestamp start;    // v2 keeps microseconds: nsec is truncated to usec
  int32_t volume = 0; // N for volume N, kVolumeMeta, kVolumeIndex
  uint32_t features = 0;  // v3 only (kLogFeatureNone); not stored in v2
  std::string hostname;   // v2: < 64 bytes, v3: < 256 bytes
  std::string timezone;   // $TZ style, e.g. "UTC"; v2: < 40, v3: < 256
  std::string zoneinfo;   // v3 only, e.g. ":Etc/UTC"; not stored in v2

  bool operator==(const LogLabel&) const = default;
};

// Appends the framed label record to `out`: 132 bytes (v2) or 808 (v3).
// Strings are NUL padded to their field width. In v2, `features`,
// `zoneinfo` and the sub-microsecond part of `start` are not stored.
// Returns InvalidArgument (and appends nothing) if the version is not 2 or
// 3, a string does not fit its field together with its NUL, a string holds
// a NUL, start.nsec >= 1e9, or (v2) start.sec does not fit 32 bits.
absl::Status EncodeLogLabel(const LogLabel& label, std::vector<uint8_t>* out);

// Decodes one label payload (framing removed). Since a label is always the
// first record of its file, error offsets are file offsets (payload at 4).
// Errors: InvalidArgument (bad magic: not an archive file), Unimplemented
// (a version other than 2 or 3), DataLoss (payload size does not match the
// version, a string not NUL terminated within its field, sub-second part
// out of range).
absl::StatusOr<LogLabel> DecodeLogLabel(std::span<const uint8_t> payload);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_ARCHIVE_LABEL_H_

// The state ParseMmv (format/mmv/mmv_reader.h) shares among the section
// parsers (mmv_toc, mmv_indoms, mmv_metrics, mmv_values, mmv_labels): the
// image, the file built so far, and lookups from entry offsets and serials to
// what was parsed. Not a public API.
//
// Order: the TOC first (it fills file.sections and the STRINGS bounds every
// later string needs), then indoms (which metrics name), metrics, values
// (which name metrics and instances) and labels. Each parser appends to
// `file` and fills the lookups the later ones use; none reads a section
// parsed after it.
#ifndef MMVLOG_FORMAT_MMV_MMV_PARSE_H_
#define MMVLOG_FORMAT_MMV_MMV_PARSE_H_

#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "format/endian.h"
#include "format/mmv/mmv_file.h"
#include "format/mmv/mmv_strings.h"

namespace mmvlog::format {

// The native-order struct T at `offset` of `bytes`.
// REQUIRES: [offset, offset + sizeof(T)) lies inside `bytes` (the caller has
// checked it against the section bounds).
template <typename T>
T LoadAt(std::span<const uint8_t> bytes, uint64_t offset) {
  return LoadNative<T>(bytes.data() + offset);
}

struct MmvParse {
  explicit MmvParse(std::span<const uint8_t> b) : bytes(b) {}

  // The section of `type`, or null when the TOC has none.
  const MmvSection* Find(MmvTocType type) const {
    for (const MmvSection& s : file.sections) {
      if (s.type == type) return &s;
    }
    return nullptr;
  }
  // Help text at `offset` (0 = none), referenced from `referrer`.
  absl::StatusOr<std::string> Help(uint64_t offset, uint64_t referrer) const {
    if (offset == 0) return std::string();
    return ReadMmvString(bytes, file, offset, referrer);
  }

  std::span<const uint8_t> bytes;
  MmvFile file;
  // Instance entry offset -> (indom index, instance index).
  absl::flat_hash_map<uint64_t, std::pair<int32_t, int32_t>> instance_at;
  // Metric entry offset -> metric index.
  absl::flat_hash_map<uint64_t, uint32_t> metric_at;
  // Indom serial -> indom index.
  absl::flat_hash_map<uint32_t, int32_t> indom_by_serial;
};

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_MMV_PARSE_H_

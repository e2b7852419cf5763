// The VALUES section of an MMV file (mmv(5)): value entries, each naming a
// metric entry and an instance entry, and the decoding of one value (the
// pmAtomValue union, its extra word, a string value's slot). Rules M24-M26,
// M30 of format/mmv/mmv_reader.h.
#ifndef MMVLOG_FORMAT_MMV_MMV_VALUES_H_
#define MMVLOG_FORMAT_MMV_MMV_VALUES_H_

#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/mmv/mmv_file.h"
#include "format/mmv/mmv_parse.h"

namespace mmvlog::format {

// Parses the VALUES section `s` of `p->bytes` into `p->file.values`.
// REQUIRES: ParseMmvMetrics ran (values name metric and instance entries).
absl::Status ParseMmvValues(const MmvSection& s, MmvParse* p);

// Decodes value `entry` of `file` from `bytes`, an image of the same file
// (same generation) whose values and string slots may be newer than the
// image `file` was parsed from. Errors: M30.
absl::StatusOr<MmvValue> ReadMmvValue(std::span<const uint8_t> bytes,
                                      const MmvFile& file,
                                      const MmvValueEntry& entry);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_MMV_VALUES_H_

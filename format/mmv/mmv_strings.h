// Strings of an MMV file (mmv(5)): C strings in fixed-width fields (v1
// names, label payloads) and in the STRINGS section, which v2 and v3 names,
// help texts and string values point into. Rules M14, M15, M30 of
// format/mmv/mmv_reader.h. Pure: bytes in, strings out.
#ifndef MMVLOG_FORMAT_MMV_MMV_STRINGS_H_
#define MMVLOG_FORMAT_MMV_MMV_STRINGS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/mmv/mmv_file.h"

namespace mmvlog::format {

// The C string in the `width`-byte field at `offset` of `bytes`; DataLoss at
// `offset` naming `what` when it has no NUL (M15).
// REQUIRES: [offset, offset + width) lies inside `bytes`.
absl::StatusOr<std::string> FixedMmvString(std::span<const uint8_t> bytes,
                                           uint64_t offset, size_t width,
                                           absl::string_view what);

// Decodes the string slot at `offset` of an image (M14, M15). `referrer` is
// the offset of the field that holds `offset`, named in errors. Anywhere
// inside the STRINGS section is read, as PCP does.
absl::StatusOr<std::string> ReadMmvString(std::span<const uint8_t> bytes,
                                          const MmvFile& file, uint64_t offset,
                                          uint64_t referrer);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_MMV_STRINGS_H_

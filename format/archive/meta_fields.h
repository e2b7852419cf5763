// Fields shared by the .meta record codecs (meta_desc, meta_indom,
// meta_label, meta_text): the archive version check, the v2/v3 timestamp
// layouts, and small byte helpers. Not a public API: callers outside the
// meta codecs use format/archive/archive_meta.h.
//
// Timestamps: v2 records hold seconds (32-bit) and microseconds; v3 records
// hold seconds (64-bit, words swapped as libpcp writes them: see
// V3SecondsWordSwap in archive_format.h) and nanoseconds.
#ifndef MMVLOG_FORMAT_ARCHIVE_META_FIELDS_H_
#define MMVLOG_FORMAT_ARCHIVE_META_FIELDS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_types.h"
#include "format/byte_reader.h"

namespace mmvlog::format::meta_internal {

constexpr uint32_t Tag(MetaType t) { return static_cast<uint32_t>(t); }

// Appends the bytes of `s` (no terminator).
void PutBytes(absl::string_view s, std::vector<uint8_t>* out);

bool HasNul(absl::string_view s);

// OK for archive versions 2 and 3; InvalidArgument otherwise.
absl::Status CheckVersion(int version);

// InvalidArgument when `t` cannot be written: nanoseconds of a second or
// more, or (v2) seconds outside 32 bits.
absl::Status CheckTimestamp(bool v3, const Timestamp& t);

// Appends `t` in the v3 or v2 layout. REQUIRES: CheckTimestamp(v3, t) is OK.
void PutTimestamp(bool v3, const Timestamp& t, std::vector<uint8_t>* out);

// Reads a timestamp; on a sub-second field out of range returns false with
// `*error` set (DataLoss naming the field's offset).
bool ReadTimestamp(bool v3, ByteReader& r, Timestamp* t, absl::Status* error);

}  // namespace mmvlog::format::meta_internal

#endif  // MMVLOG_FORMAT_ARCHIVE_META_FIELDS_H_

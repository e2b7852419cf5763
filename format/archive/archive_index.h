// Temporal index entries: the unframed, fixed-size tuples that follow the
// label in an archive's .index file. Normative: LOGARCHIVE(5), "INDEX FILE
// (.index) RECORDS", versions 2 (20 bytes) and 3 (32 bytes). The v3 seconds
// are stored in PCP's word order (V3SecondsWordSwap in archive_format.h);
// the v3 offsets are plain big-endian 64-bit.
//
// An entry says: at `timestamp`, the volume `volume` had `data_offset` bytes
// and .meta had `meta_offset` bytes; no record physically before those
// offsets is later than `timestamp`.
#ifndef MMVLOG_FORMAT_ARCHIVE_ARCHIVE_INDEX_H_
#define MMVLOG_FORMAT_ARCHIVE_ARCHIVE_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/archive/archive_types.h"

namespace mmvlog::format {

struct IndexEntry {
  Timestamp timestamp;  // v2 keeps microseconds: nsec is truncated to usec
  int32_t volume = 0;
  uint64_t meta_offset = 0;  // byte offset in .meta
  uint64_t data_offset = 0;  // byte offset in volume `volume`

  bool operator==(const IndexEntry&) const = default;
};

// Size of one entry on disk: kIndexEntryV2 or kIndexEntryV3.
// REQUIRES: version is kLogVersion2 or kLogVersion3.
size_t IndexEntrySize(int version);

// Appends one unframed entry (20 bytes v2, 32 bytes v3) to `out`.
// Returns InvalidArgument (appending nothing) for a version other than 2 or
// 3, nsec >= 1e9, or in v2 an offset above kV2MaxFileSize (PCP's limit:
// v2 offsets are signed 32-bit, e_index.c gives E2BIG) or seconds that do
// not fit 32 bits.
absl::Status EncodeIndexEntry(int version, const IndexEntry& e,
                              std::vector<uint8_t>* out);

// Decodes exactly one entry. Error offsets are relative to `in`; the caller
// adds the file and position with WithContext.
// Errors: Unimplemented (version), DataLoss (`in` is not exactly one entry,
// sub-second part out of range).
absl::StatusOr<IndexEntry> DecodeIndexEntry(int version,
                                            std::span<const uint8_t> in);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_ARCHIVE_INDEX_H_

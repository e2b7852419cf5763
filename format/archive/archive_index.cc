#include "format/archive/archive_index.h"

#include <cassert>
#include <limits>

#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/byte_reader.h"
#include "format/endian.h"
#include "format/errors.h"

namespace mmvlog::format {

size_t IndexEntrySize(int version) {
  assert(version == kLogVersion2 || version == kLogVersion3);
  return version == kLogVersion2 ? kIndexEntryV2 : kIndexEntryV3;
}

absl::Status EncodeIndexEntry(int version, const IndexEntry& e,
                              std::vector<uint8_t>* out) {
  if (version != kLogVersion2 && version != kLogVersion3) {
    return absl::InvalidArgumentError(
        absl::StrCat("index version ", version, " is not 2 or 3"));
  }
  if (e.timestamp.nsec >= kNsecPerSec) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index entry nanoseconds ", e.timestamp.nsec, " out of range"));
  }
  if (version == kLogVersion2) {
    if (e.meta_offset > kV2MaxFileSize || e.data_offset > kV2MaxFileSize) {
      return absl::InvalidArgumentError(absl::StrCat(
          "index entry offsets (meta ", e.meta_offset, ", volume ",
          e.data_offset, ") exceed the v2 limit ", kV2MaxFileSize));
    }
    if (e.timestamp.sec < std::numeric_limits<int32_t>::min() ||
        e.timestamp.sec > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "index entry time ", e.timestamp.sec, " s does not fit v2"));
    }
    uint8_t* p = &*out->insert(out->end(), kIndexEntryV2, 0);
    StoreBig32(p, static_cast<uint32_t>(e.timestamp.sec));
    StoreBig32(p + 4, e.timestamp.nsec / 1000);
    StoreBig32(p + 8, static_cast<uint32_t>(e.volume));
    StoreBig32(p + 12, static_cast<uint32_t>(e.meta_offset));
    StoreBig32(p + 16, static_cast<uint32_t>(e.data_offset));
  } else {
    uint8_t* p = &*out->insert(out->end(), kIndexEntryV3, 0);
    StoreBig64(p, V3SecondsWordSwap(static_cast<uint64_t>(e.timestamp.sec)));
    StoreBig32(p + 8, e.timestamp.nsec);
    StoreBig32(p + 12, static_cast<uint32_t>(e.volume));
    StoreBig64(p + 16, e.meta_offset);
    StoreBig64(p + 24, e.data_offset);
  }
  return absl::OkStatus();
}

absl::StatusOr<IndexEntry> DecodeIndexEntry(int version,
                                            std::span<const uint8_t> in) {
  if (version != kLogVersion2 && version != kLogVersion3) {
    return absl::UnimplementedError(
        absl::StrCat("index version ", version, " not supported"));
  }
  const bool v2 = version == kLogVersion2;
  const size_t expected = v2 ? kIndexEntryV2 : kIndexEntryV3;
  if (in.size() != expected) {
    return DataLossAt(0, absl::StrCat("version ", version, " index entry is ",
                                      in.size(), " bytes, expected ",
                                      expected));
  }
  ByteReader r(in);
  IndexEntry e;
  if (v2) {
    e.timestamp.sec = r.ReadBigI32();
    const uint32_t usec = r.ReadBig32();
    if (usec >= kUsecPerSec) {
      return DataLossAt(4, absl::StrCat("index entry microseconds ", usec,
                                        " out of range"));
    }
    e.timestamp.nsec = usec * 1000;
    e.volume = r.ReadBigI32();
    e.meta_offset = r.ReadBig32();
    e.data_offset = r.ReadBig32();
  } else {
    e.timestamp.sec = static_cast<int64_t>(V3SecondsWordSwap(r.ReadBig64()));
    e.timestamp.nsec = r.ReadBig32();
    if (e.timestamp.nsec >= kNsecPerSec) {
      return DataLossAt(8, absl::StrCat("index entry nanoseconds ",
                                        e.timestamp.nsec, " out of range"));
    }
    e.volume = r.ReadBigI32();
    e.meta_offset = r.ReadBig64();
    e.data_offset = r.ReadBig64();
  }
  if (absl::Status s = r.Finish(); !s.ok()) return s;
  return e;
}

}  // namespace mmvlog::format

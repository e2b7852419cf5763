#include "format/archive/meta_fields.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "format/byte_writer.h"
#include "format/errors.h"

namespace mmvlog::format::meta_internal {

void PutBytes(absl::string_view s, std::vector<uint8_t>* out) {
  out->insert(out->end(), s.begin(), s.end());
}

bool HasNul(absl::string_view s) {
  return s.find('\0') != absl::string_view::npos;
}

absl::Status CheckVersion(int version) {
  if (version != kLogVersion2 && version != kLogVersion3) {
    return absl::InvalidArgumentError(
        absl::StrCat("archive version ", version, " is neither 2 nor 3"));
  }
  return absl::OkStatus();
}

absl::Status CheckTimestamp(bool v3, const Timestamp& t) {
  if (t.nsec >= kNsecPerSec) {
    return absl::InvalidArgumentError(
        absl::StrCat("timestamp nanoseconds ", t.nsec, " out of range"));
  }
  if (!v3 && (t.sec < std::numeric_limits<int32_t>::min() ||
              t.sec > std::numeric_limits<int32_t>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat("timestamp ", t.sec, " s does not fit a v2 archive"));
  }
  return absl::OkStatus();
}

void PutTimestamp(bool v3, const Timestamp& t, std::vector<uint8_t>* out) {
  if (v3) {
    AppendBig64(V3SecondsWordSwap(static_cast<uint64_t>(t.sec)), out);
    AppendBig32(t.nsec, out);
  } else {
    AppendBig32(static_cast<uint32_t>(static_cast<int32_t>(t.sec)), out);
    AppendBig32(t.nsec / 1000, out);
  }
}

bool ReadTimestamp(bool v3, ByteReader& r, Timestamp* t, absl::Status* error) {
  const uint64_t at = r.offset();
  if (v3) {
    t->sec = static_cast<int64_t>(V3SecondsWordSwap(r.ReadBig64()));
    t->nsec = r.ReadBig32();
    if (r.ok() && t->nsec >= kNsecPerSec) {
      *error = DataLossAt(at + 8, absl::StrCat("timestamp nanoseconds ",
                                               t->nsec, " out of range"));
      return false;
    }
  } else {
    t->sec = r.ReadBigI32();
    const uint32_t usec = r.ReadBig32();
    if (r.ok() && usec >= kUsecPerSec) {
      *error = DataLossAt(at + 4, absl::StrCat("timestamp microseconds ", usec,
                                               " out of range"));
      return false;
    }
    t->nsec = usec * 1000;
  }
  return true;
}

}  // namespace mmvlog::format::meta_internal

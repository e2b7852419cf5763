// Small value types shared by the archive encoders and decoders.
#ifndef MMVLOG_FORMAT_ARCHIVE_ARCHIVE_TYPES_H_
#define MMVLOG_FORMAT_ARCHIVE_ARCHIVE_TYPES_H_

#include <compare>
#include <cstdint>

#include "absl/time/time.h"

namespace mmvlog::format {

// An archive timestamp: seconds since the epoch and nanoseconds (v3). v2
// records hold microseconds; encoders truncate nsec / 1000.
struct Timestamp {
  int64_t sec = 0;
  uint32_t nsec = 0;  // 0 .. 999'999'999

  auto operator<=>(const Timestamp&) const = default;
  bool operator==(const Timestamp&) const = default;
};

inline Timestamp ToTimestamp(absl::Time t) {
  const int64_t ns = absl::ToUnixNanos(t);
  int64_t sec = ns / 1'000'000'000;
  int64_t nsec = ns % 1'000'000'000;
  if (nsec < 0) {
    nsec += 1'000'000'000;
    --sec;
  }
  return {sec, static_cast<uint32_t>(nsec)};
}

inline absl::Time ToAbslTime(Timestamp t) {
  return absl::FromUnixSeconds(t.sec) + absl::Nanoseconds(t.nsec);
}

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_ARCHIVE_TYPES_H_

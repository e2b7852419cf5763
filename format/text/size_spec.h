// pmlogger's size syntax (pmlogger(1), -s endsize and -v volsize), and plain
// byte sizes for options that take only sizes.
//
//   endsize := integer                      a number of samples (records)
//            | integer bytesunit            bytes
//            | interval                     a duration (format/text/pcp_interval.h)
//   bytesunit := b | byte | k | kb | kib | kbyte | kibibyte | kilobyte
//              | m | mb | mib | mbyte | mebibyte | megabyte
//              | g | gb | gib | gbyte | gibibyte | gigabyte
//                any case, optionally with a trailing "s"; K, M, G are 1024-based
//
// Note that, as in pmlogger, "10m" is 10 MiB, while "10min" is ten minutes.
#ifndef MMVLOG_FORMAT_TEXT_SIZE_SPEC_H_
#define MMVLOG_FORMAT_TEXT_SIZE_SPEC_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace mmvlog::format {

struct EndSize {
  enum Kind { kSamples, kBytes, kDuration };
  Kind kind = kSamples;
  uint64_t samples = 0;         // kSamples
  uint64_t bytes = 0;           // kBytes
  absl::Duration duration;      // kDuration
};

// Parses an endsize. InvalidArgument naming the text when it is none of the
// forms above, zero, or too large.
absl::StatusOr<EndSize> ParseEndSize(absl::string_view text);

// Parses a size in bytes: an integer with an optional bytes unit as above
// ("100M", "2G", "512K", "10Gbyte"; a plain number is bytes). Zero and sizes
// past 2^63 are InvalidArgument.
absl::StatusOr<uint64_t> ParseByteSize(absl::string_view text);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_TEXT_SIZE_SPEC_H_

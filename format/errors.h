// Error helpers shared by all decoders: messages name the byte offset first,
// and callers that know the file add its name with WithContext.
// Message style: lower case, no trailing period,
// "<file>: offset <N>: <what was expected and what was found>".
#ifndef MMVLOG_FORMAT_ERRORS_H_
#define MMVLOG_FORMAT_ERRORS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace mmvlog::format {

// DataLoss: structure inconsistent at `offset` ("offset <N>: <message>").
absl::Status DataLossAt(uint64_t offset, absl::string_view message);

// Same message with a caller-chosen code (InvalidArgument for bad magic,
// Unimplemented for unknown versions, OutOfRange for a torn tail, ...).
absl::Status ErrorAt(absl::StatusCode code, uint64_t offset,
                     absl::string_view message);

// Returns `status` with "<context>: " prefixed to its message, keeping the
// code. OK stays OK.
absl::Status WithContext(const absl::Status& status, absl::string_view context);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ERRORS_H_

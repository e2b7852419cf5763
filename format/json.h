// Minimal JSON text helpers for machine-readable output (inspect --json,
// replay --json): string escaping and shortest round-trip numbers.
#ifndef MMVLOG_FORMAT_JSON_H_
#define MMVLOG_FORMAT_JSON_H_

#include <string>

#include "absl/strings/string_view.h"

namespace mmvlog::format {

// `s` as a quoted JSON string (RFC 8259): UTF-8 as it is, '"', '\\' and
// bytes below 0x20 escaped, bytes that are not UTF-8 as U+FFFD
// (format/utf8.h), so every JSON reader reads the characters written.
std::string JsonString(absl::string_view s);

// A double in the shortest form that reads back to the same value; NaN and
// infinities (not JSON numbers) become null.
std::string JsonNumber(double v);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_JSON_H_

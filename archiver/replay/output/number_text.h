// How replay writes numbers and CSV fields, shared by every text output.
// Numbers: as printf's "%.3f" with trailing zeros and then a trailing point
// removed ("12.5", "3", every digit of a large one, as pmrep prints it), or
// as "%.6g" when 0 < |v| < 1e-3:
// the same bytes as printf for every double (tests/archiver/
// number_text_test.cc checks it against printf), without printf.
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_NUMBER_TEXT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_NUMBER_TEXT_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace mmvlog::archiver {

// The longest text WriteNumber writes: 309 digits of the largest double
// and a sign.
inline constexpr size_t kMaxNumberText = 320;

// Writes the text of `v` at `p` (at most kMaxNumberText bytes); returns the end.
char* WriteNumber(double v, char* p);
void AppendNumber(double v, std::string* out);
std::string NumberText(double v);

// Appends `s` as one CSV field (RFC 4180): as it is, or quoted with its
// quotes doubled when it holds a comma, a quote or a line break; bytes
// that are not UTF-8 as U+FFFD.
void AppendCsvField(absl::string_view s, std::string* out);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_NUMBER_TEXT_H_

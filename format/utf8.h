// Text as every output shows it: valid UTF-8 passes through unchanged, and
// bytes that are not UTF-8 become U+FFFD (the replacement character), one
// for each maximal ill-formed subpart, as Unicode's "U+FFFD substitution of
// maximal subparts" and Python's errors="replace" do. MMV strings, names,
// help texts and archive strings carry no declared encoding; applications
// (libpcp_mmv, Parfait, python pcp.mmv, Speed) write UTF-8.
#ifndef MMVLOG_FORMAT_UTF8_H_
#define MMVLOG_FORMAT_UTF8_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace mmvlog::format {

// The length of the valid UTF-8 sequence at the start of `s` (1 to 4), or
// 0 when it is ill-formed; `*bad` is then the length of its maximal
// ill-formed subpart (at least 1). REQUIRES: !s.empty().
size_t Utf8SequenceLength(absl::string_view s, size_t* bad);

// True when all of `s` is valid UTF-8.
bool IsValidUtf8(absl::string_view s);

// `s` with each maximal ill-formed subpart replaced by U+FFFD.
std::string ValidUtf8(absl::string_view s);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_UTF8_H_

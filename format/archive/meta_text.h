// The help text record of a PCP archive's .meta file (TYPE_TEXT), the same
// in v2 and v3: one-line or long help of a metric or an instance domain.
// LOGARCHIVE(5) "METADATA FILE (.meta) RECORDS"; format/archive/archive_meta.h
// gathers every record kind and decodes a payload by its tag.
//
// Layout after the tag: type, ident, then the text with its NUL, which ends
// the record. Pure: nothing here does I/O.
#ifndef MMVLOG_FORMAT_ARCHIVE_META_TEXT_H_
#define MMVLOG_FORMAT_ARCHIVE_META_TEXT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/byte_reader.h"

namespace mmvlog::format {

// Help text of a metric or an instance domain (TYPE_TEXT).
struct HelpText {
  uint32_t type = 0;  // (kTextOneLine or kTextHelp) | (kTextPmid or kTextIndom)
  uint32_t ident = 0;  // the PMID or the indom
  std::string text;    // stored with a NUL terminator; must not contain NUL

  bool operator==(const HelpText&) const = default;
};

// Appends one framed TYPE_TEXT record to `out`; on error appends nothing.
// InvalidArgument for a type that is not one kind with one ident kind, or
// a text containing NUL.
absl::Status EncodeHelpText(const HelpText& text, std::vector<uint8_t>* out);

// Decodes the rest of a TYPE_TEXT payload from `r`, positioned after the
// tag. DataLoss (with offsets) for a type without a kind or an ident kind
// (libpcp would misread the next record), a text without its NUL, or bytes
// after the NUL.
absl::StatusOr<HelpText> DecodeHelpTextBody(ByteReader& r);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_META_TEXT_H_

#include "format/archive/meta_text.h"

#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_framing.h"
#include "format/byte_writer.h"
#include "format/errors.h"
#include "format/archive/meta_fields.h"

namespace mmvlog::format {
namespace {

absl::Status CheckTextType(uint32_t type) {
  const uint32_t kind = type & (kTextOneLine | kTextHelp);
  const uint32_t ident = type & (kTextPmid | kTextIndom);
  if ((kind != kTextOneLine && kind != kTextHelp) ||
      (ident != kTextPmid && ident != kTextIndom) ||
      (type & ~(kTextOneLine | kTextHelp | kTextPmid | kTextIndom)) != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "text type 0x%x is not one of one-line/help with PMID/indom", type));
  }
  return absl::OkStatus();
}

}  // namespace

using meta_internal::HasNul;
using meta_internal::PutBytes;
using meta_internal::Tag;

absl::Status EncodeHelpText(const HelpText& text, std::vector<uint8_t>* out) {
  if (absl::Status s = CheckTextType(text.type); !s.ok()) return s;
  if (HasNul(text.text)) {
    return absl::InvalidArgumentError("help text contains NUL");
  }
  const size_t begin = BeginFrame(out);
  AppendBig32(Tag(MetaType::kText), out);
  AppendBig32(text.type, out);
  AppendBig32(text.ident, out);
  PutBytes(text.text, out);
  out->push_back(0);
  EndFrame(begin, out);
  return absl::OkStatus();
}

absl::StatusOr<HelpText> DecodeHelpTextBody(ByteReader& r) {
  HelpText t;
  const uint64_t type_at = r.offset();
  t.type = r.ReadBig32();
  t.ident = r.ReadBig32();
  const uint64_t text_at = r.offset();
  std::span<const uint8_t> bytes = r.ReadBytes(r.remaining());
  if (!r.ok()) return r.status();
  // libpcp needs a kind and an ident kind (it ignores the record otherwise,
  // without reading its trailer, so the next record is misread).
  if ((t.type & (kTextOneLine | kTextHelp)) == 0 ||
      (t.type & (kTextPmid | kTextIndom)) == 0) {
    return DataLossAt(type_at, absl::StrFormat("text type 0x%x lacks a kind "
                                               "or an ident kind",
                                               t.type));
  }
  const absl::string_view text(reinterpret_cast<const char*>(bytes.data()),
                               bytes.size());
  const size_t nul = text.find('\0');
  if (nul == absl::string_view::npos) {
    return DataLossAt(
        text_at, absl::StrCat("text of ", text.size(), " bytes has no NUL"));
  }
  if (nul + 1 != text.size()) {
    return DataLossAt(text_at + nul + 1,
                      absl::StrCat(text.size() - nul - 1,
                                   " unexpected bytes after the text's NUL"));
  }
  t.text = std::string(text.substr(0, nul));
  return t;
}

}  // namespace mmvlog::format

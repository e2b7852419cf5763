#include "format/archive/archive_meta.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "format/byte_reader.h"
#include "format/errors.h"
#include "format/archive/meta_fields.h"

namespace mmvlog::format {
namespace {

// The reader's "need N bytes" errors are OutOfRange (a torn tail) when they
// concern a file; inside a payload whose framing was intact they mean the
// record contradicts its own length.
absl::Status AsDataLoss(const absl::Status& s) {
  if (s.code() == absl::StatusCode::kOutOfRange) {
    return absl::DataLossError(s.message());
  }
  return s;
}

}  // namespace

absl::StatusOr<MetaRecord> DecodeMetaRecord(int version,
                                            std::span<const uint8_t> payload,
                                            uint64_t record_offset) {
  if (absl::Status s = meta_internal::CheckVersion(version); !s.ok()) {
    return s;
  }
  // Offsets in messages are file offsets: the payload follows the leading
  // length field.
  ByteReader r(payload, record_offset + 4);
  const uint32_t tag = r.ReadBig32();
  absl::StatusOr<MetaRecord> rec;
  absl::string_view kind;
  switch (static_cast<MetaType>(tag)) {
    case MetaType::kDesc:
      kind = "desc";
      rec = DecodeDescBody(r);
      break;
    case MetaType::kInDomV2:
    case MetaType::kInDom:
    case MetaType::kInDomDelta:
      kind = "indom";
      rec = DecodeInDomBody(static_cast<MetaType>(tag), r);
      break;
    case MetaType::kLabelV2:
    case MetaType::kLabel:
      kind = "label";
      rec = DecodeLabelRecordBody(static_cast<MetaType>(tag), r);
      break;
    case MetaType::kText:
      kind = "text";
      rec = DecodeHelpTextBody(r);
      break;
    default:
      if (!r.ok()) {
        kind = "meta";
        rec = r.status();
      } else {
        return WithContext(
            DataLossAt(record_offset + 4,
                       absl::StrCat("unknown record type ", tag)),
            absl::StrCat("meta record at offset ", record_offset));
      }
  }
  if (!rec.ok()) {
    return WithContext(AsDataLoss(rec.status()),
                       absl::StrCat(kind, " record at offset ", record_offset));
  }
  return rec;
}

}  // namespace mmvlog::format

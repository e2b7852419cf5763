// The records of a PCP archive's .meta file, versions 2 and 3: metric
// descriptors, instance domains (full, and v3 deltas), label sets and help
// text. Normative source: LOGARCHIVE(5) "METADATA FILE (.meta) RECORDS"
// (shared/spec/LOGARCHIVE.5.txt), corrected where it differs from what libpcp
// writes; format/archive/archive_format.h records each correction with its evidence.
//
// One file pair per record kind, each with its encoder and the decoder of
// its payload after the tag: meta_desc (TYPE_DESC), meta_indom (TYPE_INDOM_V2,
// TYPE_INDOM, TYPE_INDOM_DELTA), meta_label (TYPE_LABEL_V2, TYPE_LABEL) and
// meta_text (TYPE_TEXT); label_json builds label sets as libpcp does. This
// header gathers them: MetaRecord, one of the four, and DecodeMetaRecord,
// which picks the decoder by the record's tag.
//
// Encoders append one framed record (length, payload, length) to a
// caller-owned buffer and on error append nothing; DecodeMetaRecord takes
// one payload with the framing already removed (RecordScanner in
// archive_framing.h). Nothing here does I/O.
#ifndef MMVLOG_FORMAT_ARCHIVE_ARCHIVE_META_H_
#define MMVLOG_FORMAT_ARCHIVE_ARCHIVE_META_H_

#include <cstdint>
#include <span>
#include <variant>

#include "absl/status/statusor.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_types.h"
#include "format/archive/label_json.h"
#include "format/archive/meta_desc.h"
#include "format/archive/meta_indom.h"
#include "format/archive/meta_label.h"
#include "format/archive/meta_text.h"

namespace mmvlog::format {

using MetaRecord = std::variant<Desc, InDom, LabelRecord, HelpText>;

// Decodes one .meta payload (framing removed). `record_offset` is the file
// offset of the record's leading length field; error messages name it and
// the offset of the offending field. The record's tag selects its layout,
// so, as libpcp does, a v2 tag in a v3 archive (or the reverse) is decoded
// (pmlogcheck reports such records as "unexpected record type").
// Return values: the record; InvalidArgument if `version` is not 2 or 3;
// DataLoss (with offsets) for an unknown tag, a payload shorter or longer
// than its contents, or contents libpcp rejects or cannot use (negative
// counts, a negative instance id, a string offset outside the string table
// or a name without its NUL, offset -1 outside a delta record, too many
// labels or too long a json, label offsets outside the json, a text without
// its NUL or with an invalid type).
absl::StatusOr<MetaRecord> DecodeMetaRecord(int version,
                                            std::span<const uint8_t> payload,
                                            uint64_t record_offset);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_ARCHIVE_META_H_

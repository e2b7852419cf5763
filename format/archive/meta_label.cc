#include "format/archive/meta_label.h"

#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/archive/archive_framing.h"
#include "format/byte_writer.h"
#include "format/errors.h"
#include "format/archive/meta_fields.h"

namespace mmvlog::format {
namespace {

using meta_internal::HasNul;

bool IsLabelType(uint32_t type) {
  return type == kLabelContext || type == kLabelDomain || type == kLabelIndom ||
         type == kLabelCluster || type == kLabelItem || type == kLabelInstances;
}

absl::Status CheckLabelSet(size_t index, const LabelSet& set) {
  const std::string where = absl::StrCat("label set ", index, ": ");
  if (set.json.size() > kMaxLabelJsonLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "json of ", set.json.size(), " bytes exceeds ",
                     kMaxLabelJsonLength));
  }
  if (HasNul(set.json)) {
    return absl::InvalidArgumentError(absl::StrCat(where, "json contains NUL"));
  }
  if (set.labels.size() > kMaxLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, set.labels.size(), " labels exceed ", kMaxLabels));
  }
  if (set.error > 0 || (set.error < 0 && !set.labels.empty())) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "error ", set.error, " must be negative and without labels"));
  }
  for (size_t i = 0; i < set.labels.size(); ++i) {
    const LabelEntry& l = set.labels[i];
    if (size_t{l.name_offset} + l.name_length > set.json.size() ||
        size_t{l.value_offset} + l.value_length > set.json.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "label ", i, " (name ", l.name_offset, "+", l.name_length,
          ", value ", l.value_offset, "+", l.value_length,
          ") lies outside the ", set.json.size(), "-byte json"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

using meta_internal::CheckTimestamp;
using meta_internal::CheckVersion;
using meta_internal::PutBytes;
using meta_internal::PutTimestamp;
using meta_internal::ReadTimestamp;
using meta_internal::Tag;

absl::Status EncodeLabelRecord(int version, const LabelRecord& record,
                               std::vector<uint8_t>* out) {
  if (absl::Status s = CheckVersion(version); !s.ok()) return s;
  const bool v3 = version == kLogVersion3;
  if (absl::Status s = CheckTimestamp(v3, record.timestamp); !s.ok()) return s;
  if (!IsLabelType(record.type)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "label type 0x%x is not one of context..instances", record.type));
  }
  if (record.sets.size() > static_cast<size_t>(INT32_MAX / kLabelSetFixed)) {
    return absl::InvalidArgumentError("too many label sets");
  }
  for (size_t i = 0; i < record.sets.size(); ++i) {
    if (absl::Status s = CheckLabelSet(i, record.sets[i]); !s.ok()) return s;
  }
  const size_t begin = BeginFrame(out);
  AppendBig32(Tag(v3 ? MetaType::kLabel : MetaType::kLabelV2), out);
  PutTimestamp(v3, record.timestamp, out);
  AppendBig32(record.type, out);
  AppendBig32(record.ident, out);
  AppendBig32(static_cast<uint32_t>(record.sets.size()), out);
  for (const LabelSet& set : record.sets) {
    AppendBig32(static_cast<uint32_t>(set.inst), out);
    AppendBig32(static_cast<uint32_t>(set.json.size()), out);
    PutBytes(set.json, out);
    AppendBig32(set.error < 0 ? static_cast<uint32_t>(set.error)
                           : static_cast<uint32_t>(set.labels.size()),
             out);
    for (const LabelEntry& l : set.labels) {
      AppendBig16(l.name_offset, out);
      out->push_back(l.name_length);
      out->push_back(l.flags);
      AppendBig16(l.value_offset, out);
      AppendBig16(l.value_length, out);
    }
  }
  EndFrame(begin, out);
  return absl::OkStatus();
}

absl::StatusOr<LabelRecord> DecodeLabelRecordBody(MetaType tag, ByteReader& r) {
  LabelRecord rec;
  absl::Status error;
  if (!ReadTimestamp(tag == MetaType::kLabel, r, &rec.timestamp, &error)) {
    return error;
  }
  const uint64_t type_at = r.offset();
  rec.type = r.ReadBig32();
  rec.ident = r.ReadBig32();
  const uint64_t count_at = r.offset();
  const int32_t nsets = r.ReadBigI32();
  if (!r.ok()) return r.status();
  if (!IsLabelType(rec.type)) {
    return DataLossAt(type_at, absl::StrFormat("label type 0x%x is not one of "
                                               "context..instances",
                                               rec.type));
  }
  if (nsets < 0 ||
      static_cast<size_t>(nsets) > r.remaining() / kLabelSetFixed) {
    return DataLossAt(
        count_at, absl::StrCat("label set count ", nsets, " does not fit the ",
                               r.remaining(), " bytes left"));
  }
  for (int32_t i = 0; i < nsets; ++i) {
    LabelSet set;
    set.inst = r.ReadBigI32();
    const uint64_t len_at = r.offset();
    const int32_t jsonlen = r.ReadBigI32();
    if (!r.ok()) return r.status();
    if (jsonlen < 0 || static_cast<size_t>(jsonlen) > kMaxLabelJsonLength ||
        static_cast<size_t>(jsonlen) > r.remaining()) {
      return DataLossAt(
          len_at, absl::StrCat("label set ", i, ": json length ", jsonlen,
                               " invalid with ", r.remaining(), " bytes left"));
    }
    std::span<const uint8_t> json = r.ReadBytes(jsonlen);
    set.json.assign(json.begin(), json.end());
    if (HasNul(set.json)) {
      return DataLossAt(len_at + 4,
                        absl::StrCat("label set ", i, ": json contains NUL"));
    }
    const uint64_t nlabels_at = r.offset();
    const int32_t nlabels = r.ReadBigI32();
    if (!r.ok()) return r.status();
    if (nlabels < 0) {
      set.error = nlabels;
    } else if (static_cast<size_t>(nlabels) > kMaxLabels ||
               static_cast<size_t>(nlabels) > r.remaining() / kLabelEntrySize) {
      return DataLossAt(
          nlabels_at,
          absl::StrCat("label set ", i, ": label count ", nlabels,
                       " invalid with ", r.remaining(), " bytes left"));
    }
    for (int32_t j = 0; j < nlabels; ++j) {
      const uint64_t at = r.offset();
      LabelEntry l;
      l.name_offset = r.ReadBig16();
      l.name_length = r.ReadU8();
      l.flags = r.ReadU8();
      l.value_offset = r.ReadBig16();
      l.value_length = r.ReadBig16();
      if (!r.ok()) return r.status();
      if (size_t{l.name_offset} + l.name_length > set.json.size() ||
          size_t{l.value_offset} + l.value_length > set.json.size()) {
        return DataLossAt(
            at,
            absl::StrCat("label set ", i, ": label ", j, " (name ",
                         l.name_offset, "+", l.name_length, ", value ",
                         l.value_offset, "+", l.value_length,
                         ") lies outside the ", set.json.size(), "-byte json"));
      }
      set.labels.push_back(l);
    }
    rec.sets.push_back(std::move(set));
  }
  if (absl::Status s = r.Finish(); !s.ok()) return s;
  return rec;
}

}  // namespace mmvlog::format

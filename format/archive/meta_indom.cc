#include "format/archive/meta_indom.h"

#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "format/archive/archive_framing.h"
#include "format/byte_writer.h"
#include "format/errors.h"
#include "format/archive/meta_fields.h"

namespace mmvlog::format {

using meta_internal::CheckTimestamp;
using meta_internal::CheckVersion;
using meta_internal::HasNul;
using meta_internal::PutBytes;
using meta_internal::PutTimestamp;
using meta_internal::ReadTimestamp;
using meta_internal::Tag;

absl::Status EncodeInDom(int version, const InDom& indom,
                         std::vector<uint8_t>* out) {
  if (absl::Status s = CheckVersion(version); !s.ok()) return s;
  const bool v3 = version == kLogVersion3;
  if (indom.delta && !v3) {
    return absl::InvalidArgumentError(
        "a delta instance domain needs a v3 archive");
  }
  if (absl::Status s = CheckTimestamp(v3, indom.timestamp); !s.ok()) return s;
  size_t table = 0;
  for (size_t i = 0; i < indom.instances.size(); ++i) {
    const InDomInstance& inst = indom.instances[i];
    if (inst.inst < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("instance ", i, ": negative id ", inst.inst));
    }
    if (inst.deleted && (!indom.delta || !inst.name.empty())) {
      return absl::InvalidArgumentError(
          absl::StrCat("instance ", i,
                       ": deleted instances belong in delta records and "
                       "have no name"));
    }
    if (HasNul(inst.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("instance ", i, ": name contains NUL"));
    }
    if (!inst.deleted) table += inst.name.size() + 1;
  }
  if (indom.instances.size() > static_cast<size_t>(INT32_MAX / 8) ||
      table > static_cast<size_t>(INT32_MAX / 2)) {
    return absl::InvalidArgumentError("instance domain too large");
  }
  const size_t begin = BeginFrame(out);
  AppendBig32(Tag(indom.delta ? MetaType::kInDomDelta
               : v3        ? MetaType::kInDom
                           : MetaType::kInDomV2),
           out);
  PutTimestamp(v3, indom.timestamp, out);
  AppendBig32(indom.indom, out);
  AppendBig32(static_cast<uint32_t>(indom.instances.size()), out);
  for (const InDomInstance& inst : indom.instances) {
    AppendBig32(static_cast<uint32_t>(inst.inst), out);
  }
  int32_t offset = 0;
  for (const InDomInstance& inst : indom.instances) {
    if (inst.deleted) {
      AppendBig32(static_cast<uint32_t>(kInDomDeletedOffset), out);
    } else {
      AppendBig32(static_cast<uint32_t>(offset), out);
      offset += static_cast<int32_t>(inst.name.size() + 1);
    }
  }
  for (const InDomInstance& inst : indom.instances) {
    if (inst.deleted) continue;
    PutBytes(inst.name, out);
    out->push_back(0);
  }
  EndFrame(begin, out);
  return absl::OkStatus();
}

absl::StatusOr<InDom> DecodeInDomBody(MetaType tag, ByteReader& r) {
  InDom d;
  d.delta = tag == MetaType::kInDomDelta;
  absl::Status error;
  if (!ReadTimestamp(tag != MetaType::kInDomV2, r, &d.timestamp, &error)) {
    return error;
  }
  d.indom = r.ReadBig32();
  const uint64_t count_at = r.offset();
  const int32_t numinst = r.ReadBigI32();
  if (!r.ok()) return r.status();
  if (numinst < 0 || static_cast<size_t>(numinst) > r.remaining() / 8) {
    return DataLossAt(
        count_at, absl::StrCat("instance count ", numinst, " does not fit the ",
                               r.remaining(), " bytes left"));
  }
  const uint64_t inst_at = r.offset();
  std::vector<int32_t> insts(numinst);
  for (int32_t& inst : insts) inst = r.ReadBigI32();
  const uint64_t index_at = r.offset();
  std::vector<int32_t> indexes(numinst);
  for (int32_t& index : indexes) index = r.ReadBigI32();
  // Whatever follows is the string table.
  std::span<const uint8_t> bytes = r.ReadBytes(r.remaining());
  if (!r.ok()) return r.status();
  const absl::string_view table(reinterpret_cast<const char*>(bytes.data()),
                                bytes.size());
  for (int32_t i = 0; i < numinst; ++i) {
    InDomInstance inst;
    inst.inst = insts[i];
    if (inst.inst < 0) {
      return DataLossAt(
          inst_at + 4 * i,
          absl::StrCat("instance ", i, ": negative id ", inst.inst));
    }
    const int32_t index = indexes[i];
    if (index == kInDomDeletedOffset && d.delta) {
      inst.deleted = true;
    } else if (index < 0 || static_cast<size_t>(index) >= table.size()) {
      return DataLossAt(
          index_at + 4 * i,
          absl::StrCat("instance ", i, ": string offset ", index,
                       " outside the ", table.size(), "-byte string table"));
    } else {
      const size_t end = table.find('\0', index);
      if (end == absl::string_view::npos) {
        return DataLossAt(index_at + 4 * i, absl::StrCat("instance ", i,
                                                         ": name at string "
                                                         "offset ",
                                                         index, " has no NUL"));
      }
      inst.name = std::string(table.substr(index, end - index));
    }
    d.instances.push_back(std::move(inst));
  }
  return d;
}

}  // namespace mmvlog::format

#include "format/archive/meta_desc.h"

#include <span>

#include "absl/strings/str_cat.h"
#include "format/archive/archive_framing.h"
#include "format/byte_writer.h"
#include "format/errors.h"
#include "format/archive/meta_fields.h"

namespace mmvlog::format {

using meta_internal::HasNul;
using meta_internal::PutBytes;
using meta_internal::Tag;

absl::Status EncodeDesc(const Desc& desc, std::vector<uint8_t>* out) {
  for (size_t i = 0; i < desc.names.size(); ++i) {
    if (desc.names[i].empty() || HasNul(desc.names[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("desc name ", i, " is empty or contains NUL"));
    }
  }
  const size_t begin = BeginFrame(out);
  AppendBig32(Tag(MetaType::kDesc), out);
  AppendBig32(desc.pmid, out);
  AppendBig32(static_cast<uint32_t>(desc.type), out);
  AppendBig32(desc.indom, out);
  AppendBig32(static_cast<uint32_t>(desc.sem), out);
  AppendBig32(desc.units, out);
  AppendBig32(static_cast<uint32_t>(desc.names.size()), out);
  for (const std::string& name : desc.names) {
    AppendBig32(static_cast<uint32_t>(name.size()), out);
    PutBytes(name, out);
  }
  EndFrame(begin, out);
  return absl::OkStatus();
}

absl::StatusOr<Desc> DecodeDescBody(ByteReader& r) {
  Desc d;
  d.pmid = r.ReadBig32();
  d.type = r.ReadBigI32();
  d.indom = r.ReadBig32();
  d.sem = r.ReadBigI32();
  d.units = r.ReadBig32();
  const uint64_t count_at = r.offset();
  const int32_t numnames = r.ReadBigI32();
  if (!r.ok()) return r.status();
  if (numnames < 0 || static_cast<size_t>(numnames) > r.remaining() / 4) {
    return DataLossAt(
        count_at, absl::StrCat("name count ", numnames, " does not fit the ",
                               r.remaining(), " bytes left"));
  }
  for (int32_t i = 0; i < numnames; ++i) {
    const uint64_t at = r.offset();
    const int32_t len = r.ReadBigI32();
    if (!r.ok()) return r.status();
    if (len < 0 || static_cast<size_t>(len) > r.remaining()) {
      return DataLossAt(
          at, absl::StrCat("name ", i, ": length ", len, " does not fit the ",
                           r.remaining(), " bytes left"));
    }
    std::span<const uint8_t> name = r.ReadBytes(len);
    d.names.emplace_back(name.begin(), name.end());
    // libpcp keeps the name as a C string: a NUL inside ends it there, and
    // every PCP tool shows it so (pmdumplog included). Read it the same way.
    if (const size_t nul = d.names.back().find('\0'); nul != std::string::npos) {
      d.names.back().resize(nul);
    }
  }
  if (absl::Status s = r.Finish(); !s.ok()) return s;
  return d;
}

}  // namespace mmvlog::format

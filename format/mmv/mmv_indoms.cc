#include "format/mmv/mmv_indoms.h"

#include <cstddef>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "format/errors.h"
#include "format/mmv/mmv_strings.h"
#include "format/mmv/mmv_toc.h"

namespace mmvlog::format {

// One piece: mmv(5)'s indom and instance rules in pmdammv's order.
absl::Status ParseMmvIndoms(const MmvSection& s, MmvParse* p) {
  const int32_t version = p->file.header.version;
  const MmvSection* inst = p->Find(MmvTocType::kInstances);
  const uint64_t isize = MmvEntrySize(MmvTocType::kInstances, version);
  for (uint32_t j = 0; j < s.count; ++j) {
    const uint64_t at = s.offset + j * sizeof(MmvDiskIndom);
    const MmvDiskIndom d = LoadAt<MmvDiskIndom>(p->bytes, at);
    MmvIndom indom;
    indom.serial = d.serial;
    indom.offset = at;
    if (!p->indom_by_serial.emplace(d.serial, p->file.indoms.size()).second) {
      return DataLossAt(at, absl::StrCat("duplicate indom serial ",  // M21
                                         d.serial));
    }
    if (d.count > 0) {
      const bool inside =
          inst != nullptr && d.offset >= inst->offset &&
          d.offset < inst->offset + inst->size &&
          (d.offset - inst->offset) % isize == 0 &&
          d.count <= (inst->offset + inst->size - d.offset) / isize;
      if (!inside) {  // M16
        return DataLossAt(at, absl::StrCat(
                                  "indom ", d.serial, ": ", d.count,
                                  " instances at ", d.offset,
                                  " are not entries of the INSTANCES section",
                                  inst ? absl::StrCat(" [", inst->offset, ", ",
                                                      inst->offset + inst->size,
                                                      ")")
                                       : std::string(" (absent)")));
      }
    }
    absl::StatusOr<std::string> short_help = p->Help(d.shorttext, at + 16);
    if (!short_help.ok()) return short_help.status();
    absl::StatusOr<std::string> long_help = p->Help(d.helptext, at + 24);
    if (!long_help.ok()) return long_help.status();
    indom.short_help = std::move(*short_help);
    indom.long_help = std::move(*long_help);
    absl::flat_hash_set<int32_t> ids;
    for (uint32_t k = 0; k < d.count; ++k) {
      const uint64_t iat = d.offset + k * isize;
      MmvInstance instance;
      instance.offset = iat;
      uint64_t owner;
      if (version == kMmvVersion1) {
        const auto e = LoadAt<MmvDiskInstance1>(p->bytes, iat);
        owner = e.indom;
        instance.internal = e.internal;
        absl::StatusOr<std::string> name = FixedMmvString(
            p->bytes, iat + offsetof(MmvDiskInstance1, external), kMmvNameMax,
            "instance name");
        if (!name.ok()) return name.status();  // M15
        instance.external = std::move(*name);
      } else {
        const auto e = LoadAt<MmvDiskInstance2>(p->bytes, iat);
        owner = e.indom;
        instance.internal = e.internal;
        absl::StatusOr<std::string> name = ReadMmvString(
            p->bytes, p->file, e.external,
            iat + offsetof(MmvDiskInstance2, external));
        if (!name.ok()) return name.status();
        instance.external = std::move(*name);
      }
      if (owner != at) {  // M17
        return DataLossAt(iat, absl::StrCat("instance ", instance.internal,
                                            " names indom offset ", owner,
                                            ", but belongs to indom ",
                                            d.serial, " at ", at));
      }
      if (instance.internal < 0) {  // M31
        return DataLossAt(iat, absl::StrCat("instance id ", instance.internal, " in indom ",
                                            d.serial, " is negative"));
      }
      if (!ids.insert(instance.internal).second) {  // M22
        return DataLossAt(iat, absl::StrCat("duplicate instance id ",
                                            instance.internal, " in indom ",
                                            d.serial));
      }
      p->instance_at[iat] = {static_cast<int32_t>(p->file.indoms.size()),
                           static_cast<int32_t>(indom.instances.size())};
      indom.instances.push_back(std::move(instance));
    }
    p->file.indoms.push_back(std::move(indom));
  }
  return absl::OkStatus();
}

}  // namespace mmvlog::format

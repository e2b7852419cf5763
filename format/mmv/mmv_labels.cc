#include "format/mmv/mmv_labels.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/errors.h"
#include "format/mmv/mmv_strings.h"

namespace mmvlog::format {

absl::Status ParseMmvLabels(const MmvSection& s, MmvParse* p) {
  for (uint32_t j = 0; j < s.count; ++j) {
    const uint64_t at = s.offset + j * sizeof(MmvDiskLabel);
    const auto d = LoadAt<MmvDiskLabel>(p->bytes, at);
    MmvLabel l;
    l.flags = d.flags;
    l.identity = d.identity;
    l.internal = d.internal;
    l.offset = at;
    const uint32_t type = d.flags & kMmvLabelTypeMask;
    if ((d.flags & ~(kMmvLabelTypeMask | kMmvLabelOptional)) != 0 ||
        std::popcount(type) != 1) {  // M27
      return DataLossAt(at, absl::StrFormat(
                                "label flags 0x%x: need exactly one of "
                                "INDOM, CLUSTER, ITEM, INSTANCES (+OPTIONAL)",
                                d.flags));
    }
    absl::StatusOr<std::string> payload =
        FixedMmvString(p->bytes, at + offsetof(MmvDiskLabel, payload), kMmvLabelMax,
                    "label payload");
    if (!payload.ok()) return payload.status();  // M15
    l.payload = std::move(*payload);
    bool known = true;
    if (type == kMmvLabelItem) {
      known = std::any_of(p->file.metrics.begin(), p->file.metrics.end(),
                          [&](const MmvMetric& m) { return m.item == d.identity; });
    } else if (type == kMmvLabelIndom || type == kMmvLabelInstances) {
      auto it = p->indom_by_serial.find(d.identity);
      known = it != p->indom_by_serial.end();
      if (known && type == kMmvLabelInstances) {
        const auto& insts = p->file.indoms[it->second].instances;
        known = std::any_of(insts.begin(), insts.end(), [&](const MmvInstance& i) {
          return i.internal == d.internal;
        });
      }
    }
    if (!known) {  // M28
      return DataLossAt(at, absl::StrCat(
                                "label ", l.payload, " names unknown ",
                                type == kMmvLabelItem    ? "metric item "
                                : type == kMmvLabelIndom ? "indom "
                                                         : "indom/instance ",
                                d.identity,
                                type == kMmvLabelInstances
                                    ? absl::StrCat("/", d.internal)
                                    : std::string()));
    }
    p->file.labels.push_back(std::move(l));
  }
  return absl::OkStatus();
}

}  // namespace mmvlog::format

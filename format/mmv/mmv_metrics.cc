#include "format/mmv/mmv_metrics.h"

#include <cstddef>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "format/errors.h"
#include "format/mmv/mmv_strings.h"
#include "format/mmv/mmv_toc.h"

namespace mmvlog::format {

absl::Status ParseMmvMetrics(const MmvSection& s, MmvParse* p) {
  const int32_t version = p->file.header.version;
  const uint64_t msize = MmvEntrySize(MmvTocType::kMetrics, version);
  absl::flat_hash_set<uint32_t> items;
  for (uint32_t j = 0; j < s.count; ++j) {
    const uint64_t at = s.offset + j * msize;
    MmvMetric m;
    m.offset = at;
    int32_t type, sem, indom;
    uint64_t shorttext, helptext, help_field;
    if (version == kMmvVersion1) {
      const auto d = LoadAt<MmvDiskMetric1>(p->bytes, at);
      absl::StatusOr<std::string> name =
          FixedMmvString(p->bytes, at, kMmvNameMax, "metric name");
      if (!name.ok()) return name.status();  // M15
      m.name = std::move(*name);
      m.item = d.item;
      type = d.type;
      sem = d.semantics;
      m.units = d.dimension;
      indom = d.indom;
      shorttext = d.shorttext;
      helptext = d.helptext;
      help_field = at + offsetof(MmvDiskMetric1, shorttext);
    } else {
      const auto d = LoadAt<MmvDiskMetric2>(p->bytes, at);
      absl::StatusOr<std::string> name = ReadMmvString(p->bytes, p->file, d.name, at);
      if (!name.ok()) return name.status();
      m.name = std::move(*name);
      m.item = d.item;
      type = d.type;
      sem = d.semantics;
      m.units = d.dimension;
      indom = d.indom;
      shorttext = d.shorttext;
      helptext = d.helptext;
      help_field = at + offsetof(MmvDiskMetric2, shorttext);
    }
    if (m.name.empty()) {  // M29
      return DataLossAt(at, absl::StrCat("metric item ", m.item,
                                         " has an empty name"));
    }
    if (!IsKnownMmvType(type)) {  // M18
      return DataLossAt(at, absl::StrCat("metric ", m.name,
                                         ": unknown type ", type));
    }
    m.type = static_cast<MmvType>(type);
    // Any semantics is kept as written (formerly M19): pmdammv exports the
    // metric with it, and the mapping decides per metric, not per file.
    m.semantics = sem;
    // A second metric with an item is ignored by PCP, not the file.
    m.duplicate_item = !items.insert(m.item).second;
    m.indom = static_cast<uint32_t>(indom);
    // pmdammv treats serial 0 and PM_INDOM_NULL alike: a singular metric.
    if (m.indom != 0 && m.indom != kMmvIndomNull) {
      auto it = p->indom_by_serial.find(m.indom);
      if (it == p->indom_by_serial.end()) {  // M23
        return DataLossAt(at, absl::StrCat("metric ", m.name,
                                           ": unknown indom ", m.indom));
      }
      m.indom_index = it->second;
    }
    absl::StatusOr<std::string> short_help = p->Help(shorttext, help_field);
    if (!short_help.ok()) return short_help.status();
    absl::StatusOr<std::string> long_help = p->Help(helptext, help_field + 8);
    if (!long_help.ok()) return long_help.status();
    m.short_help = std::move(*short_help);
    m.long_help = std::move(*long_help);
    p->metric_at[at] = p->file.metrics.size();
    p->file.metrics.push_back(std::move(m));
  }
  return absl::OkStatus();
}

}  // namespace mmvlog::format

#include "format/mmv/mmv_writer.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "format/endian.h"

namespace mmvlog::format {
namespace {

bool Singular(uint32_t indom) { return indom == 0 || indom == kMmvIndomNull; }

// Copies `s` into a zeroed field of `width` bytes (with room for the NUL).
void PutFixed(uint8_t* p, absl::string_view s, size_t width) {
  std::memset(p, 0, width);
  std::memcpy(p, s.data(), std::min(s.size(), width - 1));
}

class StringTable {
 public:
  // Returns the slot index of `s` (help texts and names get a slot each).
  uint64_t Add(absl::string_view s) {
    strings_.emplace_back(s);
    return strings_.size() - 1;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::vector<std::string> strings_;
};

}  // namespace

absl::StatusOr<MmvImage> BuildMmv(const MmvSpec& spec) {
  if (spec.generation == 0) {
    return absl::InvalidArgumentError("generation must not be 0");
  }
  bool long_names = false;
  for (const auto& m : spec.metrics) long_names |= m.name.size() >= kMmvNameMax;
  for (const auto& d : spec.indoms) {
    for (const auto& i : d.instances) long_names |= i.name.size() >= kMmvNameMax;
  }
  int32_t version = spec.version;
  if (version == 0) {
    version = !spec.labels.empty() ? kMmvVersion3
              : long_names         ? kMmvVersion2
                                   : kMmvVersion1;
  }
  if (version < kMmvVersion1 || version > kMmvVersion3) {
    return absl::InvalidArgumentError(absl::StrCat("version ", version));
  }
  if (version == kMmvVersion1 && long_names) {
    return absl::InvalidArgumentError("a name over 63 bytes needs version 2");
  }
  if (version < kMmvVersion3 && !spec.labels.empty()) {
    return absl::InvalidArgumentError("labels need version 3");
  }
  absl::flat_hash_map<uint32_t, const MmvSpecIndom*> indom_by_serial;
  for (const auto& d : spec.indoms) indom_by_serial[d.serial] = &d;
  for (const auto& m : spec.metrics) {
    if (!Singular(m.indom) && !indom_by_serial.contains(m.indom)) {
      return absl::InvalidArgumentError(
          absl::StrCat("metric ", m.name, ": unknown indom ", m.indom));
    }
  }
  for (const auto& l : spec.labels) {
    if (l.payload.size() >= kMmvLabelMax) {
      return absl::InvalidArgumentError(
          absl::StrCat("label payload over ", kMmvLabelMax - 1, " bytes"));
    }
  }

  const bool v1 = version == kMmvVersion1;
  const uint64_t isize = v1 ? sizeof(MmvDiskInstance1) : sizeof(MmvDiskInstance2);
  const uint64_t msize = v1 ? sizeof(MmvDiskMetric1) : sizeof(MmvDiskMetric2);
  size_t ninstances = 0;
  for (const auto& d : spec.indoms) ninstances += d.instances.size();
  size_t nvalues = 0;
  for (const auto& m : spec.metrics) {
    nvalues += Singular(m.indom) ? 1 : indom_by_serial[m.indom]->instances.size();
  }

  // Strings: names (v2+), string values, help texts; one slot each.
  StringTable strings;
  auto help = [&](const std::string& s) -> uint64_t {
    return s.empty() ? ~0ull : strings.Add(s);
  };
  std::vector<uint64_t> inst_name_slot, metric_name_slot;
  if (!v1) {
    for (const auto& d : spec.indoms) {
      for (const auto& i : d.instances) inst_name_slot.push_back(strings.Add(i.name));
    }
    for (const auto& m : spec.metrics) metric_name_slot.push_back(strings.Add(m.name));
  }
  std::vector<uint64_t> value_string_slot;
  for (const auto& m : spec.metrics) {
    if (m.type != MmvType::kString) continue;
    const size_t n = Singular(m.indom) ? 1 : indom_by_serial[m.indom]->instances.size();
    for (size_t k = 0; k < n; ++k) value_string_slot.push_back(strings.Add(""));
  }
  std::vector<std::pair<uint64_t, uint64_t>> metric_help, indom_help;
  for (const auto& m : spec.metrics) {
    metric_help.push_back({help(m.short_help), help(m.long_help)});
  }
  for (const auto& d : spec.indoms) {
    indom_help.push_back({help(d.short_help), help(d.long_help)});
  }
  for (const auto& s : strings.strings()) {
    if (s.size() >= kMmvStringMax) {
      return absl::InvalidArgumentError(
          absl::StrCat("string over ", kMmvStringMax - 1, " bytes: ", s.substr(0, 40)));
    }
  }

  struct Section {
    MmvTocType type;
    uint64_t count;
    uint64_t entry;
    uint64_t offset = 0;
  };
  std::vector<Section> sections;
  if (!spec.indoms.empty()) {
    sections.push_back({MmvTocType::kIndoms, spec.indoms.size(), sizeof(MmvDiskIndom)});
  }
  if (ninstances > 0) sections.push_back({MmvTocType::kInstances, ninstances, isize});
  sections.push_back({MmvTocType::kMetrics, spec.metrics.size(), msize});
  sections.push_back({MmvTocType::kValues, nvalues, sizeof(MmvDiskValue)});
  if (!strings.strings().empty()) {
    sections.push_back({MmvTocType::kStrings, strings.strings().size(), kMmvStringSlotSize});
  }
  if (!spec.labels.empty()) {
    sections.push_back({MmvTocType::kLabels, spec.labels.size(), sizeof(MmvDiskLabel)});
  }
  uint64_t offset = kMmvHeaderSize + sections.size() * sizeof(MmvDiskToc);
  auto section_offset = [&](MmvTocType t) -> uint64_t {
    for (const auto& s : sections) {
      if (s.type == t) return s.offset;
    }
    return 0;
  };
  for (auto& s : sections) {
    s.offset = offset;
    offset += s.count * s.entry;
  }

  MmvImage image;
  image.version = version;
  image.bytes.assign(offset, 0);
  uint8_t* out = image.bytes.data();
  const uint64_t strings_at = section_offset(MmvTocType::kStrings);
  auto slot_offset = [&](uint64_t slot) -> uint64_t {
    return slot == ~0ull ? 0 : strings_at + slot * kMmvStringSlotSize;
  };
  for (size_t k = 0; k < strings.strings().size(); ++k) {
    PutFixed(out + strings_at + k * kMmvStringSlotSize, strings.strings()[k],
             kMmvStringSlotSize);
  }

  MmvDiskHeader h{};
  std::memcpy(h.magic, kMmvMagic, sizeof(kMmvMagic));
  h.version = version;
  h.g1 = spec.generation;
  h.g2 = spec.generation;
  h.tocs = static_cast<int32_t>(sections.size());
  h.flags = spec.flags;
  h.process = spec.process;
  h.cluster = spec.cluster;
  StoreNative(out, h);
  for (size_t k = 0; k < sections.size(); ++k) {
    MmvDiskToc toc{static_cast<int32_t>(sections[k].type),
                   static_cast<int32_t>(sections[k].count), sections[k].offset};
    StoreNative(out + kMmvHeaderSize + k * sizeof(MmvDiskToc), toc);
  }

  // Indoms and instances.
  const uint64_t indoms_at = section_offset(MmvTocType::kIndoms);
  const uint64_t instances_at = section_offset(MmvTocType::kInstances);
  absl::flat_hash_map<std::pair<uint32_t, int32_t>, uint64_t> instance_offset;
  size_t next_instance = 0;
  for (size_t j = 0; j < spec.indoms.size(); ++j) {
    const MmvSpecIndom& d = spec.indoms[j];
    const uint64_t at = indoms_at + j * sizeof(MmvDiskIndom);
    MmvDiskIndom e{};
    e.serial = d.serial;
    e.count = static_cast<uint32_t>(d.instances.size());
    e.offset = d.instances.empty() ? 0 : instances_at + next_instance * isize;
    e.shorttext = slot_offset(indom_help[j].first);
    e.helptext = slot_offset(indom_help[j].second);
    StoreNative(out + at, e);
    for (const auto& i : d.instances) {
      const uint64_t iat = instances_at + next_instance * isize;
      if (v1) {
        MmvDiskInstance1 ie{};
        ie.indom = at;
        ie.internal = i.id;
        PutFixed(reinterpret_cast<uint8_t*>(ie.external), i.name, kMmvNameMax);
        StoreNative(out + iat, ie);
      } else {
        MmvDiskInstance2 ie{};
        ie.indom = at;
        ie.internal = i.id;
        ie.external = slot_offset(inst_name_slot[next_instance]);
        StoreNative(out + iat, ie);
      }
      instance_offset[{d.serial, i.id}] = iat;
      ++next_instance;
    }
  }

  // Metrics, then one value per instance.
  const uint64_t metrics_at = section_offset(MmvTocType::kMetrics);
  const uint64_t values_at = section_offset(MmvTocType::kValues);
  size_t next_value = 0, next_string_value = 0;
  for (size_t j = 0; j < spec.metrics.size(); ++j) {
    const MmvSpecMetric& m = spec.metrics[j];
    const uint64_t at = metrics_at + j * msize;
    const int32_t indom = Singular(m.indom) ? -1 : static_cast<int32_t>(m.indom);
    if (v1) {
      MmvDiskMetric1 me{};
      PutFixed(reinterpret_cast<uint8_t*>(me.name), m.name, kMmvNameMax);
      me.item = m.item;
      me.type = static_cast<int32_t>(m.type);
      me.semantics = m.semantics;
      me.dimension = m.units;
      me.indom = indom;
      me.shorttext = slot_offset(metric_help[j].first);
      me.helptext = slot_offset(metric_help[j].second);
      StoreNative(out + at, me);
    } else {
      MmvDiskMetric2 me{};
      me.name = slot_offset(metric_name_slot[j]);
      me.item = m.item;
      me.type = static_cast<int32_t>(m.type);
      me.semantics = m.semantics;
      me.dimension = m.units;
      me.indom = indom;
      me.shorttext = slot_offset(metric_help[j].first);
      me.helptext = slot_offset(metric_help[j].second);
      StoreNative(out + at, me);
    }
    std::vector<std::pair<int32_t, uint64_t>> targets;  // (instance, offset)
    if (Singular(m.indom)) {
      targets.push_back({kMmvInNull, 0});
    } else {
      for (const auto& i : indom_by_serial[m.indom]->instances) {
        targets.push_back({i.id, instance_offset[{m.indom, i.id}]});
      }
    }
    for (const auto& [inst, inst_at] : targets) {
      const uint64_t vat = values_at + next_value * sizeof(MmvDiskValue);
      MmvDiskValue ve{};
      ve.metric = at;
      ve.instance = inst_at;
      MmvValueSlot slot{vat, 0};
      if (m.type == MmvType::kString) {
        slot.string_offset = slot_offset(value_string_slot[next_string_value++]);
        ve.extra = static_cast<int64_t>(slot.string_offset);
      }
      StoreNative(out + vat, ve);
      image.slots[{m.item, inst}] = slot;
      ++next_value;
    }
  }

  const uint64_t labels_at = section_offset(MmvTocType::kLabels);
  for (size_t j = 0; j < spec.labels.size(); ++j) {
    const MmvSpecLabel& l = spec.labels[j];
    MmvDiskLabel le{};
    le.flags = l.flags;
    le.identity = l.identity;
    le.internal = l.internal;
    PutFixed(reinterpret_cast<uint8_t*>(le.payload), l.payload, kMmvLabelMax);
    StoreNative(out + labels_at + j * sizeof(MmvDiskLabel), le);
  }
  return image;
}

void SetMmvI32(std::span<uint8_t> f, const MmvValueSlot& s, int32_t v) {
  StoreNative(f.data() + s.value_offset, v);
}
void SetMmvU32(std::span<uint8_t> f, const MmvValueSlot& s, uint32_t v) {
  StoreNative(f.data() + s.value_offset, v);
}
void SetMmvI64(std::span<uint8_t> f, const MmvValueSlot& s, int64_t v) {
  StoreNative(f.data() + s.value_offset, v);
}
void SetMmvU64(std::span<uint8_t> f, const MmvValueSlot& s, uint64_t v) {
  StoreNative(f.data() + s.value_offset, v);
}
void SetMmvFloat(std::span<uint8_t> f, const MmvValueSlot& s, float v) {
  StoreNative(f.data() + s.value_offset, v);
}
void SetMmvDouble(std::span<uint8_t> f, const MmvValueSlot& s, double v) {
  StoreNative(f.data() + s.value_offset, v);
}
void SetMmvElapsed(std::span<uint8_t> f, const MmvValueSlot& s, int64_t total,
                   int64_t extra) {
  StoreNative(f.data() + s.value_offset, total);
  StoreNative(f.data() + s.value_offset + kMmvValueExtraOffset, extra);
}
void SetMmvString(std::span<uint8_t> f, const MmvValueSlot& s,
                  absl::string_view v) {
  PutFixed(f.data() + s.string_offset, v, kMmvStringSlotSize);
}

}  // namespace mmvlog::format

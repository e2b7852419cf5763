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

// The version `spec` is written as (its own, or the lowest that holds its
// names and labels), or InvalidArgument for what no version holds.
absl::StatusOr<int32_t> CheckedVersion(
    const MmvSpec& spec, const absl::flat_hash_map<uint32_t, const MmvSpecIndom*>& indom_by_serial) {
  if (spec.generation == 0) return absl::InvalidArgumentError("generation must not be 0");
  bool long_names = false;
  for (const auto& m : spec.metrics) long_names |= m.name.size() >= kMmvNameMax;
  for (const auto& d : spec.indoms) {
    for (const auto& i : d.instances) long_names |= i.name.size() >= kMmvNameMax;
  }
  int32_t version = spec.version;
  if (version == 0) {
    version = !spec.labels.empty() ? kMmvVersion3 : long_names ? kMmvVersion2 : kMmvVersion1;
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
  for (const auto& m : spec.metrics) {
    if (!Singular(m.indom) && !indom_by_serial.contains(m.indom)) {
      return absl::InvalidArgumentError(absl::StrCat("metric ", m.name, ": unknown indom ", m.indom));
    }
  }
  for (const auto& l : spec.labels) {
    if (l.payload.size() >= kMmvLabelMax) {
      return absl::InvalidArgumentError(absl::StrCat("label payload over ", kMmvLabelMax - 1, " bytes"));
    }
  }
  return version;
}

// Lays out and writes one MMV file, a section at a time.
class MmvBuilder {
 public:
  MmvBuilder(const MmvSpec& spec, int32_t version,
             const absl::flat_hash_map<uint32_t, const MmvSpecIndom*>& indom_by_serial)
      : spec_(spec),
        indom_by_serial_(indom_by_serial),
        v1_(version == kMmvVersion1),
        isize_(v1_ ? sizeof(MmvDiskInstance1) : sizeof(MmvDiskInstance2)),
        msize_(v1_ ? sizeof(MmvDiskMetric1) : sizeof(MmvDiskMetric2)) {
    image_.version = version;
  }

  absl::StatusOr<MmvImage> Build() {
    if (absl::Status s = PlanStrings(); !s.ok()) return s;
    PlanSections();
    WriteStringsAndHeader();
    WriteIndoms();
    WriteMetricsAndValues();
    WriteLabels();
    return std::move(image_);
  }

 private:
  struct Section {
    MmvTocType type;
    uint64_t count;
    uint64_t entry;
    uint64_t offset = 0;
  };
  size_t InstancesOf(const MmvSpecMetric& m) const {
    return Singular(m.indom) ? 1 : indom_by_serial_.at(m.indom)->instances.size();
  }
  uint64_t SectionOffset(MmvTocType t) const {
    for (const auto& s : sections_) {
      if (s.type == t) return s.offset;
    }
    return 0;
  }
  uint64_t SlotOffset(uint64_t slot) const {
    return slot == ~0ull ? 0 : SectionOffset(MmvTocType::kStrings) + slot * kMmvStringSlotSize;
  }
  uint8_t* out() { return image_.bytes.data(); }
  absl::Status PlanStrings();
  void PlanSections();
  void WriteStringsAndHeader();
  void WriteIndoms();
  void WriteMetricsAndValues();
  void WriteLabels();

  const MmvSpec& spec_;
  const absl::flat_hash_map<uint32_t, const MmvSpecIndom*>& indom_by_serial_;
  const bool v1_;
  const uint64_t isize_, msize_;
  MmvImage image_;
  // Strings: names (v2+), string values, help texts; one slot each.
  StringTable strings_;
  std::vector<uint64_t> inst_name_slot_, metric_name_slot_, value_string_slot_;
  std::vector<std::pair<uint64_t, uint64_t>> metric_help_, indom_help_;
  std::vector<Section> sections_;
  absl::flat_hash_map<std::pair<uint32_t, int32_t>, uint64_t> instance_offset_;
};

absl::Status MmvBuilder::PlanStrings() {
  auto help = [this](const std::string& s) -> uint64_t { return s.empty() ? ~0ull : strings_.Add(s); };
  if (!v1_) {
    for (const auto& d : spec_.indoms) {
      for (const auto& i : d.instances) inst_name_slot_.push_back(strings_.Add(i.name));
    }
    for (const auto& m : spec_.metrics) metric_name_slot_.push_back(strings_.Add(m.name));
  }
  for (const auto& m : spec_.metrics) {
    if (m.type != MmvType::kString) continue;
    for (size_t k = 0; k < InstancesOf(m); ++k) value_string_slot_.push_back(strings_.Add(""));
  }
  for (const auto& m : spec_.metrics) metric_help_.push_back({help(m.short_help), help(m.long_help)});
  for (const auto& d : spec_.indoms) indom_help_.push_back({help(d.short_help), help(d.long_help)});
  for (const auto& s : strings_.strings()) {
    if (s.size() >= kMmvStringMax) {
      return absl::InvalidArgumentError(
          absl::StrCat("string over ", kMmvStringMax - 1, " bytes: ", s.substr(0, 40)));
    }
  }
  return absl::OkStatus();
}

void MmvBuilder::PlanSections() {
  size_t ninstances = 0, nvalues = 0;
  for (const auto& d : spec_.indoms) ninstances += d.instances.size();
  for (const auto& m : spec_.metrics) nvalues += InstancesOf(m);
  if (!spec_.indoms.empty()) {
    sections_.push_back({MmvTocType::kIndoms, spec_.indoms.size(), sizeof(MmvDiskIndom)});
  }
  if (ninstances > 0) sections_.push_back({MmvTocType::kInstances, ninstances, isize_});
  sections_.push_back({MmvTocType::kMetrics, spec_.metrics.size(), msize_});
  sections_.push_back({MmvTocType::kValues, nvalues, sizeof(MmvDiskValue)});
  if (!strings_.strings().empty()) {
    sections_.push_back({MmvTocType::kStrings, strings_.strings().size(), kMmvStringSlotSize});
  }
  if (!spec_.labels.empty()) {
    sections_.push_back({MmvTocType::kLabels, spec_.labels.size(), sizeof(MmvDiskLabel)});
  }
  uint64_t offset = kMmvHeaderSize + sections_.size() * sizeof(MmvDiskToc);
  for (auto& s : sections_) {
    s.offset = offset;
    offset += s.count * s.entry;
  }
  image_.bytes.assign(offset, 0);
}

void MmvBuilder::WriteStringsAndHeader() {
  const uint64_t strings_at = SectionOffset(MmvTocType::kStrings);
  for (size_t k = 0; k < strings_.strings().size(); ++k) {
    PutFixed(out() + strings_at + k * kMmvStringSlotSize, strings_.strings()[k], kMmvStringSlotSize);
  }
  MmvDiskHeader h{};
  std::memcpy(h.magic, kMmvMagic, sizeof(kMmvMagic));
  h.version = image_.version;
  h.g1 = spec_.generation;
  h.g2 = spec_.generation;
  h.tocs = static_cast<int32_t>(sections_.size());
  h.flags = spec_.flags;
  h.process = spec_.process;
  h.cluster = spec_.cluster;
  StoreNative(out(), h);
  for (size_t k = 0; k < sections_.size(); ++k) {
    MmvDiskToc toc{static_cast<int32_t>(sections_[k].type), static_cast<int32_t>(sections_[k].count),
                   sections_[k].offset};
    StoreNative(out() + kMmvHeaderSize + k * sizeof(MmvDiskToc), toc);
  }
}

void MmvBuilder::WriteIndoms() {
  const uint64_t indoms_at = SectionOffset(MmvTocType::kIndoms);
  const uint64_t instances_at = SectionOffset(MmvTocType::kInstances);
  size_t next_instance = 0;
  for (size_t j = 0; j < spec_.indoms.size(); ++j) {
    const MmvSpecIndom& d = spec_.indoms[j];
    const uint64_t at = indoms_at + j * sizeof(MmvDiskIndom);
    MmvDiskIndom e{};
    e.serial = d.serial;
    e.count = static_cast<uint32_t>(d.instances.size());
    e.offset = d.instances.empty() ? 0 : instances_at + next_instance * isize_;
    e.shorttext = SlotOffset(indom_help_[j].first);
    e.helptext = SlotOffset(indom_help_[j].second);
    StoreNative(out() + at, e);
    for (const auto& i : d.instances) {
      const uint64_t iat = instances_at + next_instance * isize_;
      if (v1_) {
        MmvDiskInstance1 ie{};
        ie.indom = at;
        ie.internal = i.id;
        PutFixed(reinterpret_cast<uint8_t*>(ie.external), i.name, kMmvNameMax);
        StoreNative(out() + iat, ie);
      } else {
        MmvDiskInstance2 ie{};
        ie.indom = at;
        ie.internal = i.id;
        ie.external = SlotOffset(inst_name_slot_[next_instance]);
        StoreNative(out() + iat, ie);
      }
      instance_offset_[{d.serial, i.id}] = iat;
      ++next_instance;
    }
  }
}

// Metrics, then one value per instance.
void MmvBuilder::WriteMetricsAndValues() {
  const uint64_t metrics_at = SectionOffset(MmvTocType::kMetrics);
  const uint64_t values_at = SectionOffset(MmvTocType::kValues);
  size_t next_value = 0, next_string_value = 0;
  for (size_t j = 0; j < spec_.metrics.size(); ++j) {
    const MmvSpecMetric& m = spec_.metrics[j];
    const uint64_t at = metrics_at + j * msize_;
    const int32_t indom = Singular(m.indom) ? -1 : static_cast<int32_t>(m.indom);
    auto fill = [&](auto& me) {
      me.item = m.item;
      me.type = static_cast<int32_t>(m.type);
      me.semantics = m.semantics;
      me.dimension = m.units;
      me.indom = indom;
      me.shorttext = SlotOffset(metric_help_[j].first);
      me.helptext = SlotOffset(metric_help_[j].second);
      StoreNative(out() + at, me);
    };
    if (v1_) {
      MmvDiskMetric1 me{};
      PutFixed(reinterpret_cast<uint8_t*>(me.name), m.name, kMmvNameMax);
      fill(me);
    } else {
      MmvDiskMetric2 me{};
      me.name = SlotOffset(metric_name_slot_[j]);
      fill(me);
    }
    std::vector<std::pair<int32_t, uint64_t>> targets;  // (instance, offset)
    if (Singular(m.indom)) {
      targets.push_back({kMmvInNull, 0});
    } else {
      for (const auto& i : indom_by_serial_.at(m.indom)->instances) {
        targets.push_back({i.id, instance_offset_[{m.indom, i.id}]});
      }
    }
    for (const auto& [inst, inst_at] : targets) {
      const uint64_t vat = values_at + next_value * sizeof(MmvDiskValue);
      MmvDiskValue ve{};
      ve.metric = at;
      ve.instance = inst_at;
      MmvValueSlot slot{vat, 0};
      if (m.type == MmvType::kString) {
        slot.string_offset = SlotOffset(value_string_slot_[next_string_value++]);
        ve.extra = static_cast<int64_t>(slot.string_offset);
      }
      StoreNative(out() + vat, ve);
      image_.slots[{m.item, inst}] = slot;
      ++next_value;
    }
  }
}

void MmvBuilder::WriteLabels() {
  const uint64_t labels_at = SectionOffset(MmvTocType::kLabels);
  for (size_t j = 0; j < spec_.labels.size(); ++j) {
    const MmvSpecLabel& l = spec_.labels[j];
    MmvDiskLabel le{};
    le.flags = l.flags;
    le.identity = l.identity;
    le.internal = l.internal;
    PutFixed(reinterpret_cast<uint8_t*>(le.payload), l.payload, kMmvLabelMax);
    StoreNative(out() + labels_at + j * sizeof(MmvDiskLabel), le);
  }
}

}  // namespace

absl::StatusOr<MmvImage> BuildMmv(const MmvSpec& spec) {
  absl::flat_hash_map<uint32_t, const MmvSpecIndom*> indom_by_serial;
  for (const auto& d : spec.indoms) indom_by_serial[d.serial] = &d;
  absl::StatusOr<int32_t> version = CheckedVersion(spec, indom_by_serial);
  if (!version.ok()) return version.status();
  return MmvBuilder(spec, *version, indom_by_serial).Build();
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

#include "format/mmv_reader.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/endian.h"
#include "format/errors.h"

namespace mmvlog::format {
namespace {

constexpr uint64_t kTocOffset = kMmvHeaderSize;

const char* SectionName(MmvTocType type) {
  switch (type) {
    case MmvTocType::kIndoms: return "INDOMS";
    case MmvTocType::kInstances: return "INSTANCES";
    case MmvTocType::kMetrics: return "METRICS";
    case MmvTocType::kValues: return "VALUES";
    case MmvTocType::kStrings: return "STRINGS";
    case MmvTocType::kLabels: return "LABELS";
  }
  return "?";
}

uint64_t EntrySize(MmvTocType type, int32_t version) {
  switch (type) {
    case MmvTocType::kIndoms: return sizeof(MmvDiskIndom);
    case MmvTocType::kInstances:
      return version == kMmvVersion1 ? sizeof(MmvDiskInstance1)
                                     : sizeof(MmvDiskInstance2);
    case MmvTocType::kMetrics:
      return version == kMmvVersion1 ? sizeof(MmvDiskMetric1)
                                     : sizeof(MmvDiskMetric2);
    case MmvTocType::kValues: return sizeof(MmvDiskValue);
    case MmvTocType::kStrings: return kMmvStringSlotSize;
    case MmvTocType::kLabels: return sizeof(MmvDiskLabel);
  }
  return 0;
}

template <typename T>
T LoadAt(std::span<const uint8_t> bytes, uint64_t offset) {
  // Callers have checked that [offset, offset + sizeof(T)) is in bytes.
  return LoadNative<T>(bytes.data() + offset);
}

// A C string inside a fixed-width field; M15 when it has no NUL.
absl::StatusOr<std::string> FixedString(std::span<const uint8_t> bytes,
                                        uint64_t offset, size_t width,
                                        absl::string_view what) {
  const uint8_t* p = bytes.data() + offset;
  const void* nul = std::memchr(p, 0, width);
  if (nul == nullptr) {
    return DataLossAt(offset, absl::StrCat(what, " has no NUL within its ",
                                           width, " bytes"));
  }
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<const uint8_t*>(nul) - p);
}

class Parser {
 public:
  explicit Parser(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  absl::StatusOr<MmvFile> Parse();

 private:
  absl::Status ParseToc();
  absl::Status ParseIndoms(const MmvSection& s);
  absl::Status ParseMetrics(const MmvSection& s);
  absl::Status ParseValues(const MmvSection& s);
  absl::Status ParseLabels(const MmvSection& s);
  // Help text at `offset` (0 = none), referenced from `referrer`.
  absl::StatusOr<std::string> Help(uint64_t offset, uint64_t referrer) {
    if (offset == 0) return std::string();
    return ReadMmvString(bytes_, file_, offset, referrer);
  }
  const MmvSection* Find(MmvTocType type) const {
    for (const MmvSection& s : file_.sections) {
      if (s.type == type) return &s;
    }
    return nullptr;
  }

  std::span<const uint8_t> bytes_;
  MmvFile file_;
  // Entry offset -> (indom index, instance index).
  absl::flat_hash_map<uint64_t, std::pair<int32_t, int32_t>> instance_at_;
  absl::flat_hash_map<uint64_t, uint32_t> metric_at_;
  absl::flat_hash_map<uint32_t, int32_t> indom_by_serial_;
};

absl::StatusOr<MmvFile> Parser::Parse() {
  absl::StatusOr<MmvHeader> header = ParseMmvHeader(bytes_);
  if (!header.ok()) return header.status();
  file_.header = *header;
  file_.size = bytes_.size();
  if (absl::Status s = ParseToc(); !s.ok()) return s;
  // Order matters: strings are needed by everything, indoms by metrics,
  // metrics and instances by values and labels.
  if (const MmvSection* s = Find(MmvTocType::kIndoms)) {
    if (absl::Status st = ParseIndoms(*s); !st.ok()) return st;
  }
  if (absl::Status st = ParseMetrics(*Find(MmvTocType::kMetrics)); !st.ok()) {
    return st;
  }
  if (absl::Status st = ParseValues(*Find(MmvTocType::kValues)); !st.ok()) {
    return st;
  }
  if (const MmvSection* s = Find(MmvTocType::kLabels)) {
    if (absl::Status st = ParseLabels(*s); !st.ok()) return st;
  }
  return std::move(file_);
}

absl::Status Parser::ParseToc() {
  const MmvHeader& h = file_.header;
  if (h.toc_count < 2) {  // M5
    return DataLossAt(24, absl::StrCat("TOC count ", h.toc_count,
                                       " is less than 2"));
  }
  const uint64_t toc_end =
      kTocOffset + static_cast<uint64_t>(h.toc_count) * sizeof(MmvDiskToc);
  if (toc_end > bytes_.size()) {  // M6
    return DataLossAt(24, absl::StrCat("TOC of ", h.toc_count,
                                       " entries ends at ", toc_end,
                                       ", past the end of the file (",
                                       bytes_.size(), " bytes)"));
  }
  for (int32_t i = 0; i < h.toc_count; ++i) {
    const uint64_t at = kTocOffset + i * sizeof(MmvDiskToc);
    const MmvDiskToc toc = LoadAt<MmvDiskToc>(bytes_, at);
    if (toc.type < 1 || toc.type > 6) {  // M7
      return DataLossAt(at, absl::StrCat("TOC entry ", i,
                                         ": unknown section type ", toc.type));
    }
    const auto type = static_cast<MmvTocType>(toc.type);
    if (Find(type) != nullptr) {  // M8
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": second ",
                                         SectionName(type), " section"));
    }
    if (type == MmvTocType::kLabels && h.version < kMmvVersion3) {  // M13
      return DataLossAt(at, absl::StrCat("TOC entry ", i,
                                         ": LABELS section in a version ",
                                         h.version, " file"));
    }
    if (toc.count < 0) {  // M10
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": ",
                                         SectionName(type), " count ",
                                         toc.count, " is negative"));
    }
    if (type == MmvTocType::kLabels &&
        static_cast<uint32_t>(toc.count) > kMmvMaxLabels) {  // M13
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": ", toc.count,
                                         " labels, more than ", kMmvMaxLabels));
    }
    MmvSection s{type, static_cast<uint32_t>(toc.count), toc.offset,
                  static_cast<uint64_t>(toc.count) * EntrySize(type, h.version)};
    if (s.count > 0) {
      if (s.offset > bytes_.size() || s.size > bytes_.size() - s.offset) {
        return DataLossAt(at, absl::StrCat(  // M10
                                  "TOC entry ", i, ": ", SectionName(type),
                                  " section of ", s.count, " entries at ",
                                  s.offset, " runs past the end of the file (",
                                  bytes_.size(), " bytes)"));
      }
      if (s.offset % kMmvSectionAlign != 0 || s.offset < toc_end) {  // M11
        return DataLossAt(at, absl::StrCat(
                                  "TOC entry ", i, ": ", SectionName(type),
                                  " section offset ", s.offset,
                                  s.offset < toc_end
                                      ? absl::StrCat(" lies inside the header "
                                                     "and TOC (which end at ",
                                                     toc_end, ")")
                                      : " is not 8-byte aligned"));
      }
    }
    file_.sections.push_back(s);
  }
  for (MmvTocType required : {MmvTocType::kMetrics, MmvTocType::kValues}) {
    if (Find(required) == nullptr) {  // M9
      return DataLossAt(kTocOffset, absl::StrCat("no ", SectionName(required),
                                                 " section in the TOC"));
    }
  }
  std::vector<MmvSection> sorted;
  for (const MmvSection& s : file_.sections) {
    if (s.count > 0) sorted.push_back(s);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const MmvSection& a, const MmvSection& b) {
              return a.offset < b.offset;
            });
  for (size_t i = 1; i < sorted.size(); ++i) {
    const MmvSection& a = sorted[i - 1];
    const MmvSection& b = sorted[i];
    if (a.offset + a.size > b.offset) {  // M12
      return DataLossAt(b.offset,
                        absl::StrCat(SectionName(b.type), " section at ",
                                     b.offset, " overlaps ", SectionName(a.type),
                                     " section [", a.offset, ", ",
                                     a.offset + a.size, ")"));
    }
  }
  const MmvSection* values = Find(MmvTocType::kValues);
  file_.values_offset = values->offset;
  file_.values_size = values->size;
  if (const MmvSection* strings = Find(MmvTocType::kStrings)) {
    file_.strings_offset = strings->offset;
    file_.strings_size = strings->size;
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseIndoms(const MmvSection& s) {
  const int32_t version = file_.header.version;
  const MmvSection* inst = Find(MmvTocType::kInstances);
  const uint64_t isize = EntrySize(MmvTocType::kInstances, version);
  for (uint32_t j = 0; j < s.count; ++j) {
    const uint64_t at = s.offset + j * sizeof(MmvDiskIndom);
    const MmvDiskIndom d = LoadAt<MmvDiskIndom>(bytes_, at);
    MmvIndom indom;
    indom.serial = d.serial;
    indom.offset = at;
    if (!indom_by_serial_.emplace(d.serial, file_.indoms.size()).second) {
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
    absl::StatusOr<std::string> short_help = Help(d.shorttext, at + 16);
    if (!short_help.ok()) return short_help.status();
    absl::StatusOr<std::string> long_help = Help(d.helptext, at + 24);
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
        const auto e = LoadAt<MmvDiskInstance1>(bytes_, iat);
        owner = e.indom;
        instance.internal = e.internal;
        absl::StatusOr<std::string> name = FixedString(
            bytes_, iat + offsetof(MmvDiskInstance1, external), kMmvNameMax,
            "instance name");
        if (!name.ok()) return name.status();  // M15
        instance.external = std::move(*name);
      } else {
        const auto e = LoadAt<MmvDiskInstance2>(bytes_, iat);
        owner = e.indom;
        instance.internal = e.internal;
        absl::StatusOr<std::string> name = ReadMmvString(
            bytes_, file_, e.external,
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
      instance_at_[iat] = {static_cast<int32_t>(file_.indoms.size()),
                           static_cast<int32_t>(indom.instances.size())};
      indom.instances.push_back(std::move(instance));
    }
    file_.indoms.push_back(std::move(indom));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseMetrics(const MmvSection& s) {
  const int32_t version = file_.header.version;
  const uint64_t msize = EntrySize(MmvTocType::kMetrics, version);
  absl::flat_hash_set<uint32_t> items;
  for (uint32_t j = 0; j < s.count; ++j) {
    const uint64_t at = s.offset + j * msize;
    MmvMetric m;
    m.offset = at;
    int32_t type, sem, indom;
    uint64_t shorttext, helptext, help_field;
    if (version == kMmvVersion1) {
      const auto d = LoadAt<MmvDiskMetric1>(bytes_, at);
      absl::StatusOr<std::string> name =
          FixedString(bytes_, at, kMmvNameMax, "metric name");
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
      const auto d = LoadAt<MmvDiskMetric2>(bytes_, at);
      absl::StatusOr<std::string> name = ReadMmvString(bytes_, file_, d.name, at);
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
    if (sem != kMmvSemUnset && sem != kMmvSemCounter &&
        sem != kMmvSemInstant && sem != kMmvSemDiscrete) {  // M19
      return DataLossAt(at, absl::StrCat("metric ", m.name,
                                         ": unknown semantics ", sem));
    }
    m.semantics = sem;
    // A second metric with an item is ignored by PCP, not the file.
    m.duplicate_item = !items.insert(m.item).second;
    m.indom = static_cast<uint32_t>(indom);
    // pmdammv treats serial 0 and PM_INDOM_NULL alike: a singular metric.
    if (m.indom != 0 && m.indom != kMmvIndomNull) {
      auto it = indom_by_serial_.find(m.indom);
      if (it == indom_by_serial_.end()) {  // M23
        return DataLossAt(at, absl::StrCat("metric ", m.name,
                                           ": unknown indom ", m.indom));
      }
      m.indom_index = it->second;
    }
    absl::StatusOr<std::string> short_help = Help(shorttext, help_field);
    if (!short_help.ok()) return short_help.status();
    absl::StatusOr<std::string> long_help = Help(helptext, help_field + 8);
    if (!long_help.ok()) return long_help.status();
    m.short_help = std::move(*short_help);
    m.long_help = std::move(*long_help);
    metric_at_[at] = file_.metrics.size();
    file_.metrics.push_back(std::move(m));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseValues(const MmvSection& s) {
  file_.values.reserve(s.count);
  // (metric index, instance index + 1) of every value, to find duplicates
  // (M26). Sized by the values present: metrics x instances can pass 2^32
  // in a file of a few megabytes.
  absl::flat_hash_set<uint64_t> seen;
  seen.reserve(s.count);
  for (uint32_t j = 0; j < s.count; ++j) {
    const uint64_t at = s.offset + j * sizeof(MmvDiskValue);
    const auto d = LoadAt<MmvDiskValue>(bytes_, at);
    auto mit = metric_at_.find(d.metric);
    if (mit == metric_at_.end()) {  // M24
      return DataLossAt(at + offsetof(MmvDiskValue, metric),
                        absl::StrCat("value names metric offset ", d.metric,
                                     ", which is not a metric entry"));
    }
    MmvValueEntry v;
    v.metric_index = mit->second;
    v.offset = at;
    const MmvMetric& m = file_.metrics[v.metric_index];
    if (m.indom_index < 0) {
      if (d.instance != 0) {  // M25
        return DataLossAt(at + offsetof(MmvDiskValue, instance),
                          absl::StrCat("value of singular metric ", m.name,
                                       " names instance offset ", d.instance));
      }
    } else {
      auto iit = instance_at_.find(d.instance);
      if (iit == instance_at_.end() || iit->second.first != m.indom_index) {
        return DataLossAt(  // M25
            at + offsetof(MmvDiskValue, instance),
            absl::StrCat("value of metric ", m.name, " names instance offset ",
                         d.instance, ", which is not an instance of indom ",
                         m.indom));
      }
      v.instance_index = iit->second.second;
      v.instance = file_.indoms[m.indom_index].instances[v.instance_index].internal;
    }
    const uint64_t key = (uint64_t{v.metric_index} << 32) |
                         static_cast<uint32_t>(v.instance_index + 1);
    if (!seen.insert(key).second) {  // M26
      return DataLossAt(at, absl::StrCat("second value for metric ", m.name,
                                         v.instance_index >= 0
                                             ? absl::StrCat(" instance ",
                                                            v.instance)
                                             : std::string()));
    }
    file_.values.push_back(v);
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseLabels(const MmvSection& s) {
  for (uint32_t j = 0; j < s.count; ++j) {
    const uint64_t at = s.offset + j * sizeof(MmvDiskLabel);
    const auto d = LoadAt<MmvDiskLabel>(bytes_, at);
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
        FixedString(bytes_, at + offsetof(MmvDiskLabel, payload), kMmvLabelMax,
                    "label payload");
    if (!payload.ok()) return payload.status();  // M15
    l.payload = std::move(*payload);
    bool known = true;
    if (type == kMmvLabelItem) {
      known = std::any_of(file_.metrics.begin(), file_.metrics.end(),
                          [&](const MmvMetric& m) { return m.item == d.identity; });
    } else if (type == kMmvLabelIndom || type == kMmvLabelInstances) {
      auto it = indom_by_serial_.find(d.identity);
      known = it != indom_by_serial_.end();
      if (known && type == kMmvLabelInstances) {
        const auto& insts = file_.indoms[it->second].instances;
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
    file_.labels.push_back(std::move(l));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MmvHeader> ParseMmvHeader(std::span<const uint8_t> bytes) {
  if (bytes.size() < kMmvHeaderSize) {  // M1
    return ErrorAt(absl::StatusCode::kInvalidArgument, 0,
                   absl::StrCat("file is ", bytes.size(),
                                " bytes, shorter than the ", kMmvHeaderSize,
                                "-byte MMV header"));
  }
  const auto d = LoadNative<MmvDiskHeader>(bytes.data());
  if (std::memcmp(d.magic, kMmvMagic, sizeof(kMmvMagic)) != 0) {  // M2
    // Not an MMV file: say so without echoing any of its bytes (it may be
    // anything a symlink or a stray file put there).
    return ErrorAt(absl::StatusCode::kInvalidArgument, 0,
                   "bad magic: not an MMV file (expected \"MMV\\0\")");
  }
  if (d.version < kMmvVersion1 || d.version > kMmvVersion3) {  // M3
    return ErrorAt(absl::StatusCode::kUnimplemented, 4,
                   absl::StrCat("unknown MMV version ", d.version,
                                " (know 1, 2, 3)"));
  }
  if (d.g1 == 0 || d.g1 != d.g2) {  // M4
    return ErrorAt(absl::StatusCode::kUnavailable, 8,
                   absl::StrCat("generation not settled (g1 ", d.g1, ", g2 ",
                                d.g2, "): file being written"));
  }
  MmvHeader h;
  h.version = d.version;
  h.generation1 = d.g1;
  h.generation2 = d.g2;
  h.toc_count = d.tocs;
  h.flags = d.flags;
  h.process = d.process;
  h.cluster = d.cluster;
  return h;
}

absl::StatusOr<uint64_t> MmvExtent(std::span<const uint8_t> prefix, uint64_t file_size) {
  absl::StatusOr<MmvHeader> h = ParseMmvHeader(prefix);
  if (!h.ok()) return h.status();
  if (h->toc_count < 2) {  // M5
    return DataLossAt(24, absl::StrCat("TOC count ", h->toc_count, " is less than 2"));
  }
  const uint64_t toc_end = kTocOffset + static_cast<uint64_t>(h->toc_count) * sizeof(MmvDiskToc);
  if (toc_end > file_size) {  // M6, from the sizes alone
    return DataLossAt(24, absl::StrCat("TOC count ", h->toc_count, " (ending at ", toc_end,
                                       ") exceeds the file's ", file_size, " bytes"));
  }
  if (toc_end > prefix.size()) {
    return absl::InvalidArgumentError(absl::StrCat("MmvExtent: needs the first ", toc_end,
                                                   " bytes, given ", prefix.size()));
  }
  uint64_t extent = toc_end;
  for (int32_t i = 0; i < h->toc_count; ++i) {
    const uint64_t at = kTocOffset + i * sizeof(MmvDiskToc);
    const MmvDiskToc toc = LoadAt<MmvDiskToc>(prefix, at);
    if (toc.type < 1 || toc.type > 6) {  // M7
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": unknown section type ", toc.type));
    }
    const auto type = static_cast<MmvTocType>(toc.type);
    if (toc.count < 0) {  // M10
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": ", SectionName(type), " count ",
                                         toc.count, " is negative"));
    }
    if (toc.count == 0) continue;
    const uint64_t size = static_cast<uint64_t>(toc.count) * EntrySize(type, h->version);
    if (toc.offset > file_size || size > file_size - toc.offset) {  // M10
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": ", SectionName(type), " section of ",
                                         toc.count, " entries at ", toc.offset,
                                         " runs past the end of the file (", file_size,
                                         " bytes)"));
    }
    extent = std::max(extent, toc.offset + size);
  }
  return extent;
}

absl::StatusOr<MmvFile> ParseMmv(std::span<const uint8_t> bytes) {
  return Parser(bytes).Parse();
}

absl::StatusOr<std::string> ReadMmvString(std::span<const uint8_t> bytes,
                                          const MmvFile& file, uint64_t offset,
                                          uint64_t referrer) {
  const uint64_t begin = file.strings_offset;
  const uint64_t end = begin + file.strings_size;
  // Anywhere inside the section, as PCP's MMV agent reads them: libpcp_mmv
  // puts strings on 256-byte slots, other writers need not.
  if (file.strings_size == 0 || offset < begin || offset >= end ||
      end > bytes.size()) {  // M14
    return DataLossAt(
        referrer,
        absl::StrCat("string offset ", offset,
                     file.strings_size == 0
                         ? std::string(" but the file has no STRINGS section")
                         : absl::StrCat(" is not inside the STRINGS section [",
                                        begin, ", ", end, ")")));
  }
  return FixedString(bytes, offset,
                     static_cast<size_t>(std::min<uint64_t>(kMmvStringSlotSize, end - offset)),
                     "string");  // M15
}

absl::StatusOr<MmvValue> ReadMmvValue(std::span<const uint8_t> bytes,
                                      const MmvFile& file,
                                      const MmvValueEntry& entry) {
  if (entry.offset + sizeof(MmvDiskValue) > bytes.size()) {
    return ErrorAt(absl::StatusCode::kOutOfRange, entry.offset,
                   "value entry past the end of the image");
  }
  const MmvMetric& m = file.metrics[entry.metric_index];
  const uint8_t* p = bytes.data() + entry.offset;
  MmvValue v;
  v.type = m.type;
  v.u64 = LoadNative<uint64_t>(p + kMmvValueAtomOffset);
  v.extra = LoadNative<int64_t>(p + kMmvValueExtraOffset);
  // pmAtomValue is a union: every member starts at its first byte.
  switch (m.type) {
    case MmvType::kI32:
      v.i64 = LoadNative<int32_t>(p);
      break;
    case MmvType::kU32:
      v.u64 = LoadNative<uint32_t>(p);
      break;
    case MmvType::kI64:
    case MmvType::kElapsed:
      v.i64 = LoadNative<int64_t>(p);
      break;
    case MmvType::kU64:
    case MmvType::kNoSupport:
      break;
    case MmvType::kFloat:
      v.f64 = LoadNative<float>(p);
      break;
    case MmvType::kDouble:
      v.f64 = LoadNative<double>(p);
      break;
    case MmvType::kString: {
      absl::StatusOr<std::string> s = ReadMmvString(
          bytes, file, static_cast<uint64_t>(v.extra),
          entry.offset + kMmvValueExtraOffset);  // M30
      if (!s.ok()) return s.status();
      v.str = std::move(*s);
      break;
    }
  }
  return v;
}

bool IsKnownMmvType(int32_t type) {
  return (type >= -1 && type <= 6) || type == 9;
}

const char* MmvTypeName(MmvType type) {
  switch (type) {
    case MmvType::kNoSupport: return "unsupported";
    case MmvType::kI32: return "32-bit int";
    case MmvType::kU32: return "32-bit unsigned int";
    case MmvType::kI64: return "64-bit int";
    case MmvType::kU64: return "64-bit unsigned int";
    case MmvType::kFloat: return "float";
    case MmvType::kDouble: return "double";
    case MmvType::kString: return "string";
    case MmvType::kElapsed: return "elapsed";
  }
  return "?";
}

const char* MmvSemanticsName(int32_t semantics) {
  switch (semantics) {
    case kMmvSemUnset: return "counter (unset)";
    case kMmvSemCounter: return "counter";
    case kMmvSemInstant: return "instant";
    case kMmvSemDiscrete: return "discrete";
  }
  return "?";
}

}  // namespace mmvlog::format

#include "archiver/mmv/mmv_mapping.h"

#include <fnmatch.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/endian.h"
#include "format/archive/label_json.h"
#include "format/archive/label_merge.h"
#include "format/pm_units.h"

namespace mmvlog::archiver {
namespace {

using format::MmvFile;
using format::MmvType;

bool KnownSemantics(int32_t sem) {
  return sem == format::kMmvSemUnset || sem == format::kMmvSemCounter ||
         sem == format::kMmvSemInstant || sem == format::kMmvSemDiscrete;
}

int32_t PcpType(MmvType t) {
  switch (t) {
    case MmvType::kI32: return format::kType32;
    case MmvType::kU32: return format::kTypeU32;
    case MmvType::kI64: return format::kType64;
    case MmvType::kU64: return format::kTypeU64;
    case MmvType::kFloat: return format::kTypeFloat;
    case MmvType::kDouble: return format::kTypeDouble;
    case MmvType::kString: return format::kTypeString;
    case MmvType::kElapsed: return format::kType64;
    case MmvType::kNoSupport: return format::kTypeNoSupport;
  }
  return format::kTypeNoSupport;
}

bool Selected(const MappingOptions& o, const std::string& name) {
  auto any = [&](const std::vector<std::string>& globs) {
    return std::any_of(globs.begin(), globs.end(), [&](const std::string& g) {
      return ::fnmatch(g.c_str(), name.c_str(), 0) == 0;
    });
  };
  return (o.include.empty() || any(o.include)) && !any(o.exclude);
}

}  // namespace

bool IsValidPcpName(absl::string_view name) {
  if (name.empty() || !absl::ascii_isalpha(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == '.';
  });
}

void MmvMapper::ReserveClusters(
    const std::vector<std::pair<std::string, int32_t>>& files) {
  for (const auto& [name, cluster] : files) {
    if (cluster <= 0 || cluster > format::kMmvMaxCluster) continue;
    reserved_.try_emplace(static_cast<uint32_t>(cluster), name);
  }
}

void MmvMapper::Seed(const std::vector<format::Desc>& descs) {
  for (const format::Desc& d : descs) {
    // Not the logger's own metrics (the prologue's pmcd.*, domain 2).
    if (format::PmidDomain(d.pmid) != options_.domain) continue;
    for (const std::string& n : d.names) pmid_of_name_[n] = d.pmid;
    // Owned by an archived file we have not seen yet: not for new files.
    file_of_cluster_.try_emplace(format::PmidCluster(d.pmid), "");
  }
}

absl::StatusOr<uint32_t> MmvMapper::ClusterFor(const std::string& name,
                                               int32_t requested,
                                               std::optional<uint32_t> seeded, bool noprefix,
                                               bool* shared) {
  if (requested < 0 || requested > format::kMmvMaxCluster) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster ", requested, " in the header is outside 0..",
        format::kMmvMaxCluster, " (pmdammv rejects the file too)"));
  }
  if (auto it = cluster_of_file_.find(name); it != cluster_of_file_.end()) {
    auto owner = file_of_cluster_.find(it->second);
    *shared = owner != file_of_cluster_.end() && owner->second != name;
    return it->second;  // stable for the life of the archive
  }
  if (noprefix && requested > 0 &&
      noprefix_clusters_.contains(static_cast<uint32_t>(requested))) {
    // pmdammv's shared cluster: one namespace, instances merged.
    cluster_of_file_[name] = static_cast<uint32_t>(requested);
    *shared = true;
    return static_cast<uint32_t>(requested);
  }
  if (seeded) {
    // The archive being continued already holds this file's metrics.
    auto owner = file_of_cluster_.find(*seeded);
    if (owner == file_of_cluster_.end() || owner->second.empty() || owner->second == name) {
      cluster_of_file_[name] = *seeded;
      file_of_cluster_[*seeded] = name;
      if (noprefix) noprefix_clusters_.insert(*seeded);
      return *seeded;
    }
  }
  auto free_for_us = [&](uint32_t c) {
    if (file_of_cluster_.contains(c)) return false;
    auto r = reserved_.find(c);
    return r == reserved_.end() || r->second == name;
  };
  uint32_t cluster = 0;
  if (requested > 0 && !file_of_cluster_.contains(static_cast<uint32_t>(requested))) {
    cluster = static_cast<uint32_t>(requested);
  } else {
    for (uint32_t c = 1; c <= static_cast<uint32_t>(format::kMmvMaxCluster); ++c) {
      if (free_for_us(c)) {
        cluster = c;
        break;
      }
    }
    if (cluster == 0) return absl::ResourceExhaustedError("no free cluster");
  }
  cluster_of_file_[name] = cluster;
  file_of_cluster_[cluster] = name;
  // Only a cluster the file asked for can be shared: an automatic one is
  // no number another file could name.
  if (noprefix && cluster == static_cast<uint32_t>(requested)) noprefix_clusters_.insert(cluster);
  return cluster;
}

uint32_t MmvMapper::IndomId(uint32_t cluster, uint32_t serial) const {
  return format::InDomBuild(options_.domain, (cluster << 11) | serial);
}

absl::StatusOr<MappedFile> MmvMapper::Map(const std::string& name,
                                          std::shared_ptr<const MmvFile> mmv) {
  const MmvFile& f = *mmv;
  const bool noprefix = (f.header.flags & format::kMmvFlagNoPrefix) != 0;
  const std::string prefix = noprefix ? absl::StrCat(options_.prefix, ".")
                                      : absl::StrCat(options_.prefix, ".", name, ".");
  std::optional<uint32_t> seeded;
  for (const format::MmvMetric& m : f.metrics) {
    auto it = pmid_of_name_.find(prefix + m.name);
    if (it != pmid_of_name_.end()) {
      seeded = format::PmidCluster(it->second);
      break;
    }
  }
  bool shared = false;
  absl::StatusOr<uint32_t> cluster = ClusterFor(name, f.header.cluster, seeded, noprefix, &shared);
  if (!cluster.ok()) return cluster.status();
  MappedFile out;
  out.name = name;
  out.mmv = mmv;
  out.cluster = *cluster;
  out.shares_cluster = shared;
  out.sentinel = (f.header.flags & format::kMmvFlagSentinel) != 0;
  if (f.header.cluster > 0 && static_cast<uint32_t>(f.header.cluster) != out.cluster) {
    out.warnings.push_back(absl::StrCat("requested cluster ", f.header.cluster,
                                        " belongs to another file; using cluster ", out.cluster));
  }
  if (absl::Status s = MapMetrics(name, prefix, &out); !s.ok()) return s;
  out.fixed_layout = !out.sentinel && f.size <= std::numeric_limits<uint32_t>::max() &&
                     std::all_of(out.metrics.begin(), out.metrics.end(), [](const MappedMetric& m) {
                       switch (m.mmv_type) {
                         case MmvType::kI32:
                         case MmvType::kU32:
                         case MmvType::kI64:
                         case MmvType::kU64:
                         case MmvType::kFloat:
                         case MmvType::kDouble:
                         case MmvType::kString:
                         case MmvType::kElapsed:
                           return true;
                         default:
                           return false;
                       }
                     });
  NoteValueRange(&out);
  return out;
}

void NoteValueRange(MappedFile* f) {
  size_t from = SIZE_MAX, to = 0;
  for (const MappedMetric& m : f->metrics) {
    for (uint32_t o : m.offsets) {
      from = std::min<size_t>(from, o);
      to = std::max<size_t>(to, size_t{o} + sizeof(format::MmvDiskValue));
    }
  }
  f->values_from = from < to ? from : 0;
  f->values_to = from < to ? to : 0;
}

absl::Status MmvMapper::MapMetrics(const std::string& name, const std::string& prefix,
                                   MappedFile* out) {
  const MmvFile& f = *out->mmv;
  // Values per metric, in indom instance order.
  std::vector<std::vector<uint32_t>> values_of(f.metrics.size());
  for (uint32_t i = 0; i < f.values.size(); ++i) values_of[f.values[i].metric_index].push_back(i);
  for (auto& v : values_of) {
    std::stable_sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) {
      return f.values[a].instance_index < f.values[b].instance_index;
    });
  }
  absl::flat_hash_map<uint32_t, uint32_t> pmid_of_item;
  absl::flat_hash_set<std::string> names_here;  // names met in this call
  std::vector<bool> indom_used(f.indoms.size(), false);
  if (f.metrics.size() > format::kMmvMaxMetrics) {
    out->warnings.push_back(absl::StrCat(f.metrics.size(), " metrics, more than ",
                                         format::kMmvMaxMetrics, ": none exported (as pmdammv)"));
  } else {
    for (size_t i = 0; i < f.metrics.size(); ++i) {
      const format::MmvMetric& m = f.metrics[i];
      absl::StatusOr<std::optional<MappedMetric>> mm =
          MapMetric(name, prefix + m.name, m, &names_here, out);
      if (!mm.ok()) return mm.status();
      if (!mm->has_value()) continue;
      MappedMetric& metric = **mm;
      if (m.indom_index >= 0) indom_used[m.indom_index] = true;
      metric.values = std::move(values_of[i]);
      metric.offsets.reserve(metric.values.size());
      for (uint32_t idx : metric.values) metric.offsets.push_back(static_cast<uint32_t>(f.values[idx].offset));
      const uint32_t pmid = metric.desc.pmid;
      if (!m.short_help.empty()) {
        out->texts.push_back({format::kTextOneLine | format::kTextPmid, pmid, m.short_help});
      }
      if (!m.long_help.empty()) {
        out->texts.push_back({format::kTextHelp | format::kTextPmid, pmid, m.long_help});
      }
      pmid_of_item[m.item] = pmid;
      out->metrics.push_back(std::move(metric));
    }
  }
  MapIndoms(indom_used, out);
  MapLabels(pmid_of_item, out);
  return absl::OkStatus();
}

// One piece: pmdammv's rules for one metric in its order (mmv.c
// create_metric and map_stats).
absl::StatusOr<std::optional<MappedMetric>> MmvMapper::MapMetric(
    const std::string& name, const std::string& full, const format::MmvMetric& m,
    absl::flat_hash_set<std::string>* names_here, MappedFile* out) {
  // What pmdammv does not export, or exports as no PCP tool can read it.
  std::string skip;
  if (m.type == MmvType::kNoSupport) {
    skip = absl::StrCat(full, ": type NOSUPPORT, not exported");
  } else if (m.type != MmvType::kElapsed && !KnownSemantics(m.semantics)) {
    // pmdammv would export it with that number as its semantics, which no
    // PCP tool can interpret (pminfo: "???"): this metric is left out, not
    // the file.
    skip = absl::StrCat("offset ", m.offset, ": ", full, ": unknown semantics ", m.semantics,
                        ", not exported");
  } else if (m.duplicate_item) {
    skip = absl::StrCat(full, ": item ", m.item, " is an earlier metric's; ignored, as PCP does");
  } else if (m.item > format::kMmvMaxItem) {
    skip = absl::StrCat(full, ": item ", m.item, " does not fit a PMID (max 1023)");
  } else if (!Selected(options_, full)) {
    return std::nullopt;
  } else if (!IsValidPcpName(full)) {
    skip = absl::StrCat(full, ": not a valid PCP metric name");
  }
  if (!skip.empty()) {
    out->warnings.push_back(std::move(skip));
    return std::nullopt;
  }
  const uint32_t pmid = format::PmidBuild(options_.domain, out->cluster, m.item);
  auto [it, inserted] = pmid_of_name_.try_emplace(full, pmid);
  auto first = first_of_pmid_.find(it->second);
  const bool others = first != first_of_pmid_.end() && first->second.first != name;
  if (!inserted && it->second != pmid && others) {
    out->warnings.push_back(absl::StrCat(full, ": name already used by ", first->second.first,
                                         " for item ", format::PmidItem(it->second),
                                         " of the shared cluster; ignored, as PCP does"));
    return std::nullopt;
  }
  if (!inserted && it->second != pmid && format::PmidCluster(it->second) == out->cluster &&
      !names_here->contains(full)) {
    // This file's own metric, mapped before under another item: the name
    // would change PMID, which one archive cannot hold.
    return absl::AlreadyExistsError(absl::StrCat(full, ": was PMID ",
                                                 format::PmidCluster(it->second), ".",
                                                 format::PmidItem(it->second), ", now item ", m.item));
  }
  names_here->insert(full);
  if (!inserted && it->second != pmid) {
    out->warnings.push_back(absl::StrCat(full, ": name already used by PMID ",
                                         format::PmidCluster(it->second), ".",
                                         format::PmidItem(it->second)));
    return std::nullopt;
  }
  MappedMetric mm;
  mm.mmv_type = m.type;
  mm.desc.pmid = pmid;
  mm.desc.type = PcpType(m.type);
  mm.desc.sem = m.semantics == format::kMmvSemUnset ? format::kSemCounter : m.semantics;
  format::PmUnits units = format::UnitsFromWord(m.units);
  // PCP 7.2's extra units (temperature, voltage, current, power) are kept
  // as pmdammv keeps the whole word (mmv.c create_metric). Bits 7.2 does
  // not know are what a writer for older PCP left in the pad byte: pmdammv
  // would pass them on, and 7.2's pminfo then reports the descriptor as an
  // error; they are dropped, saying so.
  if (!format::ExtraUnitsValid(units)) {
    out->warnings.push_back(absl::StrCat(
        full, ": units word 0x", absl::Hex(m.units, absl::kZeroPad8),
        " has extra-unit bits PCP 7.2 does not know (unit ", units.extra_unit, ", scale ",
        units.extra_scale, "); recorded without them"));
    units.extra_unit = 0;
    units.extra_scale = 0;
  }
  if (m.type == MmvType::kElapsed) {
    units = {};
    units.dim_time = 1;
    units.scale_time = format::kTimeUsec;
    mm.desc.sem = format::kSemCounter;
  }
  mm.desc.units = format::UnitsToWord(units);
  mm.desc.indom = m.indom_index >= 0 ? IndomId(out->cluster, m.indom) : format::kIndomNull;
  mm.desc.names = {full};
  if (noprefix_clusters_.contains(out->cluster)) {
    // A shared cluster: the first file to define a PMID decides it.
    auto [f1, added] = first_of_pmid_.try_emplace(pmid, name, mm.desc);
    if (!added && f1->second.first != name && !(f1->second.second == mm.desc)) {
      if (inserted) pmid_of_name_.erase(full);
      out->warnings.push_back(absl::StrCat(
          full, ": item ", m.item, " is defined differently by ", f1->second.first, " (",
          f1->second.second.names.empty() ? "" : f1->second.second.names[0],
          ") in the shared cluster; ignored, as PCP keeps the first"));
      return std::nullopt;
    }
    if (f1->second.first == name) f1->second.second = mm.desc;
  }
  return mm;
}

void MmvMapper::MapIndoms(const std::vector<bool>& used, MappedFile* out) const {
  const MmvFile& f = *out->mmv;
  for (size_t i = 0; i < f.indoms.size(); ++i) {
    const format::MmvIndom& d = f.indoms[i];
    if (!used[i]) continue;
    format::InDom indom;
    indom.indom = IndomId(out->cluster, d.serial);
    for (const format::MmvInstance& inst : d.instances) {
      indom.instances.push_back({inst.internal, inst.external, false});
    }
    if (!d.short_help.empty()) {
      out->texts.push_back({format::kTextOneLine | format::kTextIndom, indom.indom, d.short_help});
    }
    if (!d.long_help.empty()) {
      out->texts.push_back({format::kTextHelp | format::kTextIndom, indom.indom, d.long_help});
    }
    out->indoms.push_back(std::move(indom));
  }
}

// Each payload a set of its own, with its own flags, grouped by (type,
// ident, instance) in file order, then merged as pmdammv's __pmAddLabels
// calls merge them. A payload libpcp would refuse is left out, as pmdammv
// leaves it, and the others are kept.
void MmvMapper::MapLabels(const absl::flat_hash_map<uint32_t, uint32_t>& pmid_of_item,
                          MappedFile* out) const {
  const MmvFile& f = *out->mmv;
  std::map<std::tuple<uint32_t, uint32_t, int32_t>, std::vector<format::LabelSet>> groups;
  for (const format::MmvLabel& l : f.labels) {
    const uint32_t type = l.flags & format::kMmvLabelTypeMask;
    uint32_t ident = 0;
    int32_t inst = format::kInNull;
    if (type == format::kMmvLabelCluster) {
      // libpcp_mmv stores the requested cluster: accept it or the assigned one.
      if (l.identity != out->cluster && l.identity != static_cast<uint32_t>(f.header.cluster)) {
        out->warnings.push_back(absl::StrCat("cluster label ", l.payload, " names cluster ",
                                             l.identity, ": dropped"));
        continue;
      }
      ident = format::PmidBuild(options_.domain, out->cluster, 0);
    } else if (type == format::kMmvLabelItem) {
      auto it = pmid_of_item.find(l.identity);
      if (it == pmid_of_item.end()) continue;  // its metric is not exported
      ident = it->second;
    } else {
      ident = IndomId(out->cluster, l.identity);
      if (type == format::kMmvLabelInstances) inst = l.internal;
    }
    const uint8_t flags = static_cast<uint8_t>(
        type | ((l.flags & format::kMmvLabelOptional) ? format::kLabelOptional : 0));
    absl::StatusOr<format::LabelSet> set =
        format::MakeLabelSet(inst, l.payload, flags, format::LabelOrder::kAsWritten);
    if (!set.ok()) {
      out->warnings.push_back(absl::StrCat("labels ", l.payload, ": ", set.status().message()));
      continue;
    }
    groups[{type, ident, inst}].push_back(std::move(*set));
  }
  std::map<std::pair<uint32_t, uint32_t>, format::LabelRecord> records;
  for (auto& [key, sets] : groups) {
    const auto [type, ident, inst] = key;
    absl::StatusOr<format::LabelSet> set = format::MergeLabelSets(inst, sets);
    if (!set.ok()) {
      out->warnings.push_back(absl::StrCat("labels ", sets.front().json, ": ", set.status().message()));
      continue;
    }
    format::LabelRecord& r = records[{type, ident}];
    r.type = type;
    r.ident = ident;
    r.sets.push_back(std::move(*set));
  }
  for (auto& [key, r] : records) out->labels.push_back(std::move(r));
}

}  // namespace mmvlog::archiver

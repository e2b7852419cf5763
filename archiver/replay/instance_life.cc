#include "archiver/replay/instance_life.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "format/archive/archive_format.h"
#include "format/archive/meta_indom.h"

namespace mmvlog::archiver {
namespace {

constexpr size_t kBigInDom = 16;  // interp.c's HASH_THRESHOLD

int64_t Ns(const format::Timestamp& t) { return t.sec * 1000000000 + t.nsec; }

}  // namespace

std::vector<InstanceLife> DiscreteLifetimes(const ColumnSet& columns, const ArchiveSet& archives) {
  std::vector<InstanceLife> life(columns.size());
  absl::flat_hash_map<uint32_t, bool> done;
  for (const ReplayMetric& m : columns.metrics()) {
    if (m.desc.sem != format::kSemDiscrete || m.desc.indom == format::kIndomNull) continue;
    // The domain's observations over every archive, oldest first.
    std::vector<const format::InDom*> obs;
    size_t most = 0;
    for (const ArchiveEntry& a : archives.archives()) {
      if (a.catalog == nullptr) continue;
      auto it = a.catalog->meta.indoms.find(m.desc.indom);
      if (it == a.catalog->meta.indoms.end()) continue;
      for (const format::InDom& d : it->second) {
        obs.push_back(&d);
        most = std::max(most, d.instances.size());
      }
    }
    if (most < kBigInDom) continue;
    std::stable_sort(obs.begin(), obs.end(), [](const format::InDom* a, const format::InDom* b) {
      return a->timestamp < b->timestamp;
    });
    // Per instance: the oldest and newest observation listing it.
    absl::flat_hash_map<int32_t, std::pair<size_t, size_t>> seen;
    for (size_t k = 0; k < obs.size(); ++k) {
      for (const format::InDomInstance& i : obs[k]->instances) {
        if (i.deleted) continue;
        auto [it, fresh] = seen.try_emplace(i.inst, k, k);
        if (!fresh) it->second.second = k;
      }
    }
    for (size_t c : m.columns) {
      auto it = seen.find(columns.columns()[c].inst);
      if (it == seen.end()) continue;
      life[c].birth_ns = Ns(obs[it->second.first]->timestamp);
      if (it->second.second + 1 < obs.size()) {
        life[c].death_ns = Ns(obs[it->second.second + 1]->timestamp);
      }
    }
  }
  return life;
}

}  // namespace mmvlog::archiver

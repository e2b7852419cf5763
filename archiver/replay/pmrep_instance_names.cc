#include "archiver/replay/pmrep_instance_names.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "format/archive/meta_indom.h"

namespace mmvlog::archiver {

void PmrepInstanceNames::Fetch(uint32_t indom, bool discrete, const std::vector<int32_t>& present,
                               int64_t context_ns, Known* outputs) {
  Cache& c = caches_[indom];
  if (discrete && present.empty()) return;  // "leave outputs alone"
  if (c.refreshed) {
    for (int32_t inst : present) {
      if (!Named(c.insts, inst)) {
        c.refreshed = false;
        break;
      }
    }
  }
  if (c.refreshed) {
    *outputs = c.insts;
    return;
  }
  c.refreshed = true;
  const Observation* at = nullptr;
  if (auto it = timeline_.find(indom); it != timeline_.end()) {
    for (const Observation& o : it->second) {
      if (o.ns > context_ns) break;
      at = &o;
    }
  }
  if (at == nullptr) {
    c.refreshed = false;  // PM_ERR_INDOM_LOG: tried again at the next fetch
    c.insts = nullptr;
  } else {
    c.insts = std::make_shared<const Observation>(*at);
  }
  *outputs = c.insts;
}

PmrepInstanceNames::Timeline InDomTimeline(const ArchiveSet& archives,
                                           const std::vector<uint32_t>& indoms) {
  PmrepInstanceNames::Timeline out;
  for (uint32_t indom : indoms) {
    if (out.contains(indom)) continue;  // metrics share instance domains
    std::vector<PmrepInstanceNames::Observation>& obs = out[indom];
    for (const ArchiveEntry& a : archives.archives()) {
      if (a.catalog == nullptr) continue;
      auto it = a.catalog->meta.indoms.find(indom);
      if (it == a.catalog->meta.indoms.end()) continue;
      for (const format::InDom& d : it->second) {
        PmrepInstanceNames::Observation o;
        o.ns = d.timestamp.sec * 1000000000 + d.timestamp.nsec;
        std::vector<std::pair<int32_t, std::string>> named;
        for (const format::InDomInstance& i : d.instances) {
          if (!i.deleted) named.emplace_back(i.inst, i.name);
        }
        std::stable_sort(named.begin(), named.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        for (auto& [inst, name] : named) {
          o.insts.push_back(inst);
          o.names.push_back(std::move(name));
        }
        obs.push_back(std::move(o));
      }
    }
    std::stable_sort(obs.begin(), obs.end(),
                     [](const auto& a, const auto& b) { return a.ns < b.ns; });
    obs.erase(std::unique(obs.begin(), obs.end(),
                          [](const auto& a, const auto& b) {
                            return a.insts == b.insts && a.names == b.names;
                          }),
              obs.end());
    std::vector<int32_t> every;
    for (const PmrepInstanceNames::Observation& o : obs) {
      std::vector<int32_t> both;
      std::set_union(every.begin(), every.end(), o.insts.begin(), o.insts.end(),
                     std::back_inserter(both));
      every = std::move(both);
    }
    for (PmrepInstanceNames::Observation& o : obs) o.all = o.insts.size() == every.size();
  }
  return out;
}

}  // namespace mmvlog::archiver

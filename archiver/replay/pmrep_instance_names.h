// Which instances pmrep can name at a fetch, and so shows: pmrep leaves out
// a value whose instance its fetchgroup gives no name ("transient"
// instances, pmconfig.py get_ranked_results), and the fetchgroup names
// instances from a cache per instance domain (fetchgroup.c
// pmfg_fetch_indom) that it fills from pmGetInDom only at its first fetch
// and when a fetch holds an instance the cache lacks. pmGetInDom answers
// with the domain's observation at or before the context's time, which an
// interpolated fetch has already moved on by one step: so an instance that
// a later observation drops can lose its name while libpcp still gives
// its value (PCP QA's pcp-atop: a process's last row blank in pmrep, its
// value in pmval). A DISCRETE metric with no value leaves the cache as it
// is. Not reproduced: a refill frees the block of names that the outputs
// of the metrics taken before it (and of DISCRETE metrics kept from
// earlier fetches) still point into (libpcp 6.0.3), and whether pmrep then
// shows their values depends on what glibc has written there since: PCP
// QA's bug1057 (of pmcd.pmlogger.port and .archive, of one short-named
// instance, only the one named first shows) and 20180127.08.40 (at a
// record that brings a new process, the kept proc.psinfo.* are blank).
// Seen only where one fetch meets a new instance after values of others.
// Policy only: the observations come in, the names' presence goes out.
#ifndef MMVLOG_ARCHIVER_REPLAY_PMREP_INSTANCE_NAMES_H_
#define MMVLOG_ARCHIVER_REPLAY_PMREP_INSTANCE_NAMES_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "archiver/replay/archive_set.h"

namespace mmvlog::archiver {

class PmrepInstanceNames {
 public:
  struct Observation {
    int64_t ns = 0;
    std::vector<int32_t> insts;  // sorted
    bool all = false;            // every instance the domain ever holds
    std::vector<std::string> names;  // of insts, the same order
  };
  // Per instance domain, its observations oldest first.
  using Timeline = absl::flat_hash_map<uint32_t, std::vector<Observation>>;

  explicit PmrepInstanceNames(Timeline timeline) : timeline_(std::move(timeline)) {}

  // The instances a metric can name: the cache as its part of the fetch
  // left it (null: none).
  using Known = std::shared_ptr<const Observation>;

  // Whether no fetch can change `indom`'s cache any more: filled with an
  // observation of every instance the domain holds (an instance domain
  // that never changes), so a metric of it names every instance (the
  // common case, checked without looking at the values).
  bool Settled(uint32_t indom) const {
    auto it = caches_.find(indom);
    return it != caches_.end() && it->second.refreshed && it->second.insts->all;
  }
  const Known& Current(uint32_t indom) const { return caches_.find(indom)->second.insts; }

  // One metric's part of a fetch, taken in the fetchgroup's order (the
  // metrics last added first: pmrep's order reversed): the instances it
  // has values for, the context's time after the fetch (the fetch's time
  // plus the step when interpolating, the record's time otherwise), and
  // `outputs`, the names its outputs hold (the metric's own, kept from
  // fetch to fetch: a DISCRETE metric without values keeps its outputs
  // and their names).
  void Fetch(uint32_t indom, bool discrete, const std::vector<int32_t>& present,
             int64_t context_ns, Known* outputs);
  static bool Named(const Known& known, int32_t inst) {
    return known != nullptr &&
           (known->all || std::binary_search(known->insts.begin(), known->insts.end(), inst));
  }
  // The name `known` gives `inst` (null: none): the fetchgroup's, which a
  // dynamic header shows (a number reused keeps the cached name).
  static const std::string* NameOf(const Known& known, int32_t inst) {
    if (known == nullptr) return nullptr;
    auto it = std::lower_bound(known->insts.begin(), known->insts.end(), inst);
    if (it == known->insts.end() || *it != inst) return nullptr;
    return &known->names[it - known->insts.begin()];
  }

 private:
  struct Cache {
    bool refreshed = false;
    Known insts;
  };
  Timeline timeline_;
  absl::flat_hash_map<uint32_t, Cache> caches_;
};

// The observations of `indoms` over every archive, oldest first (one of
// consecutive equal observations, the first: the cache fills the same).
PmrepInstanceNames::Timeline InDomTimeline(const ArchiveSet& archives,
                                           const std::vector<uint32_t>& indoms);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_PMREP_INSTANCE_NAMES_H_

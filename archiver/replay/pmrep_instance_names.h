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
// is. Policy only: the observations come in, the names' presence goes out.
#ifndef MMVLOG_ARCHIVER_REPLAY_PMREP_INSTANCE_NAMES_H_
#define MMVLOG_ARCHIVER_REPLAY_PMREP_INSTANCE_NAMES_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "archiver/replay/archive_set.h"

namespace mmvlog::archiver {

class PmrepInstanceNames {
 public:
  struct Observation {
    int64_t ns = 0;
    std::vector<int32_t> insts;  // sorted
  };
  // Per instance domain, its observations oldest first.
  using Timeline = absl::flat_hash_map<uint32_t, std::vector<Observation>>;

  explicit PmrepInstanceNames(Timeline timeline) : timeline_(std::move(timeline)) {}

  // One metric's part of a fetch: the instances it has values for, the
  // context's time after the fetch (the fetch's time plus the step when
  // interpolating, the record's time otherwise).
  void Fetch(uint32_t indom, bool discrete, const std::vector<int32_t>& present, int64_t context_ns);
  // Whether the last Fetch of `indom` left `inst` a name.
  bool Named(uint32_t indom, int32_t inst) const;

 private:
  struct Cache {
    bool refreshed = false;
    std::vector<int32_t> insts;  // sorted
  };
  Timeline timeline_;
  absl::flat_hash_map<uint32_t, Cache> caches_;
};

// The observations of `indoms` over every archive, oldest first.
PmrepInstanceNames::Timeline InDomTimeline(const ArchiveSet& archives,
                                           const std::vector<uint32_t>& indoms);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_PMREP_INSTANCE_NAMES_H_

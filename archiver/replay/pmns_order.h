// The order in which libpcp's pmTraversePMNS walks an archive's names: the
// order pmrep lists the metrics of a subtree it is given (pmrep -a ARCH
// mmv.app). libpcp builds the namespace from the .meta's descriptors in
// file order, each of a descriptor's names in turn, and puts a node it
// creates first among its siblings (pmns.c AddPMNSNode); the walk is depth
// first, siblings in that order. So the later a branch first appears, the
// earlier it is walked. Pure: names in, ranks out.
#ifndef MMVLOG_ARCHIVER_REPLAY_PMNS_ORDER_H_
#define MMVLOG_ARCHIVER_REPLAY_PMNS_ORDER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace mmvlog::archiver {

// Each leaf name's position in the walk (0, 1, ...), given every name in the
// order libpcp adds them. A name met again, or one under a leaf, is added
// once or not at all, as libpcp does.
absl::flat_hash_map<std::string, size_t> PmnsWalkRanks(const std::vector<std::string>& names);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_PMNS_ORDER_H_

#include "archiver/replay/pmns_order.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace mmvlog::archiver {
namespace {

struct Node {
  std::vector<uint32_t> children;  // in creation order; walked last first
  bool leaf = false;
  std::string name;  // a leaf's full name
};

}  // namespace

absl::flat_hash_map<std::string, size_t> PmnsWalkRanks(const std::vector<std::string>& names) {
  std::vector<Node> nodes(1);  // the root
  absl::flat_hash_map<std::pair<uint32_t, std::string>, uint32_t> child;
  for (const std::string& name : names) {
    uint32_t at = 0;
    bool ok = true;
    for (absl::string_view part : absl::StrSplit(name, '.')) {
      if (nodes[at].leaf) {  // a name under a leaf: libpcp refuses it
        ok = false;
        break;
      }
      auto [it, created] = child.try_emplace(std::make_pair(at, std::string(part)),
                                             static_cast<uint32_t>(nodes.size()));
      if (created) {
        nodes[at].children.push_back(it->second);
        nodes.emplace_back();
      }
      at = it->second;
    }
    if (ok && at != 0 && nodes[at].children.empty() && !nodes[at].leaf) {
      nodes[at].leaf = true;
      nodes[at].name = name;
    }
  }
  absl::flat_hash_map<std::string, size_t> rank;
  std::vector<uint32_t> stack = {0};
  while (!stack.empty()) {
    const uint32_t n = stack.back();
    stack.pop_back();
    if (nodes[n].leaf) rank.try_emplace(nodes[n].name, rank.size());
    // Pushed first created first, so popped last created first.
    for (uint32_t c : nodes[n].children) stack.push_back(c);
  }
  return rank;
}

}  // namespace mmvlog::archiver

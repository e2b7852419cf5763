// PmnsWalkRanks: libpcp's walk of an archive's namespace (pmns.c: a node
// created goes first among its siblings; the walk is depth first), checked
// against orders pmrep printed for subtrees (tests/pcp:pmrep_sets_test has
// the archives).
#include "archiver/replay/pmns_order.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace mmvlog::archiver {
namespace {

std::vector<std::string> Walk(const std::vector<std::string>& names) {
  const auto rank = PmnsWalkRanks(names);
  std::vector<std::string> out;
  for (const auto& [name, r] : rank) out.push_back(name);
  std::sort(out.begin(), out.end(),
            [&](const std::string& a, const std::string& b) { return rank.at(a) < rank.at(b); });
  return out;
}

TEST(PmnsWalkRanks, LaterBranchesFirstDepthFirst) {
  // mmvlog's recording of an application: descriptors in this order, and
  // pmrep -a ml3 mmv lists phase, state, queue, ..., requests.
  EXPECT_EQ(Walk({"mmv.app.requests", "mmv.app.bytes", "mmv.app.errors", "mmv.app.phase"}),
            (std::vector<std::string>{"mmv.app.phase", "mmv.app.errors", "mmv.app.bytes",
                                      "mmv.app.requests"}));
  // A branch is placed when it is created, not when it is last added to.
  EXPECT_EQ(Walk({"a.x.1", "a.y.1", "a.x.2", "b"}),
            (std::vector<std::string>{"b", "a.y.1", "a.x.2", "a.x.1"}));
}

TEST(PmnsWalkRanks, OnePmidUnderSeveralNames) {
  // PCP QA's gap2: the names of one descriptor in file order; pmrep -a gap2
  // sample.dupnames shows sample.dupnames.two.bin.
  EXPECT_EQ(Walk({"sample.dupnames.three.bin", "sample.dupnames.two.bin", "sample.bin"}),
            (std::vector<std::string>{"sample.bin", "sample.dupnames.two.bin",
                                      "sample.dupnames.three.bin"}));
}

TEST(PmnsWalkRanks, RepeatsAndNamesUnderLeavesAddNothing) {
  EXPECT_EQ(Walk({"a.b", "a.b", "a.b.c", "a.d"}), (std::vector<std::string>{"a.d", "a.b"}));
  EXPECT_EQ(Walk({"a.b.c", "a.b"}), (std::vector<std::string>{"a.b.c"}));
  EXPECT_TRUE(Walk({}).empty());
}

}  // namespace
}  // namespace mmvlog::archiver

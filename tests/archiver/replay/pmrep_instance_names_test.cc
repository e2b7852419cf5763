// PmrepInstanceNames: the fetchgroup's cache of instance names
// (fetchgroup.c pmfg_fetch_indom), filled at the first fetch and when a
// fetch holds an instance it lacks, from the observation current at the
// context's time; checked beside pmrep on PCP QA's kenj-pc-2 and
// 20201109-b by tests/pcp:pmrep_sets_test.
#include "archiver/replay/pmrep_instance_names.h"

#include <vector>

#include "gtest/gtest.h"

namespace mmvlog::archiver {
namespace {

constexpr uint32_t kIndom = 7;

PmrepInstanceNames Names() {
  PmrepInstanceNames::Timeline t;
  t[kIndom] = {{10, {1, 2}}, {20, {2, 3}}, {30, {3}}};
  return PmrepInstanceNames(std::move(t));
}

TEST(PmrepInstanceNames, FirstFetchFillsFromTheObservationAtTheContextTime) {
  PmrepInstanceNames n = Names();
  n.Fetch(kIndom, false, {}, 5);  // before any observation: nothing, and tried again
  EXPECT_FALSE(n.Named(kIndom, 1));
  n.Fetch(kIndom, false, {}, 12);
  EXPECT_TRUE(n.Named(kIndom, 1));
  EXPECT_TRUE(n.Named(kIndom, 2));
  EXPECT_FALSE(n.Named(kIndom, 3));
}

TEST(PmrepInstanceNames, KnownInstancesKeepTheCacheUnknownOnesRefreshIt) {
  PmrepInstanceNames n = Names();
  n.Fetch(kIndom, false, {1, 2}, 12);
  // Instance 1 left the domain at 20, but nothing new came: its name stays.
  n.Fetch(kIndom, false, {1, 2}, 25);
  EXPECT_TRUE(n.Named(kIndom, 1));
  // 3 is new: the cache is refilled at 25, where 1 has no name any more
  // though its value may still be given.
  n.Fetch(kIndom, false, {1, 3}, 25);
  EXPECT_FALSE(n.Named(kIndom, 1));
  EXPECT_TRUE(n.Named(kIndom, 3));
}

TEST(PmrepInstanceNames, ADiscreteMetricWithoutValuesLeavesTheCache) {
  PmrepInstanceNames n = Names();
  n.Fetch(kIndom, true, {}, 12);  // no values: no first fill either
  EXPECT_FALSE(n.Named(kIndom, 1));
  n.Fetch(kIndom, true, {1}, 12);
  EXPECT_TRUE(n.Named(kIndom, 1));
}

}  // namespace
}  // namespace mmvlog::archiver

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
  t[kIndom] = {{10, {1, 2}, false}, {20, {2, 3}, false}, {30, {3}, false}};
  return PmrepInstanceNames(std::move(t));
}

TEST(PmrepInstanceNames, FirstFetchFillsFromTheObservationAtTheContextTime) {
  PmrepInstanceNames n = Names();
  PmrepInstanceNames::Known known;
  // Before any observation: nothing, and tried again.
  n.Fetch(kIndom, false, {}, 5, &known);
  EXPECT_FALSE(PmrepInstanceNames::Named(known, 1));
  n.Fetch(kIndom, false, {}, 12, &known);
  EXPECT_TRUE(PmrepInstanceNames::Named(known, 1));
  EXPECT_TRUE(PmrepInstanceNames::Named(known, 2));
  EXPECT_FALSE(PmrepInstanceNames::Named(known, 3));
}

TEST(PmrepInstanceNames, KnownInstancesKeepTheCacheUnknownOnesRefreshIt) {
  PmrepInstanceNames n = Names();
  PmrepInstanceNames::Known before, after;
  n.Fetch(kIndom, false, {1, 2}, 12, &before);
  // Instance 1 left the domain at 20, but nothing new came: its name stays.
  n.Fetch(kIndom, false, {1, 2}, 25, &before);
  EXPECT_TRUE(PmrepInstanceNames::Named(before, 1));
  // 3 is new: the cache is refilled at 25, where 1 has no name any more
  // though its value may still be given; a metric taken before the refill
  // keeps the names it had.
  n.Fetch(kIndom, false, {1, 3}, 25, &after);
  EXPECT_FALSE(PmrepInstanceNames::Named(after, 1));
  EXPECT_TRUE(PmrepInstanceNames::Named(after, 3));
  EXPECT_TRUE(PmrepInstanceNames::Named(before, 1));
}

TEST(PmrepInstanceNames, ADiscreteMetricWithoutValuesLeavesTheCache) {
  PmrepInstanceNames n = Names();
  PmrepInstanceNames::Known kept, other;
  // No values: no first fill either.
  n.Fetch(kIndom, true, {}, 12, &kept);
  EXPECT_FALSE(PmrepInstanceNames::Named(kept, 1));
  n.Fetch(kIndom, true, {1}, 12, &kept);
  EXPECT_TRUE(PmrepInstanceNames::Named(kept, 1));
  // Kept outputs keep their names when another metric refills the cache.
  n.Fetch(kIndom, false, {3}, 22, &other);
  n.Fetch(kIndom, true, {}, 22, &kept);
  EXPECT_TRUE(PmrepInstanceNames::Named(kept, 1));
  EXPECT_FALSE(PmrepInstanceNames::Named(other, 1));
}

TEST(PmrepInstanceNames, ADomainThatNeverChangesSettles) {
  PmrepInstanceNames::Timeline t;
  t[kIndom] = {{10, {1, 2}, true}};
  PmrepInstanceNames n(std::move(t));
  EXPECT_FALSE(n.Settled(kIndom));
  PmrepInstanceNames::Known known;
  n.Fetch(kIndom, false, {1}, 12, &known);
  EXPECT_TRUE(n.Settled(kIndom));
  EXPECT_EQ(n.Current(kIndom), known);
  EXPECT_TRUE(PmrepInstanceNames::Named(known, 2));
}

TEST(PmrepInstanceNames, ANumberReusedKeepsTheCachedName) {
  // Instance 3 renamed at 20 (a process id reused): a cache filled at 12
  // and not refilled keeps the old name, as the fetchgroup's does (-1's
  // header shows it); one filled after 20 has the new.
  PmrepInstanceNames::Timeline t;
  t[kIndom] = {{10, {1, 3}, false, {"1 init", "3 old"}}, {20, {1, 3}, false, {"1 init", "3 new"}}};
  PmrepInstanceNames n(std::move(t));
  PmrepInstanceNames::Known known;
  n.Fetch(kIndom, false, {1, 3}, 12, &known);
  n.Fetch(kIndom, false, {1, 3}, 25, &known);
  ASSERT_NE(PmrepInstanceNames::NameOf(known, 3), nullptr);
  EXPECT_EQ(*PmrepInstanceNames::NameOf(known, 3), "3 old");
  EXPECT_EQ(PmrepInstanceNames::NameOf(known, 2), nullptr);
  PmrepInstanceNames later(PmrepInstanceNames::Timeline{
      {kIndom, {{10, {1, 3}, false, {"1 init", "3 old"}}, {20, {1, 3}, false, {"1 init", "3 new"}}}}});
  later.Fetch(kIndom, false, {1, 3}, 25, &known);
  EXPECT_EQ(*PmrepInstanceNames::NameOf(known, 3), "3 new");
}

}  // namespace
}  // namespace mmvlog::archiver

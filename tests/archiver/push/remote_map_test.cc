// Tests of //archiver/push:remote_map as tables: where local offsets land in
// the remote volume after a gap-free push, a push that began part-way, a
// dropped run with a <mark>, and across volumes.
#include "archiver/push/remote_map.h"

#include <gtest/gtest.h>

#include <optional>

namespace mmvlog::archiver {
namespace {

constexpr uint64_t kLabel = 808;

TEST(RemoteMap, Translate) {
  RemoteMap m;
  m.Map(0, kLabel, kLabel);  // volume 0 from its start: identity
  m.Drop(0, 5000);           // 5000..7000 given up
  m.Map(0, 7000, 5024);      // after a 24-byte <mark>
  m.Map(1, 1808, kLabel);    // volume 1 from 1808 on: a new remote archive
  struct Case {
    int32_t volume;
    uint64_t local;
    std::optional<uint64_t> remote;
  } cases[] = {
      {0, 100, std::nullopt},  // inside the label: nothing of it was sent
      {0, kLabel, kLabel},     {0, 4999, 4999},       {0, 5000, std::nullopt},
      {0, 6999, std::nullopt}, {0, 7000, 5024},       {0, 9000, 7024},
      {1, kLabel, std::nullopt}, {1, 1807, std::nullopt}, {1, 1808, kLabel},
      {1, 2000, 1000},         {2, kLabel, std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(m.Translate(c.volume, c.local), c.remote) << c.volume << " " << c.local;
  }
}

TEST(RemoteMap, IndexEntryKeepsMetaAndTime) {
  RemoteMap m;
  m.Map(3, 10'000, kLabel);
  format::IndexEntry e{{1700000000, 5}, 3, 4321, 10'500};
  std::optional<format::IndexEntry> r = m.Translate(e);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, (format::IndexEntry{{1700000000, 5}, 3, 4321, kLabel + 500}));
  e.data_offset = 9'999;  // before what went to this remote archive
  EXPECT_FALSE(m.Translate(e).has_value());
}

TEST(RemoteMap, ClearAndRestore) {
  RemoteMap m;
  m.Map(0, kLabel, kLabel);
  m.Drop(0, 900);
  RemoteMap copy;
  copy.Restore(m.segments());
  EXPECT_EQ(copy.segments(), m.segments());
  EXPECT_EQ(copy.Translate(0, 850), m.Translate(0, 850));
  m.Clear();
  EXPECT_FALSE(m.Translate(0, 850).has_value());
}

}  // namespace
}  // namespace mmvlog::archiver

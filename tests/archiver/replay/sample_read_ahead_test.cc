// SampleReadAhead: a SampleStream read on its own thread gives what the
// stream gives, sample for sample (values, strings, unnamed values, sets,
// marks, the join of two archives), with the stream's warnings and
// restarts as they were at each sample, and its damage, problems and
// archives read as they were at the last sample taken, even when the
// thread has read further; stopped or destroyed midway, it ends.
#include "archiver/replay/sample_read_ahead.h"

#include <unistd.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "archiver/replay/sample_stream.h"
#include "format/archive/archive_format.h"
#include "tests/archiver/replay/replay_test_util.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::At;
using ::mmvlog::testing::Cell;
using ::mmvlog::testing::OpenArchives;
using ::mmvlog::testing::SampleText;
using ::mmvlog::testing::TestArchive;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Every sample, with the warnings and restarts said by then.
struct Read {
  std::vector<std::string> samples;
  std::vector<std::string> warnings;
  std::vector<std::string> damaged, problems, archives;
};

template <typename Stream>
void Take(Stream& s, Read* out) {
  while (const Sample* x = s.Next()) {
    out->samples.push_back(absl::StrCat(SampleText(*x), " @w", s.warnings().size(), " r", s.restarts()));
  }
  out->warnings = s.warnings();
}

// Random layouts, strings, marks and an unnamed instance; more records
// than the ring holds many times over.
TestArchive Shapes(double start, int records, uint64_t seed) {
  TestArchive a({
      {"req", format::kTypeU64, format::kSemCounter, "count", {{0, "zero"}, {1, "one"}, {2, "two"}}},
      {"load", format::kTypeDouble, format::kSemInstant, "none"},
      {"ver", format::kTypeString, format::kSemDiscrete, "none"},
  });
  a.IndexEvery(10);
  std::mt19937_64 rng(seed);
  double t = start;
  for (int i = 0; i < records; ++i, t += 1) {
    if (rng() % 40 == 0) {
      a.Mark(t);
      continue;
    }
    std::vector<Cell> cells;
    const uint64_t layout = rng() % 7;
    for (int32_t inst = 0; inst < 3; ++inst) {
      if (layout & (1u << inst)) cells.push_back({"req", inst, static_cast<unsigned long long>(rng())});
    }
    if (layout != 3) cells.push_back({"load", static_cast<double>(rng() % 1000) / 8});
    if (layout % 3 == 0) cells.push_back({"ver", std::string(rng() % 12, 'v')});
    if (layout == 0 && rng() % 2) cells.push_back({"req", 9, 1ull});  // an unnamed instance
    a.Record(t, cells);
  }
  return a;
}

TEST(SampleReadAhead, GivesWhatTheStreamGivesWithItsWarningsAndDamage) {
  const std::string a = Shapes(0, 300, 1).Write("ahead_a");
  const std::string b = Shapes(1000, 300, 2).Write("ahead_b");
  ASSERT_TRUE(testing::DamageRecord(b, 250));  // ends b: damage
  const std::string c = Shapes(5000, 100, 3).Write("ahead_c");
  auto o = OpenArchives({a, b, c});
  ASSERT_NE(o, nullptr);
  Read direct, ahead;
  {
    SampleStream s(o->set.archives(), o->columns);
    Take(s, &direct);
    direct.damaged = s.damaged();
    direct.archives = s.read_archives();
  }
  {
    SampleStream s(o->set.archives(), o->columns);
    SampleReadAhead r(s, o->columns.size());
    Take(r, &ahead);
    r.Stop();
    ahead.damaged = r.damaged();
    ahead.archives = r.read_archives();
  }
  ASSERT_GT(direct.samples.size(), 600u);
  EXPECT_EQ(ahead.samples, direct.samples);
  EXPECT_EQ(ahead.warnings, direct.warnings);
  ASSERT_EQ(direct.damaged.size(), 1u);
  EXPECT_EQ(ahead.damaged, direct.damaged);
  EXPECT_THAT(ahead.archives, ElementsAre(a, b, c));
}

// A restart (SeekBefore, a column without a value before the window) is
// seen at the sample it came with, as the stream's own caller sees it.
TEST(SampleReadAhead, RestartsComeWithTheirSample) {
  TestArchive t({{"a", format::kTypeU32, format::kSemCounter}, {"sparse", format::kType32, format::kSemDiscrete}});
  t.IndexEvery(1);
  for (int i = 0; i < 100; ++i) {
    if (i % 10 == 0) {
      t.Record(i, {{"a", 10 * i}, {"sparse", i}});
    } else {
      t.Record(i, {{"a", 10 * i}});
    }
  }
  const std::string base = t.Write("ahead_restart");
  auto o = OpenArchives({base});
  ASSERT_NE(o, nullptr);
  Read direct, ahead;
  {
    SampleStream s(o->set.archives(), o->columns);
    s.SeekBefore(At(55.5));
    Take(s, &direct);
  }
  {
    SampleStream s(o->set.archives(), o->columns);
    s.SeekBefore(At(55.5));
    SampleReadAhead r(s, o->columns.size());
    Take(r, &ahead);
    EXPECT_EQ(r.restarts(), 1u);
  }
  ASSERT_THAT(direct.samples, ::testing::Contains(HasSubstr(" r1")));
  ASSERT_THAT(direct.samples, ::testing::Contains(HasSubstr(" r0")));
  EXPECT_EQ(ahead.samples, direct.samples);
}

// Stopped after a few samples while its thread has read past damage further
// on: what it says is what the stream had said when it gave those samples.
TEST(SampleReadAhead, StoppedEarlySaysWhatTheStreamHadSaidThen) {
  const std::string a = Shapes(0, 20, 4).Write("ahead_early_a");
  ASSERT_TRUE(testing::DamageRecord(a, 15));
  const std::string b = Shapes(100, 20, 5).Write("ahead_early_b");
  auto o = OpenArchives({a, b});
  ASSERT_NE(o, nullptr);
  SampleStream s(o->set.archives(), o->columns);
  SampleReadAhead r(s, o->columns.size());
  ASSERT_NE(r.Next(), nullptr);
  ASSERT_NE(r.Next(), nullptr);
  // The ring (16) is deeper than the 15 records before the damage: the
  // thread meets it, and opens b, while the caller holds the second sample.
  for (int i = 0; i < 1000 && s.read_archives().size() < 2; ++i) {
    ::usleep(1000);
  }
  r.Stop();
  EXPECT_THAT(s.damaged(), ::testing::SizeIs(1));  // read ahead
  EXPECT_THAT(r.damaged(), IsEmpty());
  EXPECT_THAT(r.read_archives(), ElementsAre(a));
  EXPECT_EQ(r.Next(), nullptr);  // stopped: the end
}

// Wide samples are held fewer at a time: with room for two, four and eight
// (1, 500 and 1,000 bytes of values over 5 columns), every way the two
// sides wait for each other (the ring full, the caller waiting for a
// batch that cannot come) still gives every sample, at every pace.
TEST(SampleReadAhead, ARingOfTwoGivesWhatTheStreamGives) {
  const std::string a = Shapes(0, 400, 7).Write("ahead_two");
  auto o = OpenArchives({a});
  ASSERT_NE(o, nullptr);
  Read direct;
  {
    SampleStream s(o->set.archives(), o->columns);
    Take(s, &direct);
  }
  for (const size_t most_bytes : {size_t{1}, size_t{500}, size_t{1000}}) {
    for (const int slow_every : {0, 3}) {
      SCOPED_TRACE(absl::StrCat(most_bytes, " bytes, slow every ", slow_every));
      SampleStream s(o->set.archives(), o->columns);
      SampleReadAhead r(s, o->columns.size(), most_bytes);
      Read ahead;
      while (const Sample* x = r.Next()) {
        ahead.samples.push_back(absl::StrCat(SampleText(*x), " @w", r.warnings().size(), " r", r.restarts()));
        if (slow_every > 0 && ahead.samples.size() % slow_every == 0) ::usleep(200);
      }
      EXPECT_EQ(ahead.samples, direct.samples);
    }
  }
}

// Destroyed with samples unread and the thread waiting for room: it ends.
TEST(SampleReadAhead, DestroyedMidwayEnds) {
  const std::string a = Shapes(0, 500, 6).Write("ahead_midway");
  auto o = OpenArchives({a});
  ASSERT_NE(o, nullptr);
  for (int taken : {0, 1, 5, 100}) {
    SampleStream s(o->set.archives(), o->columns);
    SampleReadAhead r(s, o->columns.size());
    for (int i = 0; i < taken; ++i) ASSERT_NE(r.Next(), nullptr);
  }
}

}  // namespace
}  // namespace mmvlog::archiver

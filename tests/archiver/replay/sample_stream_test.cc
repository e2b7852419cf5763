// SampleStream: the records of archives written by ArchiveWriter, one at a
// time, as values by column; records of no chosen metric; the <mark> at the
// join of two archives; damage reported and the next archive read;
// SeekBefore entering at an index entry, and starting again from the
// beginning when a column had no value between that entry and the window;
// Follow() giving records appended after the end exactly once; records
// whose time went backwards skipped and told; a volume cut short while it
// is read.
#include "archiver/replay/sample_stream.h"

#include <unistd.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "archiver/replay/archive_set.h"
#include "archiver/replay/columns.h"
#include "archiver/replay/selection.h"
#include "archiver/store/archive_reader.h"
#include "archiver/store/archive_writer.h"
#include "format/archive/archive_format.h"
#include "format/endian.h"
#include "tests/archiver/replay/replay_test_util.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::At;
using ::mmvlog::testing::Cell;
using ::mmvlog::testing::OpenArchives;
using ::mmvlog::testing::SampleText;
using ::mmvlog::testing::TestArchive;
using ::mmvlog::testing::TestMetric;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TestArchive Mixed() {
  TestArchive a({
      {"req", format::kTypeU64, format::kSemCounter, "count", {{0, "zero"}, {1, "one"}}},
      {"load", format::kTypeDouble, format::kSemInstant, "none"},
      {"ver", format::kTypeString, format::kSemDiscrete, "none"},
      {"s32", format::kType32, format::kSemCounter},
  });
  a.Record(1, {{"req", 0, 100}, {"req", 1, 1000}, {"load", 0.5}, {"ver", "v1"}, {"s32", -5}});
  // The instances in the other order: the columns follow the instances.
  a.Record(3, {{"req", 1, 1040}, {"req", 0, 110}, {"load", 0.75}});
  a.Mark(4);
  a.Record(4.5, {{"req", 0, 125}});
  return a;
}

std::vector<double> SecondsOf(const std::vector<Sample>& samples) {
  std::vector<double> out;
  for (const Sample& s : samples) {
    out.push_back(absl::ToDoubleSeconds(format::ToAbslTime(s.time) - testing::TimeAt(0)));
  }
  return out;
}

TEST(SampleStream, ValuesByColumn) {
  const std::string base = Mixed().Write("values");
  auto o = OpenArchives({base});
  ASSERT_NE(o, nullptr);
  ASSERT_EQ(o->columns.size(), 5u);
  EXPECT_EQ(o->columns.Label(0), "req[zero]");
  EXPECT_EQ(o->columns.Label(1), "req[one]");
  EXPECT_EQ(o->columns.Label(2), "load");
  EXPECT_EQ(o->columns.Label(3), "ver");
  EXPECT_EQ(o->columns.Label(4), "s32");

  SampleStream s(o->set.archives(), o->columns);
  const Sample* x = s.Next();
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->time, At(1));
  EXPECT_FALSE(x->mark);
  EXPECT_TRUE(x->chosen);
  ASSERT_EQ(x->values.size(), 5u);
  EXPECT_EQ(x->values[0].column, 0u);
  EXPECT_EQ(x->values[0].kind, kUint);
  EXPECT_EQ(x->values[0].bits, 100u);
  EXPECT_EQ(x->values[1].column, 1u);
  EXPECT_EQ(x->values[1].bits, 1000u);
  EXPECT_EQ(x->values[2].column, 2u);
  EXPECT_EQ(x->values[2].kind, kDouble);
  EXPECT_EQ(std::bit_cast<double>(x->values[2].bits), 0.5);
  EXPECT_EQ(x->values[3].column, 3u);
  EXPECT_EQ(x->values[3].kind, kString);
  EXPECT_EQ(x->strings.at(x->values[3].bits), "v1");
  EXPECT_EQ(x->values[4].column, 4u);
  EXPECT_EQ(x->values[4].kind, kInt);
  EXPECT_EQ(static_cast<int64_t>(x->values[4].bits), -5);

  x = s.Next();
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->time, At(3));
  ASSERT_EQ(x->values.size(), 3u);
  EXPECT_EQ(x->values[0].column, 1u);
  EXPECT_EQ(x->values[0].bits, 1040u);
  EXPECT_EQ(x->values[1].column, 0u);
  EXPECT_EQ(x->values[1].bits, 110u);
  EXPECT_EQ(x->values[2].column, 2u);
  EXPECT_EQ(std::bit_cast<double>(x->values[2].bits), 0.75);
  EXPECT_TRUE(x->strings.empty());

  x = s.Next();
  ASSERT_NE(x, nullptr);
  EXPECT_TRUE(x->mark);
  EXPECT_FALSE(x->virtual_mark);
  EXPECT_FALSE(x->chosen);
  EXPECT_TRUE(x->values.empty());
  EXPECT_EQ(x->time, At(4));

  x = s.Next();
  ASSERT_NE(x, nullptr);
  ASSERT_EQ(x->values.size(), 1u);
  EXPECT_EQ(x->values[0].column, 0u);
  EXPECT_EQ(x->values[0].bits, 125u);

  EXPECT_EQ(s.Next(), nullptr);
  EXPECT_EQ(s.Next(), nullptr);
  EXPECT_EQ(s.host(), "host");
  EXPECT_THAT(s.read_archives(), ElementsAre(base));
  EXPECT_TRUE(s.damaged().empty());
  EXPECT_TRUE(s.problems().empty());
  EXPECT_EQ(s.restarts(), 0u);
}

TEST(SampleStream, ARecordWithNoChosenValueIsNotChosen) {
  const std::string base = Mixed().Write("unchosen");
  Selection only_load;
  only_load.metrics = {"load"};
  auto o = OpenArchives({base}, only_load);
  ASSERT_NE(o, nullptr);
  ASSERT_EQ(o->columns.size(), 1u);
  const std::vector<Sample> all = testing::AllSamples(*o);
  ASSERT_EQ(all.size(), 4u);  // every record is given
  EXPECT_TRUE(all[0].chosen);
  ASSERT_EQ(all[0].values.size(), 1u);
  EXPECT_EQ(all[0].values[0].column, 0u);
  EXPECT_EQ(std::bit_cast<double>(all[0].values[0].bits), 0.5);
  EXPECT_TRUE(all[1].chosen);
  EXPECT_TRUE(all[2].mark);
  EXPECT_FALSE(all[2].chosen);
  // Only "req" at 4.5: a record, not a mark, with nothing chosen.
  EXPECT_EQ(all[3].time, At(4.5));
  EXPECT_FALSE(all[3].mark);
  EXPECT_FALSE(all[3].chosen);
  EXPECT_TRUE(all[3].values.empty());
}

TestArchive Simple(double from, double to, double label) {
  TestArchive a({{"cnt", format::kTypeU32, format::kSemCounter}, {"inst", format::kType32, format::kSemInstant}});
  a.LabelAt(label);
  for (double t = from; t <= to; t += 1) a.Record(t, {{"cnt", static_cast<int>(10 * t)}, {"inst", static_cast<int>(t)}});
  return a;
}

TEST(SampleStream, TwoArchivesHaveAMarkOneMillisecondAfterTheFirstOnesEnd) {
  const std::string a = Simple(0, 2, 0).Write("first");
  const std::string b = Simple(10, 12, 10).Write("second");
  auto o = OpenArchives({b, a});  // named in any order, read in time order
  ASSERT_NE(o, nullptr);
  const std::vector<Sample> all = testing::AllSamples(*o);
  ASSERT_EQ(all.size(), 7u);
  EXPECT_THAT(SecondsOf(all), ElementsAre(0, 1, 2, 2.001, 10, 11, 12));
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].mark, i == 3) << i;
    EXPECT_EQ(all[i].virtual_mark, i == 3) << i;
    EXPECT_EQ(all[i].chosen, i != 3) << i;
  }
  EXPECT_EQ(all[3].time, At(2.001));
  EXPECT_EQ(all[4].values.at(0).bits, 100u);
  SampleStream s(o->set.archives(), o->columns);
  while (s.Next() != nullptr) {
  }
  EXPECT_THAT(s.read_archives(), ElementsAre(a, b));
}

TEST(SampleStream, DamageEndsThatArchiveAndTheNextIsRead) {
  const std::string a = Simple(0, 4, 0).Write("damaged");
  const std::string b = Simple(10, 11, 10).Write("after");
  // The third record's trailing length no longer matches its header.
  const std::string vol = a + ".0";
  ASSERT_TRUE(testing::DamageRecord(a, 2));
  auto o = OpenArchives({a, b});
  ASSERT_NE(o, nullptr);
  SampleStream s(o->set.archives(), o->columns);
  std::vector<Sample> all;
  while (const Sample* x = s.Next()) all.push_back(*x);
  // The records before the damage, a gap, then the next archive.
  EXPECT_THAT(SecondsOf(all), ElementsAre(0, 1, 1.001, 10, 11));
  EXPECT_TRUE(all[2].mark);
  ASSERT_EQ(s.damaged().size(), 1u);
  EXPECT_THAT(s.damaged()[0], HasSubstr(vol));
  EXPECT_THAT(s.damaged()[0], HasSubstr("offset"));
  EXPECT_THAT(s.read_archives(), ElementsAre(a, b));
}

// A volume cut short while the stream reads it in place (through its
// mapping): the records before the cut, then damage naming the volume,
// never a SIGBUS, and the next archive is read.
TEST(SampleStream, AVolumeCutShortWhileReadIsDamageAndTheNextIsRead) {
  const std::string a = Simple(0, 399, 0).Write("cut_short");  // about 24 KB
  const std::string b = Simple(1000, 1001, 1000).Write("after_cut");
  const std::string vol = a + ".0";
  auto o = OpenArchives({a, b});
  ASSERT_NE(o, nullptr);
  SampleStream s(o->set.archives(), o->columns);
  std::vector<Sample> all;
  for (int i = 0; i < 3; ++i) {
    const Sample* x = s.Next();
    ASSERT_NE(x, nullptr);
    all.push_back(*x);
  }
  ASSERT_EQ(::truncate(vol.c_str(), 8192), 0);
  while (const Sample* x = s.Next()) all.push_back(*x);
  ASSERT_EQ(s.damaged().size(), 1u);
  EXPECT_THAT(s.damaged()[0], HasSubstr(vol + ": offset "));
  EXPECT_THAT(s.damaged()[0], HasSubstr("cut short to 8192 bytes"));
  // Every record wholly before the cut, as written; a gap; the next archive.
  ASSERT_GT(all.size(), 10u);
  const size_t kept = all.size() - 3;
  EXPECT_LT(kept, 400u);
  std::vector<double> want;
  for (size_t i = 0; i < kept; ++i) want.push_back(static_cast<double>(i));
  want.push_back(static_cast<double>(kept - 1) + 0.001);
  want.push_back(1000);
  want.push_back(1001);
  EXPECT_EQ(SecondsOf(all), want);
  for (size_t i = 0; i < kept; ++i) {
    ASSERT_EQ(all[i].values.size(), 2u) << i;
    EXPECT_EQ(all[i].values[0].bits, 10 * i) << i;
    EXPECT_EQ(all[i].values[1].bits, i) << i;
  }
}

// A volume whose time goes back (PCP QA's gfs, which pmlogcheck calls
// damaged: "timestamp went backwards"), made by copying the records at 0 s
// and 1 s after the one at 2 s (no writer writes such a volume): they are
// left out, and a warning names the volume, the offset of the first and how
// many; the record after them is given.
TEST(SampleStream, RecordsWhoseTimeWentBackwardsAreSkippedAndTold) {
  TestArchive a({{"cnt", format::kTypeU32, format::kSemCounter}});
  for (double t : {0.0, 1.0, 2.0, 3.0}) a.Record(t, {{"cnt", static_cast<int>(10 * t)}});
  const std::string base = a.Write("backwards");
  const std::string vol = base + ".0";
  std::string bytes;
  {
    std::ifstream in(vol, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::vector<std::string> frames;  // the label's, then each record's
  for (size_t at = 0; at + 4 <= bytes.size();) {
    const uint32_t len = format::LoadBig32(reinterpret_cast<const uint8_t*>(bytes.data()) + at);
    ASSERT_GE(len, 8u);
    ASSERT_LE(at + len, bytes.size());
    frames.push_back(bytes.substr(at, len));
    at += len;
  }
  ASSERT_EQ(frames.size(), 5u);
  const std::string crafted =
      frames[0] + frames[1] + frames[2] + frames[3] + frames[1] + frames[2] + frames[4];
  {
    std::ofstream out(vol, std::ios::binary | std::ios::trunc);
    out.write(crafted.data(), static_cast<std::streamsize>(crafted.size()));
  }
  const size_t first_back = frames[0].size() + frames[1].size() + frames[2].size() + frames[3].size();
  auto o = OpenArchives({base});
  ASSERT_NE(o, nullptr);
  SampleStream s(o->set.archives(), o->columns);
  std::vector<Sample> all;
  while (const Sample* x = s.Next()) all.push_back(*x);
  EXPECT_THAT(SecondsOf(all), ElementsAre(0, 1, 2, 3));
  ASSERT_EQ(s.warnings().size(), 1u);
  EXPECT_THAT(s.warnings()[0], HasSubstr(absl::StrCat(vol, ": offset ", first_back,
                                                      ": timestamp went backwards")));
  EXPECT_THAT(s.warnings()[0], HasSubstr("as 1 more of this archive"));
  EXPECT_TRUE(s.damaged().empty());
}

// `t` seconds, every second from 0 to 99: "a" in every record, "sparse"
// in every tenth, with an index entry before every record.
TestArchive Long(bool sparse_every_tenth, std::optional<double> mark = std::nullopt) {
  TestArchive a({{"a", format::kTypeU32, format::kSemCounter}, {"sparse", format::kType32, format::kSemDiscrete}});
  a.IndexEvery(1);
  for (int t = 0; t < 100; ++t) {
    if (mark && *mark < t && *mark > t - 1) a.Mark(*mark);
    if (!sparse_every_tenth || t % 10 == 0) {
      a.Record(t, {{"a", 10 * t}, {"sparse", t}});
    } else {
      a.Record(t, {{"a", 10 * t}});
    }
  }
  return a;
}

int IndexEntries(const std::string& base) {
  absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(base);
  EXPECT_TRUE(r.ok());
  return r.ok() ? static_cast<int>((*r)->index().size()) : 0;
}

// The samples after `from`, as (time, column, bits) text.
std::vector<std::string> After(const std::vector<Sample>& samples, format::Timestamp from) {
  std::vector<std::string> out;
  for (const Sample& s : samples) {
    if (s.time < from) continue;
    std::string t = absl::StrCat(s.time.sec, ".", s.time.nsec, s.mark ? " mark" : "");
    for (const SampleValue& v : s.values) absl::StrAppend(&t, " ", v.column, "=", v.bits);
    out.push_back(t);
  }
  return out;
}

// Reads with SeekBefore(from); what came before a restart is dropped, as a
// consumer drops what it derived from it.
std::vector<Sample> SeekRead(const testing::Opened& o, format::Timestamp from, uint64_t* restarts,
                             std::optional<format::Timestamp>* first) {
  SampleStream s(o.set.archives(), o.columns);
  s.SeekBefore(from);
  std::vector<Sample> out;
  uint64_t seen = 0;
  while (const Sample* x = s.Next()) {
    if (s.restarts() != seen) {
      seen = s.restarts();
      out.clear();
    }
    if (!*first) *first = x->time;
    out.push_back(*x);
  }
  *restarts = s.restarts();
  return out;
}

TEST(SampleStream, SeekBeforeWithEveryColumnCoveredDoesNotRestart) {
  const std::string base = Long(false).Write("seek_covered");
  ASSERT_GT(IndexEntries(base), 50);  // else the test shows nothing
  auto o = OpenArchives({base});
  ASSERT_NE(o, nullptr);
  const format::Timestamp from = At(50.5);
  uint64_t restarts = 0;
  std::optional<format::Timestamp> first;
  const std::vector<Sample> seek = SeekRead(*o, from, &restarts, &first);
  EXPECT_EQ(restarts, 0u);
  // Entered at an index entry before the window, not at the beginning.
  ASSERT_TRUE(first.has_value());
  EXPECT_GT(*first, At(40));
  EXPECT_LT(*first, from);
  EXPECT_EQ(After(seek, from), After(testing::AllSamples(*o), from));
  EXPECT_EQ(After(seek, from).size(), 49u);
}

TEST(SampleStream, SeekBeforeRestartsWhenAColumnHadNoValueBeforeTheWindow) {
  const std::string base = Long(true).Write("seek_sparse");
  ASSERT_GT(IndexEntries(base), 50);
  auto o = OpenArchives({base});
  ASSERT_NE(o, nullptr);
  // Between the entry at 55 and 55.5 "sparse" has no value (its last is at
  // 50): a reader must see the beginning again.
  const format::Timestamp from = At(55.5);
  uint64_t restarts = 0;
  std::optional<format::Timestamp> first;
  const std::vector<Sample> seek = SeekRead(*o, from, &restarts, &first);
  EXPECT_EQ(restarts, 1u);
  const std::vector<Sample> whole = testing::AllSamples(*o);
  EXPECT_EQ(After(seek, from), After(whole, from));
  // After the restart, everything from the beginning.
  EXPECT_EQ(After(seek, At(0)), After(whole, At(0)));
}

TEST(SampleStream, SeekBeforeDoesNotRestartWhenAMarkCameBeforeTheWindow) {
  // A <mark> at 55.2 bounds every column: nothing from before it is needed.
  const std::string base = Long(true, 55.2).Write("seek_mark");
  auto o = OpenArchives({base});
  ASSERT_NE(o, nullptr);
  const format::Timestamp from = At(55.5);
  uint64_t restarts = 0;
  std::optional<format::Timestamp> first;
  const std::vector<Sample> seek = SeekRead(*o, from, &restarts, &first);
  EXPECT_EQ(restarts, 0u);
  ASSERT_TRUE(first.has_value());
  EXPECT_GT(*first, At(40));
  EXPECT_EQ(After(seek, from), After(testing::AllSamples(*o), from));
}

TEST(SampleStream, FollowGivesAppendedRecordsExactlyOnce) {
  TestArchive spec({{"cnt", format::kTypeU32, format::kSemCounter}});
  const std::string base = testing::TempBase("follow");
  absl::StatusOr<std::unique_ptr<ArchiveWriter>> w = ArchiveWriter::Create(base, spec.Options(), At(0));
  ASSERT_TRUE(w.ok()) << w.status();
  spec.AddMetadata(w->get());
  auto append = [&](double t) {
    const absl::Status s = (*w)->AppendResult(spec.ResultOf(t, {{"cnt", static_cast<int>(t * 10)}}));
    ASSERT_TRUE(s.ok()) << s;
  };
  for (double t : {0, 1, 2}) append(t);

  auto o = OpenArchives({base});
  ASSERT_NE(o, nullptr);
  SampleStream s(o->set.archives(), o->columns);
  s.Follow();
  std::vector<Sample> got;
  auto drain = [&] {
    while (const Sample* x = s.Next()) got.push_back(*x);
  };
  drain();
  EXPECT_THAT(SecondsOf(got), ElementsAre(0, 1, 2));
  drain();  // nothing new
  EXPECT_EQ(got.size(), 3u);

  append(3);
  append(4);
  drain();
  EXPECT_THAT(SecondsOf(got), ElementsAre(0, 1, 2, 3, 4));

  // Across a new volume.
  ASSERT_TRUE((*w)->NewVolume().ok());
  append(5);
  drain();
  EXPECT_THAT(SecondsOf(got), ElementsAre(0, 1, 2, 3, 4, 5));
  ASSERT_TRUE((*w)->Close().ok());
  drain();
  drain();
  EXPECT_THAT(SecondsOf(got), ElementsAre(0, 1, 2, 3, 4, 5));
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].values.size(), 1u);
    EXPECT_EQ(got[i].values[0].bits, 10 * i);
  }
  EXPECT_TRUE(s.damaged().empty());
  EXPECT_TRUE(s.warnings().empty());
}

std::vector<std::string> Read(const testing::Opened& o, bool whole) {
  SampleStream stream(o.set.archives(), o.columns);
  if (whole) stream.KeepRecords();
  std::vector<std::string> out;
  while (const Sample* s = stream.Next()) {
    out.push_back(SampleText(*s));
    EXPECT_EQ(s->record != nullptr, whole && !s->virtual_mark);
  }
  return out;
}

// A record of a layout seen lately is read where its values lie, without
// decoding it whole: the samples are those whole decoding gives, record
// for record, over more layouts than the stream keeps coming back,
// instances coming and going, strings changing length and marks.
TEST(SampleStream, RecordsOfAKnownLayoutGiveWhatDecodingGives) {
  TestArchive a({
      {"req", format::kTypeU64, format::kSemCounter, "count", {{0, "zero"}, {1, "one"}, {2, "two"}}},
      {"load", format::kTypeDouble, format::kSemInstant, "none"},
      {"ver", format::kTypeString, format::kSemDiscrete, "none"},
      {"s32", format::kType32, format::kSemCounter},
      {"f", format::kTypeFloat, format::kSemInstant, "none", {{5, "five"}, {6, "six"}}},
  });
  std::mt19937_64 rng(20261129);
  double t = 1;
  for (int i = 0; i < 400; ++i, t += 1) {
    if (rng() % 40 == 0) {
      a.Mark(t);
      continue;
    }
    const uint64_t layout = rng() % 7;  // more than the stream keeps
    std::vector<Cell> cells;
    for (int32_t inst = 0; inst < 3; ++inst) {
      if (layout & (1u << inst)) cells.push_back({"req", inst, static_cast<unsigned long long>(rng())});
    }
    if (layout != 3) cells.push_back({"load", static_cast<double>(rng() % 1000) / 8});
    if (layout % 3 == 0) cells.push_back({"ver", std::string(rng() % 3 == 0 ? rng() % 12 : 4, 'v')});
    if (layout > 4) cells.push_back({"s32", -static_cast<int64_t>(rng() % 100)});
    if (layout % 2 == 1) {
      cells.push_back({"f", 6, static_cast<double>(rng() % 64)});
      cells.push_back({"f", 5, static_cast<double>(rng() % 64)});
    }
    if (layout == 0 && rng() % 2) cells.push_back({"req", 9, 1ull});  // an unnamed instance
    a.Record(t, cells);
  }
  const std::string base = a.Write("shapes");
  auto o = OpenArchives({base});
  ASSERT_NE(o, nullptr);
  const std::vector<std::string> whole = Read(*o, true);
  ASSERT_GT(whole.size(), 390u);
  EXPECT_EQ(Read(*o, false), whole);
}

// PCP's own archives, of many shapes and ages, read both ways: those kept
// here, or by hand every archive of a directory named by
// MMVLOG_SHAPES_ARCHIVES (PCP's whole QA collection:
// bazel test --test_env=MMVLOG_SHAPES_ARCHIVES=/tmp/qa/qa/archives ...).
TEST(SampleStream, PcpArchivesOfAKnownLayoutGiveWhatDecodingGives) {
  std::vector<std::string> bases;
  if (const char* all = std::getenv("MMVLOG_SHAPES_ARCHIVES")) {
    for (const auto& e : std::filesystem::directory_iterator(all)) {
      const std::string name = e.path().filename().string();
      const size_t meta = name.find(".meta");
      if (meta != std::string::npos) bases.push_back(absl::StrCat(all, "/", name.substr(0, meta)));
    }
  } else {
    const char* srcdir = std::getenv("TEST_SRCDIR");
    const char* workspace = std::getenv("TEST_WORKSPACE");
    ASSERT_TRUE(srcdir != nullptr && workspace != nullptr) << "run under bazel test";
    const std::string dir = absl::StrCat(srcdir, "/", workspace, "/tests/testdata/pcpqa/");
    for (const char* name :
         {"bozo.client_v2", "bug_v2", "node_archive", "value-test", "960624.08.17_v2",
          "20190628.06.31", "gmt-boring", "20201109-b", "babylon.percpu_v2", "snort-disks", "gap2",
          "pcp-zeroconf", "kenj-pc-2", "ok-noti-interp"}) {
      bases.push_back(dir + name);
    }
  }
  size_t read = 0;
  for (const std::string& base : bases) {
    absl::StatusOr<ArchiveSet> set = ArchiveSet::Open({base});
    if (!set.ok()) continue;  // PCP's QA keeps broken archives too
    auto o = OpenArchives({base});
    if (o == nullptr) continue;
    ++read;
    const std::vector<std::string> whole = Read(*o, true);
    EXPECT_EQ(Read(*o, false), whole) << base;
  }
  EXPECT_GE(read, std::min<size_t>(bases.size(), 14));
  std::printf("%zu archives read both ways\n", read);
}

}  // namespace
}  // namespace mmvlog::archiver

// MmvMapper, AppendValueSets and ValuePlan: pmdammv's mapping rules
// (shared/notes/PCP-BEHAVIOUR.md section 1) and the places where mmvlog
// deliberately does better (section 4): stable clusters and PMIDs, cluster
// labels for automatic clusters, indom help text, the OPTIONAL label flag,
// a zeroed pmUnits pad byte, NaN as a SENTINEL.
//
// Every test states the MMV file it needs with BuildMmv and parses it with
// ParseMmv, as the recorder does.
#include "archiver/mmv/mmv_mapping.h"
#include "archiver/mmv/mapped_values.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_meta.h"
#include "format/archive/archive_result.h"
#include "format/endian.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_reader.h"
#include "format/mmv/mmv_writer.h"
#include "format/pm_units.h"
#include "format/archive/result_template.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using format::MmvSpec;
using format::MmvSpecIndom;
using format::MmvSpecLabel;
using format::MmvSpecMetric;
using format::MmvType;
using ::mmvlog::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr uint32_t kDomain = 70;

MmvSpecMetric Metric(std::string name, uint32_t item, MmvType type = MmvType::kU64,
                     int32_t semantics = format::kMmvSemCounter,
                     uint32_t indom = format::kMmvIndomNull) {
  MmvSpecMetric m;
  m.name = std::move(name);
  m.item = item;
  m.type = type;
  m.semantics = semantics;
  m.indom = indom;
  return m;
}

MmvSpecIndom Indom(uint32_t serial, std::vector<std::pair<int32_t, std::string>> instances) {
  MmvSpecIndom d;
  d.serial = serial;
  for (auto& [id, name] : instances) d.instances.push_back({id, std::move(name)});
  return d;
}

MmvSpecLabel Label(uint32_t flags, uint32_t identity, std::string payload,
                   int32_t internal = format::kMmvInNull) {
  MmvSpecLabel l;
  l.flags = flags;
  l.identity = identity;
  l.internal = internal;
  l.payload = std::move(payload);
  return l;
}

// A spec with one singular U64 counter per (name, item).
MmvSpec Spec(std::vector<std::pair<std::string, uint32_t>> metrics, int32_t cluster = 0,
             uint32_t flags = 0) {
  MmvSpec spec;
  spec.cluster = cluster;
  spec.flags = flags;
  for (auto& [name, item] : metrics) spec.metrics.push_back(Metric(name, item));
  return spec;
}

// The parsed file and the image it came from (for AppendValueSets).
struct Built {
  format::MmvImage image;
  std::shared_ptr<const format::MmvFile> file;
};

Built Build(const MmvSpec& spec) {
  Built b;
  absl::StatusOr<format::MmvImage> image = format::BuildMmv(spec);
  EXPECT_OK(image);
  if (!image.ok()) return b;
  b.image = std::move(*image);
  absl::StatusOr<format::MmvFile> parsed = format::ParseMmv(b.image.bytes);
  EXPECT_OK(parsed);
  if (parsed.ok()) b.file = std::make_shared<const format::MmvFile>(std::move(*parsed));
  return b;
}

absl::StatusOr<MappedFile> MapSpec(MmvMapper& mapper, const std::string& name,
                                   const MmvSpec& spec) {
  Built b = Build(spec);
  if (b.file == nullptr) return absl::InternalError("spec did not build");
  return mapper.Map(name, b.file);
}

std::vector<std::string> Names(const MappedFile& f) {
  std::vector<std::string> out;
  for (const MappedMetric& m : f.metrics) {
    for (const std::string& n : m.desc.names) out.push_back(n);
  }
  return out;
}

bool AnyWarningHas(const MappedFile& f, const std::string& needle) {
  for (const std::string& w : f.warnings) {
    if (w.find(needle) != std::string::npos) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// Names

TEST(MmvMappingNames, PrefixAndFileNameComeFirst) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "app", Spec({{"requests.total", 1}}));
  ASSERT_OK(f);
  EXPECT_THAT(Names(*f), ElementsAre("mmv.app.requests.total"));
  EXPECT_EQ(f->name, "app");
}

TEST(MmvMappingNames, NoPrefixFlagDropsTheFileName) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f =
      MapSpec(mapper, "app", Spec({{"requests", 1}}, 0, format::kMmvFlagNoPrefix));
  ASSERT_OK(f);
  EXPECT_THAT(Names(*f), ElementsAre("mmv.requests"));
}

TEST(MmvMappingNames, PrefixOptionIsTheFirstComponent) {
  MappingOptions options;
  options.prefix = "pmproxy";
  MmvMapper mapper(options);
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "app", Spec({{"x", 1}}));
  ASSERT_OK(f);
  EXPECT_THAT(Names(*f), ElementsAre("pmproxy.app.x"));
}

TEST(MmvMappingNames, ALaterMetricWithAnEarlierOnesItemIsSkippedTheRestKept) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f =
      MapSpec(mapper, "app", Spec({{"first", 1}, {"second", 1}, {"other", 2}}));
  ASSERT_OK(f);
  EXPECT_THAT(Names(*f), ElementsAre("mmv.app.first", "mmv.app.other"));
  EXPECT_TRUE(AnyWarningHas(*f, "mmv.app.second: item 1 is an earlier metric's"))
      << ::testing::PrintToString(f->warnings);
}

TEST(MmvMappingNames, InvalidNamesAreSkippedWithAWarningAndTheRestKept) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f =
      MapSpec(mapper, "app", Spec({{"good", 1}, {"bad-name", 2}, {"with space", 3}, {"ok_2.x", 4}}));
  ASSERT_OK(f);
  EXPECT_THAT(Names(*f), ElementsAre("mmv.app.good", "mmv.app.ok_2.x"));
  EXPECT_TRUE(AnyWarningHas(*f, "mmv.app.bad-name")) << ::testing::PrintToString(f->warnings);
  EXPECT_TRUE(AnyWarningHas(*f, "mmv.app.with space"));
}

TEST(MmvMappingNames, AFileNameThatIsNotAPcpNameSkipsEveryPrefixedMetric) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "my-app", Spec({{"a", 1}, {"b", 2}}));
  ASSERT_OK(f);
  EXPECT_THAT(f->metrics, IsEmpty());
  EXPECT_THAT(f->warnings, SizeIs(2));
  // With NOPREFIX the file name does not matter.
  absl::StatusOr<MappedFile> g =
      MapSpec(mapper, "my-app2", Spec({{"a", 1}}, 0, format::kMmvFlagNoPrefix));
  ASSERT_OK(g);
  EXPECT_THAT(Names(*g), ElementsAre("mmv.a"));
}

TEST(MmvMappingNames, IsValidPcpNameFollowsPmdammv) {
  EXPECT_TRUE(IsValidPcpName("mmv.a.b_c.D9"));
  EXPECT_TRUE(IsValidPcpName("mmv.app.9lives"));  // pmdammv checks the whole name
  EXPECT_FALSE(IsValidPcpName(""));
  EXPECT_FALSE(IsValidPcpName("9mmv"));
  EXPECT_FALSE(IsValidPcpName("_mmv"));
  EXPECT_FALSE(IsValidPcpName("mmv.a-b"));
  EXPECT_FALSE(IsValidPcpName("mmv.a b"));
  EXPECT_FALSE(IsValidPcpName("mmv.\xc3\xa9"));
}

TEST(MmvMappingNames, DuplicateNameFirstFileWins) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> a =
      MapSpec(mapper, "a", Spec({{"shared", 1}, {"only_a", 2}}, 0, format::kMmvFlagNoPrefix));
  absl::StatusOr<MappedFile> b =
      MapSpec(mapper, "b", Spec({{"shared", 1}, {"only_b", 2}}, 0, format::kMmvFlagNoPrefix));
  ASSERT_OK(a);
  ASSERT_OK(b);
  EXPECT_THAT(Names(*a), ElementsAre("mmv.shared", "mmv.only_a"));
  EXPECT_THAT(Names(*b), ElementsAre("mmv.only_b"));
  EXPECT_TRUE(AnyWarningHas(*b, "mmv.shared")) << ::testing::PrintToString(b->warnings);
  // The name keeps a's PMID when a is mapped again.
  absl::StatusOr<MappedFile> a2 =
      MapSpec(mapper, "a", Spec({{"shared", 1}, {"only_a", 2}}, 0, format::kMmvFlagNoPrefix));
  ASSERT_OK(a2);
  EXPECT_THAT(Names(*a2), ElementsAre("mmv.shared", "mmv.only_a"));
  EXPECT_EQ(a2->metrics[0].desc.pmid, a->metrics[0].desc.pmid);
}

TEST(MmvMappingNames, DuplicateNameWithinOneFileKeepsTheFirst) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "d", Spec({{"x", 1}, {"x", 2}, {"y", 3}}));
  ASSERT_OK(f);
  EXPECT_THAT(Names(*f), ElementsAre("mmv.d.x", "mmv.d.y"));
  EXPECT_EQ(f->metrics[0].desc.pmid, format::PmidBuild(kDomain, 1, 1));
  EXPECT_TRUE(AnyWarningHas(*f, "mmv.d.x"));
  // Mapped again unchanged: still fine.
  EXPECT_OK(MapSpec(mapper, "d", Spec({{"x", 1}, {"x", 2}, {"y", 3}})));
}

// A PMID never changes meaning, and a name never changes PMID, within one
// mapper (one archive): a restarted application that moved a metric to
// another item needs a new archive, which the recorder starts on this error.
TEST(MmvMappingNames, NameMovedToAnotherItemIsAlreadyExists) {
  MmvMapper mapper;
  ASSERT_OK(MapSpec(mapper, "app", Spec({{"x", 1}, {"y", 2}})));
  EXPECT_THAT(MapSpec(mapper, "app", Spec({{"x", 5}, {"y", 2}})),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("mmv.app.x")));
  // A fresh mapper (a new archive) takes it.
  MmvMapper fresh;
  absl::StatusOr<MappedFile> f = MapSpec(fresh, "app", Spec({{"x", 5}, {"y", 2}}));
  ASSERT_OK(f);
  EXPECT_EQ(f->metrics[0].desc.pmid, format::PmidBuild(kDomain, 1, 5));
}

// ---------------------------------------------------------------------------
// PMIDs and clusters

TEST(MmvMappingPmids, HeaderClusterIsUsedInDomain70) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "app", Spec({{"x", 5}}, 7));
  ASSERT_OK(f);
  EXPECT_EQ(f->cluster, 7u);
  ASSERT_THAT(f->metrics, SizeIs(1));
  EXPECT_EQ(f->metrics[0].desc.pmid, format::PmidBuild(kDomain, 7, 5));
  EXPECT_EQ(format::PmidDomain(f->metrics[0].desc.pmid), 70u);
}

TEST(MmvMappingPmids, DomainOptionIsUsed) {
  MappingOptions options;
  options.domain = 4;
  MmvMapper mapper(options);
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "app", Spec({{"x", 5}}, 7));
  ASSERT_OK(f);
  EXPECT_EQ(f->metrics[0].desc.pmid, format::PmidBuild(4, 7, 5));
}

TEST(MmvMappingPmids, AutomaticClustersAreTheLowestFreeFromOne) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> a = MapSpec(mapper, "a", Spec({{"x", 1}}));
  absl::StatusOr<MappedFile> b = MapSpec(mapper, "b", Spec({{"x", 1}}));
  absl::StatusOr<MappedFile> c = MapSpec(mapper, "c", Spec({{"x", 1}}, 3));
  absl::StatusOr<MappedFile> d = MapSpec(mapper, "d", Spec({{"x", 1}}));
  absl::StatusOr<MappedFile> e = MapSpec(mapper, "e", Spec({{"x", 1}}));
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_OK(c);
  ASSERT_OK(d);
  ASSERT_OK(e);
  EXPECT_EQ(a->cluster, 1u);
  EXPECT_EQ(b->cluster, 2u);
  EXPECT_EQ(c->cluster, 3u);
  EXPECT_EQ(d->cluster, 4u);  // 3 is taken by c
  EXPECT_EQ(e->cluster, 5u);
}

TEST(MmvMappingPmids, AutomaticClustersSkipClustersPinnedByOtherFiles) {
  MmvMapper mapper;
  // "b" and "c" pin 1 and 2 but are mapped after "a" (alphabetical scan).
  mapper.ReserveClusters({{"a", 0}, {"b", 1}, {"c", 2}, {"z", 5000}});
  absl::StatusOr<MappedFile> a = MapSpec(mapper, "a", Spec({{"x", 1}}));
  absl::StatusOr<MappedFile> b = MapSpec(mapper, "b", Spec({{"x", 1}}, 1));
  absl::StatusOr<MappedFile> c = MapSpec(mapper, "c", Spec({{"x", 1}}, 2));
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_OK(c);
  EXPECT_EQ(a->cluster, 3u);
  EXPECT_EQ(b->cluster, 1u);
  EXPECT_EQ(c->cluster, 2u);
  EXPECT_THAT(b->warnings, IsEmpty());
}

TEST(MmvMappingPmids, TwoFilesRequestingOneClusterDoNotShareIt) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> a = MapSpec(mapper, "a", Spec({{"x", 1}}, 4));
  absl::StatusOr<MappedFile> b = MapSpec(mapper, "b", Spec({{"x", 1}}, 4));
  ASSERT_OK(a);
  ASSERT_OK(b);
  EXPECT_EQ(a->cluster, 4u);
  EXPECT_NE(b->cluster, 4u);  // pmdammv shares it, and b's items shadow a's
  EXPECT_EQ(b->cluster, 1u);
  EXPECT_TRUE(AnyWarningHas(*b, "requested cluster 4")) << ::testing::PrintToString(b->warnings);
  EXPECT_NE(a->metrics[0].desc.pmid, b->metrics[0].desc.pmid);
}

TEST(MmvMappingPmids, TwoPrefixedFilesRequestingOneClusterStillDoNotShare) {
  // Sharing needs both files NOPREFIX: one with a prefix keeps its own.
  MmvMapper mapper;
  absl::StatusOr<MappedFile> a =
      MapSpec(mapper, "a", Spec({{"x", 1}}, 4, format::kMmvFlagNoPrefix));
  absl::StatusOr<MappedFile> b = MapSpec(mapper, "b", Spec({{"y", 1}}, 4));
  ASSERT_OK(a);
  ASSERT_OK(b);
  EXPECT_EQ(a->cluster, 4u);
  EXPECT_NE(b->cluster, 4u);
  EXPECT_FALSE(b->shares_cluster);
}

TEST(MmvMappingShared, NoPrefixFilesRequestingOneClusterShareItAndItsMetrics) {
  MmvMapper mapper;
  MmvSpec a = Spec({}, 9, format::kMmvFlagNoPrefix);
  a.metrics.push_back(Metric("req", 1, MmvType::kU64, format::kMmvSemCounter, 1));
  a.indoms.push_back(Indom(1, {{0, "zero"}, {1, "one"}}));
  MmvSpec b = a;
  b.indoms[0] = Indom(1, {{1, "uno"}, {2, "two"}});
  b.metrics.push_back(Metric("b_only", 3));
  absl::StatusOr<MappedFile> ma = MapSpec(mapper, "a", a);
  absl::StatusOr<MappedFile> mb = MapSpec(mapper, "b", b);
  ASSERT_OK(ma);
  ASSERT_OK(mb);
  EXPECT_EQ(mb->cluster, 9u);
  EXPECT_FALSE(ma->shares_cluster);
  EXPECT_TRUE(mb->shares_cluster);
  EXPECT_THAT(mb->warnings, IsEmpty());
  ASSERT_THAT(mb->metrics, SizeIs(2));
  EXPECT_EQ(mb->metrics[0].desc, ma->metrics[0].desc);  // one metric, one indom
  EXPECT_EQ(mb->metrics[1].desc.pmid, format::PmidBuild(kDomain, 9, 3));
  // Mapped again (a new generation), b still knows it shares.
  absl::StatusOr<MappedFile> again = MapSpec(mapper, "b", b);
  ASSERT_OK(again);
  EXPECT_TRUE(again->shares_cluster);
}

TEST(MmvMappingShared, ALaterFilesClashingMetricIsIgnoredAsPcpKeepsTheFirst) {
  MmvMapper mapper;
  ASSERT_OK(MapSpec(mapper, "a", Spec({{"req", 1}, {"a_only", 3}}, 9, format::kMmvFlagNoPrefix)));
  MmvSpec b = Spec({{"other_name", 1}, {"a_only", 4}, {"fine", 5}}, 9, format::kMmvFlagNoPrefix);
  b.metrics.push_back(Metric("req_again", 6));
  b.metrics.back().name = "req";  // same name and item as a's, other type below
  b.metrics.back().item = 1;
  b.metrics.back().type = MmvType::kDouble;
  absl::StatusOr<MappedFile> mb = MapSpec(mapper, "b", b);
  ASSERT_OK(mb);
  // other_name: a's item under another name; a_only: a's name under
  // another item. The last "req" repeats item 1 inside b (the reader drops it).
  EXPECT_THAT(Names(*mb), ElementsAre("mmv.fine"));
  EXPECT_TRUE(AnyWarningHas(*mb, "mmv.other_name: item 1 is defined differently by a"))
      << ::testing::PrintToString(mb->warnings);
  EXPECT_TRUE(AnyWarningHas(*mb, "mmv.a_only: name already used by a"))
      << ::testing::PrintToString(mb->warnings);
}

TEST(MmvMappingShared, ADifferentDescriptorForTheSameMetricIsIgnored) {
  MmvMapper mapper;
  ASSERT_OK(MapSpec(mapper, "a", Spec({{"req", 1}}, 9, format::kMmvFlagNoPrefix)));
  MmvSpec b = Spec({}, 9, format::kMmvFlagNoPrefix);
  b.metrics.push_back(Metric("req", 1, MmvType::kDouble));
  absl::StatusOr<MappedFile> mb = MapSpec(mapper, "b", b);
  ASSERT_OK(mb);
  EXPECT_THAT(mb->metrics, IsEmpty());
  EXPECT_TRUE(AnyWarningHas(*mb, "defined differently by a"));
}

format::ValueSet Set(uint32_t pmid, std::vector<std::pair<int32_t, uint64_t>> values,
                     int32_t error = 0) {
  format::ValueSet s;
  s.pmid = pmid;
  s.type = format::kTypeU64;
  s.error = error;
  for (auto [inst, v] : values) {
    format::ResultValue r;
    r.inst = inst;
    r.u64 = v;
    s.values.push_back(std::move(r));
  }
  return s;
}

TEST(MmvMappingShared, MergeSharedSetsKeepsTheFirstFilesInstanceAndAddsTheRest) {
  format::Result r;
  r.sets = {Set(1, {{0, 100}, {1, 101}}), Set(2, {{-1, 7}}), Set(1, {{1, 201}, {2, 202}}),
            Set(3, {}, -12345), Set(1, {{3, 303}}), Set(3, {{-1, 9}}), Set(9, {{0, 0}})};
  // The last set is beyond n: left alone.
  const size_t n = MergeSharedSets(&r, 6);
  ASSERT_EQ(n, 3u);
  EXPECT_EQ(r.sets[0], Set(1, {{0, 100}, {1, 101}, {2, 202}, {3, 303}}));
  EXPECT_EQ(r.sets[1], Set(2, {{-1, 7}}));
  EXPECT_EQ(r.sets[2], Set(3, {{-1, 9}}));  // an error in the first file, a value in the next
  EXPECT_EQ(r.sets[6], Set(9, {{0, 0}}));
}

TEST(MmvMappingPmids, ClusterOutsideZeroTo4095RejectsTheFile) {
  MmvMapper mapper;
  EXPECT_OK(MapSpec(mapper, "max", Spec({{"x", 1}}, 4095)));
  EXPECT_THAT(MapSpec(mapper, "big", Spec({{"x", 1}}, 4096)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("4096")));
  EXPECT_THAT(MapSpec(mapper, "neg", Spec({{"x", 1}}, -1)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("-1")));
  // A rejected file takes no cluster: the next automatic one is still 1.
  absl::StatusOr<MappedFile> next = MapSpec(mapper, "next", Spec({{"x", 1}}));
  ASSERT_OK(next);
  EXPECT_EQ(next->cluster, 1u);
}

TEST(MmvMappingPmids, AFileKeepsItsClusterAcrossMapsEvenWhenItsHeaderChanges) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> a = MapSpec(mapper, "a", Spec({{"x", 1}}));
  absl::StatusOr<MappedFile> b = MapSpec(mapper, "b", Spec({{"x", 1}}));
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_EQ(a->cluster, 1u);
  ASSERT_EQ(b->cluster, 2u);
  // "a" is gone; pmdammv would move "b" to cluster 1 (E6). Not here.
  absl::StatusOr<MappedFile> b2 = MapSpec(mapper, "b", Spec({{"x", 1}}));
  ASSERT_OK(b2);
  EXPECT_EQ(b2->cluster, 2u);
  // "a" restarts asking for cluster 9: its metrics keep their PMIDs.
  absl::StatusOr<MappedFile> a2 = MapSpec(mapper, "a", Spec({{"x", 1}}, 9));
  ASSERT_OK(a2);
  EXPECT_EQ(a2->cluster, 1u);
  EXPECT_EQ(a2->metrics[0].desc.pmid, a->metrics[0].desc.pmid);
  // And a newcomer still does not get cluster 1 or 2.
  absl::StatusOr<MappedFile> c = MapSpec(mapper, "c", Spec({{"x", 1}}));
  ASSERT_OK(c);
  EXPECT_EQ(c->cluster, 3u);
}

TEST(MmvMappingPmids, SeedKeepsArchivedNamesPmids) {
  format::Desc ax;
  ax.pmid = format::PmidBuild(kDomain, 3, 1);
  ax.type = format::kTypeU64;
  ax.sem = format::kSemCounter;
  ax.names = {"mmv.a.x"};
  format::Desc by = ax;
  by.pmid = format::PmidBuild(kDomain, 1, 1);
  by.names = {"mmv.b.x"};
  MmvMapper mapper;
  mapper.Seed({ax, by});
  // "c" is new: clusters 1 and 3 belong to archived files.
  absl::StatusOr<MappedFile> c = MapSpec(mapper, "c", Spec({{"x", 1}}));
  ASSERT_OK(c);
  EXPECT_EQ(c->cluster, 2u);
  // "a" comes back asking for cluster 0 (or another one): it keeps 3.
  absl::StatusOr<MappedFile> a = MapSpec(mapper, "a", Spec({{"x", 1}}, 7));
  ASSERT_OK(a);
  EXPECT_EQ(a->cluster, 3u);
  EXPECT_EQ(a->metrics[0].desc.pmid, ax.pmid);
  absl::StatusOr<MappedFile> b = MapSpec(mapper, "b", Spec({{"x", 1}}));
  ASSERT_OK(b);
  EXPECT_EQ(b->metrics[0].desc.pmid, by.pmid);
  // Cluster 7, requested by "a" but not given to it, is free for others.
  absl::StatusOr<MappedFile> d = MapSpec(mapper, "d", Spec({{"x", 1}}, 7));
  ASSERT_OK(d);
  EXPECT_EQ(d->cluster, 7u);
}

// ---------------------------------------------------------------------------
// Descriptors

TEST(MmvMappingDescs, TypesMapToPcpTypes) {
  MmvSpec spec;
  spec.cluster = 1;
  spec.metrics = {Metric("i32", 1, MmvType::kI32),       Metric("u32", 2, MmvType::kU32),
                  Metric("i64", 3, MmvType::kI64),       Metric("u64", 4, MmvType::kU64),
                  Metric("float", 5, MmvType::kFloat),   Metric("double", 6, MmvType::kDouble),
                  Metric("string", 7, MmvType::kString), Metric("elapsed", 8, MmvType::kElapsed)};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "t", spec);
  ASSERT_OK(f);
  ASSERT_THAT(f->metrics, SizeIs(8));
  const int32_t want[] = {format::kType32,    format::kTypeU32,   format::kType64,
                          format::kTypeU64,   format::kTypeFloat, format::kTypeDouble,
                          format::kTypeString, format::kType64};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(f->metrics[i].desc.type, want[i]) << f->metrics[i].desc.names[0];
    EXPECT_EQ(f->metrics[i].desc.indom, format::kIndomNull);
    EXPECT_EQ(f->metrics[i].mmv_type, spec.metrics[i].type);
  }
}

TEST(MmvMappingDescs, SemanticsZeroIsCounterOthersKept) {
  MmvSpec spec;
  spec.metrics = {Metric("unset", 1, MmvType::kU64, format::kMmvSemUnset),
                  Metric("counter", 2, MmvType::kU64, format::kMmvSemCounter),
                  Metric("instant", 3, MmvType::kU64, format::kMmvSemInstant),
                  Metric("discrete", 4, MmvType::kU64, format::kMmvSemDiscrete)};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "s", spec);
  ASSERT_OK(f);
  ASSERT_THAT(f->metrics, SizeIs(4));
  EXPECT_EQ(f->metrics[0].desc.sem, format::kSemCounter);
  EXPECT_EQ(f->metrics[1].desc.sem, format::kSemCounter);
  EXPECT_EQ(f->metrics[2].desc.sem, format::kSemInstant);
  EXPECT_EQ(f->metrics[3].desc.sem, format::kSemDiscrete);
}

TEST(MmvMappingDescs, ElapsedIsA64BitCounterInMicroseconds) {
  MmvSpec spec;
  MmvSpecMetric m = Metric("busy", 1, MmvType::kElapsed, format::kMmvSemInstant);
  format::PmUnits bytes;
  bytes.dim_space = 1;
  bytes.scale_space = format::kSpaceKbyte;
  m.units = format::UnitsToWord(bytes);  // whatever the file says
  spec.metrics = {m};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "e", spec);
  ASSERT_OK(f);
  ASSERT_THAT(f->metrics, SizeIs(1));
  const format::Desc& d = f->metrics[0].desc;
  EXPECT_EQ(d.type, format::kType64);
  EXPECT_EQ(d.sem, format::kSemCounter);
  format::PmUnits usec;
  usec.dim_time = 1;
  usec.scale_time = format::kTimeUsec;
  EXPECT_EQ(format::UnitsFromWord(d.units), usec);
}

TEST(MmvMappingDescs, NoSupportMetricsAreNotExported) {
  MmvSpec spec;
  spec.metrics = {Metric("a", 1), Metric("unsupported", 2, MmvType::kNoSupport), Metric("c", 3)};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "n", spec);
  ASSERT_OK(f);
  EXPECT_THAT(Names(*f), ElementsAre("mmv.n.a", "mmv.n.c"));
  EXPECT_TRUE(AnyWarningHas(*f, "mmv.n.unsupported"));
}

// pmdammv would export a metric whose semantics PCP does not know; mmvlog
// leaves that metric out, saying where, and records the rest of the file
// (the file used to be refused whole). ELAPSED is a counter whatever it says.
TEST(MmvMappingDescs, UnknownSemanticsSkipTheMetricNotTheFile) {
  MmvSpec spec;
  spec.metrics = {Metric("a", 1), Metric("odd", 2, MmvType::kU64, 2),
                  Metric("neg", 3, MmvType::kDouble, -1), Metric("up", 4, MmvType::kElapsed, 7),
                  Metric("c", 5)};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "n", spec);
  ASSERT_OK(f);
  EXPECT_THAT(Names(*f), ElementsAre("mmv.n.a", "mmv.n.up", "mmv.n.c"));
  EXPECT_TRUE(AnyWarningHas(*f, "mmv.n.odd: unknown semantics 2, not exported"));
  EXPECT_TRUE(AnyWarningHas(*f, "mmv.n.neg: unknown semantics -1"));
  for (const auto& m : f->metrics) {
    if (format::PmidItem(m.desc.pmid) == 4) {
      EXPECT_EQ(m.desc.sem, format::kSemCounter);
    }
  }
}

TEST(MmvMappingDescs, ExtraUnitsAreKeptUnknownBitsDropped) {
  format::PmUnits u;
  u.dim_space = 1;
  u.dim_time = -1;
  u.scale_space = format::kSpaceMbyte;
  u.scale_time = format::kTimeSec;
  const uint32_t clean = format::UnitsToWord(u);
  MmvSpec spec;
  MmvSpecMetric garbage = Metric("rate", 1, MmvType::kDouble, format::kMmvSemInstant);
  garbage.units = clean | 0xa5;  // extraUnit -12: garbage in the old pad byte
  MmvSpecMetric energy = Metric("energy", 2, MmvType::kU64, format::kMmvSemCounter);
  energy.units = 0x1005022;  // PCP 7.2: power (W) hour
  MmvSpecMetric temp = Metric("temp", 3, MmvType::kDouble, format::kMmvSemInstant);
  temp.units = 0x9;  // temperature (C)
  spec.metrics = {garbage, energy, temp};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "u", spec);
  ASSERT_OK(f);
  ASSERT_THAT(f->metrics, SizeIs(3));
  EXPECT_EQ(f->metrics[0].desc.units, clean);
  EXPECT_TRUE(AnyWarningHas(*f, "mmv.u.rate: units word 0x1f0230a5 has extra-unit bits"));
  EXPECT_EQ(f->metrics[1].desc.units, 0x1005022u);
  EXPECT_EQ(format::UnitsToString(format::UnitsFromWord(f->metrics[1].desc.units)),
            "power (W) hour");
  EXPECT_EQ(f->metrics[2].desc.units, 0x9u);
  EXPECT_FALSE(AnyWarningHas(*f, "mmv.u.energy"));
  EXPECT_FALSE(AnyWarningHas(*f, "mmv.u.temp"));
}

TEST(MmvMappingDescs, ItemAbove1023IsSkipped) {
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "i", Spec({{"max", 1023}, {"over", 1024}}));
  ASSERT_OK(f);
  EXPECT_THAT(Names(*f), ElementsAre("mmv.i.max"));
  EXPECT_EQ(format::PmidItem(f->metrics[0].desc.pmid), 1023u);
  EXPECT_TRUE(AnyWarningHas(*f, "1024"));
}

TEST(MmvMappingDescs, MoreThan1023MetricsExportsNone) {
  std::vector<std::pair<std::string, uint32_t>> metrics;
  for (uint32_t i = 0; i < 1023; ++i) metrics.push_back({absl::StrCat("m", i), i});
  MmvMapper mapper;
  absl::StatusOr<MappedFile> ok = MapSpec(mapper, "ok", Spec(metrics));
  ASSERT_OK(ok);
  EXPECT_THAT(ok->metrics, SizeIs(1023));
  metrics.push_back({"m1023", 1023});
  absl::StatusOr<MappedFile> over = MapSpec(mapper, "over", Spec(metrics));
  ASSERT_OK(over);
  EXPECT_THAT(over->metrics, IsEmpty());
  EXPECT_TRUE(AnyWarningHas(*over, "1024 metrics"));
}

// ---------------------------------------------------------------------------
// Instance domains and help text

TEST(MmvMappingIndoms, IndomIsClusterShiftedElevenOrSerial) {
  MmvSpec spec;
  spec.cluster = 1;
  spec.indoms = {Indom(1, {{0, "zero"}, {7, "seven"}})};
  spec.metrics = {Metric("per", 1, MmvType::kU64, format::kMmvSemCounter, 1)};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "d", spec);
  ASSERT_OK(f);
  const uint32_t want = format::InDomBuild(kDomain, (1u << 11) | 1);  // 70.2049 (E1)
  ASSERT_THAT(f->metrics, SizeIs(1));
  EXPECT_EQ(f->metrics[0].desc.indom, want);
  ASSERT_THAT(f->indoms, SizeIs(1));
  EXPECT_EQ(f->indoms[0].indom, want);
  EXPECT_FALSE(f->indoms[0].delta);
  EXPECT_THAT(f->indoms[0].instances,
              ElementsAre(format::InDomInstance{0, "zero", false},
                          format::InDomInstance{7, "seven", false}));

  spec.cluster = 3;
  spec.indoms[0].serial = 5;
  spec.metrics[0].indom = 5;
  absl::StatusOr<MappedFile> g = MapSpec(mapper, "e", spec);
  ASSERT_OK(g);
  EXPECT_EQ(g->metrics[0].desc.indom, format::InDomBuild(kDomain, (3u << 11) | 5));
}

TEST(MmvMappingIndoms, HelpTextForMetricsAndIndoms) {
  MmvSpec spec;
  spec.cluster = 2;
  MmvSpecIndom d = Indom(4, {{1, "a"}});
  d.short_help = "the queues";
  d.long_help = "One instance per queue.";
  spec.indoms = {d};
  MmvSpecMetric m = Metric("depth", 3, MmvType::kU32, format::kMmvSemInstant, 4);
  m.short_help = "queue depth";
  m.long_help = "Items waiting in the queue.";
  MmvSpecMetric bare = Metric("bare", 4);
  spec.metrics = {m, bare};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "h", spec);
  ASSERT_OK(f);
  const uint32_t pmid = format::PmidBuild(kDomain, 2, 3);
  const uint32_t indom = format::InDomBuild(kDomain, (2u << 11) | 4);
  EXPECT_THAT(f->texts,
              ::testing::UnorderedElementsAre(
                  format::HelpText{format::kTextOneLine | format::kTextPmid, pmid, "queue depth"},
                  format::HelpText{format::kTextHelp | format::kTextPmid, pmid,
                                   "Items waiting in the queue."},
                  format::HelpText{format::kTextOneLine | format::kTextIndom, indom, "the queues"},
                  format::HelpText{format::kTextHelp | format::kTextIndom, indom,
                                   "One instance per queue."}));
}

// ---------------------------------------------------------------------------
// Labels

const format::LabelRecord* FindLabels(const MappedFile& f, uint32_t type, uint32_t ident) {
  for (const format::LabelRecord& r : f.labels) {
    if (r.type == type && r.ident == ident) return &r;
  }
  return nullptr;
}

TEST(MmvMappingLabels, ClusterLabelKeptForAnAutomaticCluster) {
  // libpcp_mmv stores the requested cluster (0) as the label's identity;
  // pmdammv compares it with the assigned one and loses the label (E1).
  MmvSpec spec = Spec({{"x", 1}});
  spec.labels = {Label(format::kMmvLabelCluster, 0, "{\"team\":\"storage\"}")};
  MmvMapper mapper;
  mapper.ReserveClusters({{"a", 1}});
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "z", spec);
  ASSERT_OK(f);
  ASSERT_EQ(f->cluster, 2u);
  const format::LabelRecord* r =
      FindLabels(*f, format::kLabelCluster, format::PmidBuild(kDomain, 2, 0));
  ASSERT_NE(r, nullptr) << ::testing::PrintToString(f->warnings);
  ASSERT_THAT(r->sets, SizeIs(1));
  EXPECT_EQ(r->sets[0].json, "{\"team\":\"storage\"}");
  EXPECT_EQ(r->sets[0].inst, format::kInNull);
  ASSERT_THAT(r->sets[0].labels, SizeIs(1));
  EXPECT_EQ(r->sets[0].labels[0].flags, format::kLabelCluster);
}

TEST(MmvMappingLabels, ClusterLabelForAPinnedClusterAndForeignOnesDropped) {
  MmvSpec spec = Spec({{"x", 1}}, 7);
  spec.labels = {Label(format::kMmvLabelCluster, 7, "{\"a\":1}"),
                 Label(format::kMmvLabelCluster, 9, "{\"b\":2}")};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "p", spec);
  ASSERT_OK(f);
  const format::LabelRecord* r =
      FindLabels(*f, format::kLabelCluster, format::PmidBuild(kDomain, 7, 0));
  ASSERT_NE(r, nullptr);
  ASSERT_THAT(r->sets, SizeIs(1));
  EXPECT_EQ(r->sets[0].json, "{\"a\":1}");
  EXPECT_TRUE(AnyWarningHas(*f, "cluster 9"));
}

TEST(MmvMappingLabels, ItemIndomAndInstanceLabelsCarryTheirIdent) {
  MmvSpec spec;
  spec.cluster = 5;
  spec.indoms = {Indom(2, {{10, "ten"}, {20, "twenty"}})};
  spec.metrics = {Metric("single", 1), Metric("per", 2, MmvType::kU64,
                                               format::kMmvSemCounter, 2)};
  spec.labels = {Label(format::kMmvLabelItem, 2, "{\"unit\":\"ops\"}"),
                 Label(format::kMmvLabelIndom, 2, "{\"kind\":\"queue\"}"),
                 Label(format::kMmvLabelInstances, 2, "{\"q\":\"high\"}", 20),
                 Label(format::kMmvLabelInstances, 2, "{\"q\":\"low\"}", 10)};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "l", spec);
  ASSERT_OK(f);
  const uint32_t indom = format::InDomBuild(kDomain, (5u << 11) | 2);
  const format::LabelRecord* item =
      FindLabels(*f, format::kLabelItem, format::PmidBuild(kDomain, 5, 2));
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->sets[0].json, "{\"unit\":\"ops\"}");
  EXPECT_EQ(item->sets[0].labels[0].flags, format::kLabelItem);
  EXPECT_EQ(FindLabels(*f, format::kLabelItem, format::PmidBuild(kDomain, 5, 1)), nullptr);
  const format::LabelRecord* in = FindLabels(*f, format::kLabelIndom, indom);
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->sets[0].json, "{\"kind\":\"queue\"}");
  EXPECT_EQ(in->sets[0].labels[0].flags, format::kLabelIndom);
  const format::LabelRecord* insts = FindLabels(*f, format::kLabelInstances, indom);
  ASSERT_NE(insts, nullptr);
  ASSERT_THAT(insts->sets, SizeIs(2));  // one record, one set per instance
  EXPECT_EQ(insts->sets[0].inst, 10);
  EXPECT_EQ(insts->sets[0].json, "{\"q\":\"low\"}");
  EXPECT_EQ(insts->sets[1].inst, 20);
  EXPECT_EQ(insts->sets[1].json, "{\"q\":\"high\"}");
  EXPECT_EQ(insts->sets[1].labels[0].flags, format::kLabelInstances);
  EXPECT_THAT(f->labels, SizeIs(3));
}

TEST(MmvMappingLabels, ItemLabelOfASkippedMetricIsNotExported) {
  MmvSpec spec = Spec({{"x", 1}, {"bad-name", 2}});
  spec.labels = {Label(format::kMmvLabelItem, 2, "{\"a\":1}")};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "s", spec);
  ASSERT_OK(f);
  EXPECT_THAT(f->labels, IsEmpty());
}

TEST(MmvMappingLabels, SeveralPayloadsForOneEntityAreMerged) {
  MmvSpec spec = Spec({{"x", 1}}, 1);
  spec.labels = {Label(format::kMmvLabelItem, 1, "{\"zeta\":true}"),
                 Label(format::kMmvLabelItem, 1, "{\"alpha\":\"first\"}"),
                 Label(format::kMmvLabelItem, 1, "{\"alpha\":\"second\",\"mid\":3}")};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "m", spec);
  ASSERT_OK(f);
  ASSERT_THAT(f->labels, SizeIs(1));
  ASSERT_THAT(f->labels[0].sets, SizeIs(1));
  // Sorted names, the later payload winning a name.
  EXPECT_EQ(f->labels[0].sets[0].json, "{\"alpha\":\"second\",\"mid\":3,\"zeta\":true}");
  EXPECT_THAT(f->labels[0].sets[0].labels, SizeIs(3));
}

TEST(MmvMappingLabels, OptionalFlagIsKeptPerLabel) {
  MmvSpec spec = Spec({{"x", 1}}, 1);
  spec.labels = {
      Label(format::kMmvLabelItem | format::kMmvLabelOptional, 1, "{\"hint\":\"yes\"}"),
      Label(format::kMmvLabelItem, 1, "{\"must\":1}")};
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f = MapSpec(mapper, "o", spec);
  ASSERT_OK(f);
  ASSERT_THAT(f->labels, SizeIs(1));
  const format::LabelSet& set = f->labels[0].sets[0];
  ASSERT_EQ(set.json, "{\"hint\":\"yes\",\"must\":1}");
  ASSERT_THAT(set.labels, SizeIs(2));
  EXPECT_EQ(set.labels[0].flags, format::kLabelItem | format::kLabelOptional);  // hint
  EXPECT_EQ(set.labels[1].flags, format::kLabelItem);                           // must
}

// ---------------------------------------------------------------------------
// AppendValueSets

struct AllTypes {
  Built built;
  MappedFile mapped;
};

// One singular metric of every type (items 1..8).
AllTypes MapAllTypes(uint32_t flags) {
  MmvSpec spec;
  spec.cluster = 1;
  spec.flags = flags;
  spec.metrics = {Metric("i32", 1, MmvType::kI32),       Metric("u32", 2, MmvType::kU32),
                  Metric("i64", 3, MmvType::kI64),       Metric("u64", 4, MmvType::kU64),
                  Metric("float", 5, MmvType::kFloat),   Metric("double", 6, MmvType::kDouble),
                  Metric("string", 7, MmvType::kString), Metric("elapsed", 8, MmvType::kElapsed)};
  AllTypes t;
  t.built = Build(spec);
  MmvMapper mapper;
  absl::StatusOr<MappedFile> m = mapper.Map("v", t.built.file);
  EXPECT_OK(m);
  if (m.ok()) t.mapped = std::move(*m);
  return t;
}

void SetAllOnes(format::MmvImage& image, uint32_t item) {
  format::SetMmvU64(image.bytes, image.slot(item), ~uint64_t{0});
}

TEST(AppendValueSets, EveryTypeIsDecoded) {
  AllTypes t = MapAllTypes(0);
  format::MmvImage& im = t.built.image;
  format::SetMmvI32(im.bytes, im.slot(1), -5);
  format::SetMmvU32(im.bytes, im.slot(2), 4'000'000'000u);
  format::SetMmvI64(im.bytes, im.slot(3), -(int64_t{1} << 40));
  format::SetMmvU64(im.bytes, im.slot(4), ~uint64_t{0} - 1);
  format::SetMmvFloat(im.bytes, im.slot(5), 1.5f);
  format::SetMmvDouble(im.bytes, im.slot(6), -2.25);
  format::SetMmvString(im.bytes, im.slot(7), "hello");
  format::SetMmvElapsed(im.bytes, im.slot(8), 1000, 0);
  format::Result r;
  AppendValueSets(t.mapped, im.bytes, 5'000'000, &r);
  ASSERT_THAT(r.sets, SizeIs(8));
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(r.sets[i].pmid, format::PmidBuild(kDomain, 1, i + 1));
    EXPECT_EQ(r.sets[i].type, t.mapped.metrics[i].desc.type);
    EXPECT_EQ(r.sets[i].error, 0);
    ASSERT_THAT(r.sets[i].values, SizeIs(1)) << i;
    EXPECT_EQ(r.sets[i].values[0].inst, format::kInNull);
  }
  EXPECT_EQ(r.sets[0].values[0].i64, -5);
  EXPECT_EQ(r.sets[1].values[0].u64, 4'000'000'000u);
  EXPECT_EQ(r.sets[2].values[0].i64, -(int64_t{1} << 40));
  EXPECT_EQ(r.sets[3].values[0].u64, ~uint64_t{0} - 1);
  EXPECT_EQ(r.sets[4].values[0].f64, 1.5);
  EXPECT_EQ(r.sets[5].values[0].f64, -2.25);
  EXPECT_EQ(r.sets[6].values[0].bytes, "hello");
  EXPECT_EQ(r.sets[7].values[0].i64, 1000);  // not running: now is not added
}

TEST(AppendValueSets, WithoutSentinelFlagSentinelValuesAreValues) {
  AllTypes t = MapAllTypes(0);
  format::MmvImage& im = t.built.image;
  for (uint32_t item : {1u, 2u, 3u, 4u, 8u}) SetAllOnes(im, item);
  format::SetMmvFloat(im.bytes, im.slot(5), std::numeric_limits<float>::quiet_NaN());
  format::SetMmvDouble(im.bytes, im.slot(6), std::numeric_limits<double>::quiet_NaN());
  format::SetMmvString(im.bytes, im.slot(7), "");
  format::Result r;
  AppendValueSets(t.mapped, im.bytes, 0, &r);
  ASSERT_THAT(r.sets, SizeIs(8));
  for (size_t i = 0; i < 8; ++i) EXPECT_THAT(r.sets[i].values, SizeIs(1)) << i;
  EXPECT_EQ(r.sets[0].values[0].i64, -1);
  EXPECT_EQ(r.sets[3].values[0].u64, ~uint64_t{0});
  EXPECT_TRUE(std::isnan(r.sets[5].values[0].f64));
  EXPECT_EQ(r.sets[6].values[0].bytes, "");
}

TEST(AppendValueSets, SentinelValuesGiveNoValue) {
  AllTypes t = MapAllTypes(format::kMmvFlagSentinel);
  ASSERT_TRUE(t.mapped.sentinel);
  format::MmvImage& im = t.built.image;
  for (uint32_t item : {1u, 2u, 3u, 4u, 8u}) SetAllOnes(im, item);
  format::SetMmvFloat(im.bytes, im.slot(5), std::numeric_limits<float>::quiet_NaN());
  format::SetMmvDouble(im.bytes, im.slot(6), -std::numeric_limits<double>::quiet_NaN());
  format::SetMmvString(im.bytes, im.slot(7), "");
  format::Result r;
  AppendValueSets(t.mapped, im.bytes, 123, &r);
  ASSERT_THAT(r.sets, SizeIs(8));
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(r.sets[i].error, 0) << i;
    EXPECT_THAT(r.sets[i].values, IsEmpty()) << i;  // "no values", not an error
  }
}

TEST(AppendValueSets, SentinelFileStillRecordsOrdinaryValues) {
  AllTypes t = MapAllTypes(format::kMmvFlagSentinel);
  format::MmvImage& im = t.built.image;
  // -1 in a 32-bit slot is not the sentinel: only all 8 atom bytes are.
  format::SetMmvI32(im.bytes, im.slot(1), -1);
  format::SetMmvU32(im.bytes, im.slot(2), 0xffffffffu);
  format::SetMmvI64(im.bytes, im.slot(3), 0);
  format::SetMmvU64(im.bytes, im.slot(4), ~uint64_t{0} - 1);
  format::SetMmvFloat(im.bytes, im.slot(5), std::numeric_limits<float>::infinity());
  format::SetMmvDouble(im.bytes, im.slot(6), 0.0);
  format::SetMmvString(im.bytes, im.slot(7), "x");
  format::SetMmvElapsed(im.bytes, im.slot(8), 0, 0);
  format::Result r;
  AppendValueSets(t.mapped, im.bytes, 0, &r);
  ASSERT_THAT(r.sets, SizeIs(8));
  for (size_t i = 0; i < 8; ++i) EXPECT_THAT(r.sets[i].values, SizeIs(1)) << i;
  EXPECT_EQ(r.sets[0].values[0].i64, -1);
  EXPECT_EQ(r.sets[1].values[0].u64, 0xffffffffu);
}

TEST(AppendValueSets, RunningElapsedIntervalAddsNowPlusExtra) {
  AllTypes t = MapAllTypes(0);
  format::MmvImage& im = t.built.image;
  // 1000 us accumulated; an interval started at 5000 us is still running.
  format::SetMmvElapsed(im.bytes, im.slot(8), 1000, -5000);
  format::Result r;
  AppendValueSets(t.mapped, im.bytes, 8000, &r);
  ASSERT_THAT(r.sets[7].values, SizeIs(1));
  EXPECT_EQ(r.sets[7].values[0].i64, 1000 + 8000 - 5000);
  // Sampled later, the running interval has grown.
  r.sets.clear();
  AppendValueSets(t.mapped, im.bytes, 9000, &r);
  EXPECT_EQ(r.sets[7].values[0].i64, 5000);
}

TEST(AppendValueSets, ValuesComeInTheIndomsInstanceOrder) {
  MmvSpec spec;
  spec.cluster = 1;
  // Deliberately not sorted by id.
  spec.indoms = {Indom(1, {{30, "c"}, {10, "a"}, {20, "b"}})};
  spec.metrics = {Metric("n", 1, MmvType::kU64, format::kMmvSemCounter, 1)};
  absl::StatusOr<format::MmvImage> image = format::BuildMmv(spec);
  ASSERT_OK(image);
  std::vector<uint8_t>& bytes = image->bytes;
  format::SetMmvU64(bytes, image->slot(1, 30), 300);
  format::SetMmvU64(bytes, image->slot(1, 10), 100);
  format::SetMmvU64(bytes, image->slot(1, 20), 200);
  // Reverse the VALUES entries in the file (each moves with its metric and
  // instance pointers), so file order differs from instance order.
  const uint64_t first = image->slot(1, 30).value_offset;
  const uint64_t last = image->slot(1, 20).value_offset;
  ASSERT_EQ(last - first, 2 * sizeof(format::MmvDiskValue));
  std::vector<uint8_t> tmp(bytes.begin() + first, bytes.begin() + first + 32);
  std::memmove(bytes.data() + first, bytes.data() + last, 32);
  std::memcpy(bytes.data() + last, tmp.data(), 32);
  absl::StatusOr<format::MmvFile> parsed = format::ParseMmv(bytes);
  ASSERT_OK(parsed);
  ASSERT_EQ(parsed->values[0].instance, 20);  // the file order is now b, a, c
  MmvMapper mapper;
  absl::StatusOr<MappedFile> f =
      mapper.Map("o", std::make_shared<const format::MmvFile>(std::move(*parsed)));
  ASSERT_OK(f);
  format::Result r;
  AppendValueSets(*f, bytes, 0, &r);
  ASSERT_THAT(r.sets, SizeIs(1));
  ASSERT_THAT(r.sets[0].values, SizeIs(3));
  EXPECT_EQ(r.sets[0].values[0].inst, 30);
  EXPECT_EQ(r.sets[0].values[0].u64, 300u);
  EXPECT_EQ(r.sets[0].values[1].inst, 10);
  EXPECT_EQ(r.sets[0].values[1].u64, 100u);
  EXPECT_EQ(r.sets[0].values[2].inst, 20);
  EXPECT_EQ(r.sets[0].values[2].u64, 200u);
}

TEST(AppendValueSets, UndecodableValueIsAnErrorSet) {
  AllTypes t = MapAllTypes(0);
  format::MmvImage& im = t.built.image;
  format::SetMmvU64(im.bytes, im.slot(4), 7);
  // The string value's slot offset now points into the header.
  format::StoreNative<int64_t>(im.bytes.data() + im.slot(7).value_offset +
                                   format::kMmvValueExtraOffset,
                               8);
  format::Result r;
  AppendValueSets(t.mapped, im.bytes, 0, &r);
  ASSERT_THAT(r.sets, SizeIs(8));
  EXPECT_EQ(r.sets[6].error, -12345);  // PM_ERR_GENERIC, as pmdammv
  EXPECT_THAT(r.sets[6].values, IsEmpty());
  ASSERT_THAT(r.sets[3].values, SizeIs(1));  // the others are unaffected
  EXPECT_EQ(r.sets[3].values[0].u64, 7u);
}

TEST(AppendValueSets, AppendsAfterExistingSets) {
  AllTypes t = MapAllTypes(0);
  format::Result r;
  r.sets.emplace_back();
  AppendValueSets(t.mapped, t.built.image.bytes, 0, &r);
  EXPECT_THAT(r.sets, SizeIs(9));
}

// ---------------------------------------------------------------------------
// ValuePlan: the fast path gives the bytes of the slow one

// The template of `t`'s values as the image has them now (ValueSizes), as
// the recorder makes it.
std::optional<format::ResultTemplate> TemplateOf(const AllTypes& t, int version) {
  std::vector<std::vector<int32_t>> instances;
  std::vector<std::vector<uint32_t>> sizes;
  for (const MappedMetric& m : t.mapped.metrics) {
    instances.push_back(Instances(t.mapped, m));
    std::optional<std::vector<uint32_t>> s = ValueSizes(t.mapped, m, t.built.image.bytes);
    if (!s.has_value()) return std::nullopt;
    sizes.push_back(std::move(*s));
  }
  std::vector<format::SetLayout> layout;
  for (size_t i = 0; i < t.mapped.metrics.size(); ++i) {
    const format::Desc& d = t.mapped.metrics[i].desc;
    layout.push_back({d.pmid, d.type, 0, instances[i], sizes[i]});
  }
  return format::ResultTemplate::FromLayout(version, {}, layout);
}

// The plan of `t`'s file alone.
ValuePlan PlanOf(const AllTypes& t) {
  const std::vector<std::shared_ptr<const MappedFile>> files = {
      std::make_shared<const MappedFile>(t.mapped)};
  return ValuePlan::Make(files);
}

// What AppendValueSets and EncodeResult make of the image now.
std::vector<uint8_t> Encoded(const AllTypes& t, int version, format::Timestamp when,
                             int64_t now_usec) {
  format::Result r;
  r.timestamp = when;
  AppendValueSets(t.mapped, t.built.image.bytes, now_usec, &r);
  std::vector<uint8_t> out;
  format::EncodeResult(version, r, &out);
  return out;
}

TEST(ValuePlan, EveryTypeIncludingStringsAndElapsedGivesTheEncodedResultsBytes) {
  AllTypes t = MapAllTypes(0);
  const ValuePlan plan = PlanOf(t);
  ASSERT_TRUE(t.mapped.fixed_layout);
  format::MmvImage& im = t.built.image;
  format::SetMmvString(im.bytes, im.slot(7), "state 1");
  for (int version : {format::kLogVersion2, format::kLogVersion3}) {
    std::optional<format::ResultTemplate> tmpl = TemplateOf(t, version);
    ASSERT_TRUE(tmpl.has_value());
    // Every sample new values; the string changes but keeps its length
    // ("state N"); the elapsed time runs from sample 2 on.
    for (int n = 0; n < 8; ++n) {
      format::SetMmvI32(im.bytes, im.slot(1), -5 * n);
      format::SetMmvU32(im.bytes, im.slot(2), 4'000'000'000u + n);
      format::SetMmvI64(im.bytes, im.slot(3), -(int64_t{1} << 40) * n);
      format::SetMmvU64(im.bytes, im.slot(4), ~uint64_t{0} - n);
      format::SetMmvFloat(im.bytes, im.slot(5), 1.5f * n);
      format::SetMmvDouble(im.bytes, im.slot(6), -2.25 * n);
      format::SetMmvString(im.bytes, im.slot(7), absl::StrCat("state ", n));
      format::SetMmvElapsed(im.bytes, im.slot(8), 1000 * n, n >= 2 ? -5000 : 0);
      const format::Timestamp when{1'700'000'000 + n, 0};
      const int64_t now_usec = 8000 + n;
      tmpl->SetTimestamp(when);
      ASSERT_TRUE(plan.Store(0, im.bytes, now_usec, &*tmpl)) << n;
      EXPECT_EQ(std::vector<uint8_t>(tmpl->record().begin(), tmpl->record().end()),
                Encoded(t, version, when, now_usec))
          << "version " << version << " sample " << n;
    }
  }
}

TEST(ValuePlan, AStringThatOutgrowsItsPlaceOrCannotBeReadIsRefused) {
  AllTypes t = MapAllTypes(0);
  format::MmvImage& im = t.built.image;
  format::SetMmvString(im.bytes, im.slot(7), "ok");  // a block of 4 + 3: 8 padded
  std::optional<format::ResultTemplate> tmpl = TemplateOf(t, format::kLogVersion3);
  ASSERT_TRUE(tmpl.has_value());
  const ValuePlan plan = PlanOf(t);
  format::SetMmvString(im.bytes, im.slot(7), "no");
  EXPECT_TRUE(plan.Store(0, im.bytes, 0, &*tmpl));
  format::SetMmvString(im.bytes, im.slot(7), "yes");  // 4 + 4: still 8
  EXPECT_TRUE(plan.Store(0, im.bytes, 0, &*tmpl));
  EXPECT_EQ(std::vector<uint8_t>(tmpl->record().begin(), tmpl->record().end()),
            Encoded(t, format::kLogVersion3, {}, 0));
  format::SetMmvString(im.bytes, im.slot(7), "degraded");  // 4 + 9: 16
  EXPECT_FALSE(plan.Store(0, im.bytes, 0, &*tmpl));
  // A string slot without its NUL: AppendValueSets gives an error set, the
  // template has no place for one.
  format::SetMmvString(im.bytes, im.slot(7), "ok");
  std::memset(im.bytes.data() + im.slot(7).string_offset, 'x', format::kMmvStringSlotSize);
  EXPECT_FALSE(plan.Store(0, im.bytes, 0, &*tmpl));
  EXPECT_FALSE(ValueSizes(t.mapped, t.mapped.metrics[6], im.bytes).has_value());
  format::Result r;
  AppendValueSets(t.mapped, im.bytes, 0, &r);
  EXPECT_LT(r.sets[6].error, 0);
}

// A group of files whose sets follow one another in one template.
TEST(ValuePlan, AGroupOfFilesGivesTheEncodedResultsBytes) {
  AllTypes a = MapAllTypes(0);
  AllTypes b = MapAllTypes(0);
  format::SetMmvString(a.built.image.bytes, a.built.image.slot(7), "state a");
  format::SetMmvString(b.built.image.bytes, b.built.image.slot(7), "state b");
  // One template of both files' sets, a's then b's (their values differ
  // below, so a file stored into the other's sets shows).
  std::vector<format::SetLayout> layout;
  std::vector<std::vector<int32_t>> instances;
  std::vector<std::vector<uint32_t>> sizes;
  for (const AllTypes* t : {&a, &b}) {
    for (const MappedMetric& m : t->mapped.metrics) {
      instances.push_back(Instances(t->mapped, m));
      sizes.push_back(*ValueSizes(t->mapped, m, t->built.image.bytes));
    }
  }
  size_t i = 0;
  for (const AllTypes* t : {&a, &b}) {
    for (const MappedMetric& m : t->mapped.metrics) {
      layout.push_back({m.desc.pmid, m.desc.type, 0, instances[i], sizes[i]});
      ++i;
    }
  }
  std::optional<format::ResultTemplate> both =
      format::ResultTemplate::FromLayout(format::kLogVersion3, {}, layout);
  ASSERT_TRUE(both.has_value());
  const std::vector<std::shared_ptr<const MappedFile>> files = {
      std::make_shared<const MappedFile>(a.mapped), std::make_shared<const MappedFile>(b.mapped)};
  const ValuePlan plan = ValuePlan::Make(files);
  ASSERT_EQ(plan.files(), 2u);
  EXPECT_EQ(plan.values_from(0), a.mapped.values_from);
  EXPECT_EQ(plan.values_to(1), b.mapped.values_to);
  for (int n = 0; n < 5; ++n) {
    for (AllTypes* t : {&a, &b}) {
      format::MmvImage& im = t->built.image;
      format::SetMmvI32(im.bytes, im.slot(1), -7 * n - (t == &b));
      format::SetMmvU64(im.bytes, im.slot(4), ~uint64_t{0} - n * (t == &a ? 1 : 3));
      format::SetMmvDouble(im.bytes, im.slot(6), 0.5 * n);
      format::SetMmvElapsed(im.bytes, im.slot(8), 100 * n, n >= 1 ? -300 : 0);
    }
    const int64_t now_usec = 9000 + n;
    ASSERT_TRUE(plan.Store(0, a.built.image.bytes, now_usec, &*both));
    ASSERT_TRUE(plan.Store(1, b.built.image.bytes, now_usec, &*both));
    // What the slow path encodes for the two files' sets.
    format::Result r;
    AppendValueSets(a.mapped, a.built.image.bytes, now_usec, &r);
    AppendValueSets(b.mapped, b.built.image.bytes, now_usec, &r);
    std::vector<uint8_t> encoded;
    format::EncodeResult(format::kLogVersion3, r, &encoded);
    EXPECT_EQ(std::vector<uint8_t>(both->record().begin(), both->record().end()), encoded)
        << "sample " << n;
  }
  // A string that outgrows its place is refused through the plan too.
  format::SetMmvString(b.built.image.bytes, b.built.image.slot(7), "a state far longer");
  EXPECT_FALSE(plan.Store(1, b.built.image.bytes, 0, &*both));
  EXPECT_TRUE(plan.Store(0, a.built.image.bytes, 0, &*both));
}

TEST(ValuePlan, SentinelFilesHaveNoFixedLayout) {
  EXPECT_TRUE(MapAllTypes(0).mapped.fixed_layout);
  EXPECT_FALSE(MapAllTypes(format::kMmvFlagSentinel).mapped.fixed_layout);
}

}  // namespace
}  // namespace mmvlog::archiver

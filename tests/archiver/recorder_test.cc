// Recorder: MMV files in a directory -> one archive, driven sample by sample
// with explicit times, the test playing the applications (writing,
// restarting, removing and corrupting their files) and reading the archive
// back with ArchiveReader (and the real pmlogcheck, when installed).
#include "archiver/record/recorder.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "archiver/mmv/dir_watch.h"
#include "archiver/file/file_syscalls.h"
#include "archiver/file/posix_file.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_meta.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_writer.h"
#include "tests/archiver/recorder_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::ArchiveContents;
using ::mmvlog::testing::LogSink;
using ::mmvlog::testing::MmvApp;
using ::mmvlog::testing::NewTempDir;
using ::mmvlog::testing::ReadArchive;
using ::mmvlog::testing::ReadMetaRecords;
using ::mmvlog::testing::SpecIndom;
using ::mmvlog::testing::SpecMetric;
using ::mmvlog::testing::StatusIs;
using ::mmvlog::testing::TestRecorderOptions;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);
absl::Time T(double sec) { return kT0 + absl::Seconds(sec); }
format::Timestamp Ts(double sec) { return format::ToTimestamp(T(sec)); }
// An archive created at T(sec) starts with its prologue, 1 us before.
format::Timestamp Start(double sec) { return format::ToTimestamp(T(sec) - absl::Microseconds(1)); }

// One singular U64 counter "count" (item 1) and a DOUBLE "load" (item 2).
format::MmvSpec SimpleSpec(int32_t cluster = 0) {
  format::MmvSpec spec;
  spec.cluster = cluster;
  spec.metrics = {SpecMetric("count", 1), SpecMetric("load", 2, format::MmvType::kDouble)};
  return spec;
}

// A U64 counter "per" (item 1) over indom 1 with the given instances.
format::MmvSpec IndomSpec(std::vector<std::pair<int32_t, std::string>> instances) {
  format::MmvSpec spec;
  spec.indoms = {SpecIndom(1, std::move(instances))};
  spec.metrics = {SpecMetric("per", 1, format::MmvType::kU64, 1)};
  return spec;
}

uint64_t U64(const ArchiveContents& a, const format::Result& r, const std::string& name) {
  const format::ValueSet* s = a.Set(r, name);
  EXPECT_NE(s, nullptr) << name;
  if (s == nullptr) return ~uint64_t{0};
  EXPECT_THAT(s->values, SizeIs(1)) << name;
  return s->values.empty() ? ~uint64_t{0} : s->values[0].u64;
}

// Result timestamps never go backwards (pmlogcheck's rule too).
void ExpectTimeOrder(const ArchiveContents& a) {
  for (size_t i = 1; i < a.results.size(); ++i) {
    EXPECT_LE(a.results[i - 1].timestamp, a.results[i].timestamp) << "record " << i;
  }
}

// The indices of the mark records in a.results.
std::vector<size_t> MarkPositions(const ArchiveContents& a) {
  std::vector<size_t> out;
  for (size_t i = 0; i < a.results.size(); ++i) {
    if (a.results[i].sets.empty()) out.push_back(i);
  }
  return out;
}

class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = NewTempDir("mmv");
    out_ = NewTempDir("out");
    base_ = out_ + "/arch";
  }
  RecorderOptions Options() const { return TestRecorderOptions(dir_, base_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_, out_, base_;
  LogSink log_;
};

TEST_F(RecorderTest, RecordsEveryFileWithNamesHelpAndContextLabels) {
  MmvApp a(Path("alpha"), SimpleSpec());
  a.mutable_spec().metrics[0].short_help = "requests so far";
  a.Create();
  MmvApp b(Path("beta"), SimpleSpec(9));
  b.Create();
  a.SetU64(1, 10);
  a.SetDouble(2, 0.5);
  b.SetU64(1, 1000);
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  a.SetU64(1, 20);
  b.SetU64(1, 2000);
  ASSERT_OK(rec.Sample(T(1)));
  EXPECT_EQ(rec.metrics(), 4u);
  EXPECT_EQ(rec.stats().samples, 2u);
  EXPECT_EQ(rec.stats().values, 8u);
  EXPECT_EQ(rec.stats().marks, 0u);
  ASSERT_OK(rec.Close());
  EXPECT_THAT(rec.archives(), ElementsAre(base_));

  ArchiveContents ar = ReadArchive(base_);
  EXPECT_EQ(ar.label.hostname, "testhost");
  EXPECT_EQ(ar.label.start, Start(0));
  EXPECT_EQ(ar.Pmid("mmv.alpha.count"), format::PmidBuild(70, 1, 1));
  EXPECT_EQ(ar.Pmid("mmv.beta.count"), format::PmidBuild(70, 9, 1));
  ASSERT_THAT(ar.results, SizeIs(2));
  EXPECT_EQ(ar.results[0].timestamp, Ts(0));
  EXPECT_EQ(ar.results[1].timestamp, Ts(1));
  EXPECT_EQ(U64(ar, ar.results[0], "mmv.alpha.count"), 10u);
  EXPECT_EQ(U64(ar, ar.results[1], "mmv.alpha.count"), 20u);
  EXPECT_EQ(U64(ar, ar.results[1], "mmv.beta.count"), 2000u);
  const format::ValueSet* load = ar.Set(ar.results[0], "mmv.alpha.load");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->values[0].f64, 0.5);
  const std::string* help =
      ar.meta.Text(format::kTextOneLine | format::kTextPmid, format::PmidBuild(70, 1, 1));
  ASSERT_NE(help, nullptr);
  EXPECT_EQ(*help, "requests so far");
  bool context = false, domain = false;
  for (const format::LabelRecord& l : ar.meta.labels) {
    if (l.type == format::kLabelContext) {
      context = true;
      EXPECT_THAT(l.sets[0].json, HasSubstr("\"hostname\":\"testhost\""));
    }
    if (l.type == format::kLabelDomain) {
      domain = true;
      EXPECT_EQ(l.ident, 70u);
      EXPECT_EQ(l.sets[0].json, "{\"agent\":\"mmv\"}");
    }
  }
  EXPECT_TRUE(context);
  EXPECT_TRUE(domain);
  EXPECT_THAT(ar.warnings, IsEmpty());
  EXPECT_PMLOGCHECK_OK(base_);
}

// Live archives (pmproxy's discovery, Recorder::LiveStep): the prologue
// and the first result are written at once, the next results held until
// .meta and the directory have been touched in the next wall-clock second
// and a reader (pmproxy) has opened .meta since and had 100 ms, no sooner
// than 200 ms after the touch; then written in order, nothing lost.
TEST_F(RecorderTest, LiveArchiveHoldsResultsAfterTheFirstUntilTheNextSecond) {
  MmvApp a(Path("alpha"), SimpleSpec());
  a.Create();
  a.SetU64(1, 10);
  RecorderOptions o = Options();
  o.live = true;
  Recorder rec(o, log_.fn());
  const absl::Time second = absl::FromUnixSeconds(absl::ToUnixSeconds(T(0)) + 100);
  auto at = [&](int ms) { return second + absl::Milliseconds(ms); };
  auto size = [](const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
  };
  auto mtime = [](const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? st.st_mtim.tv_sec : -1;
  };
  ASSERT_OK(rec.Sample(at(300)));
  ASSERT_OK(rec.LiveStep(at(301)));
  EXPECT_EQ(rec.NextLiveStep(), at(1020));  // the next second, 20 ms in
  const auto written = size(base_ + ".0");
  EXPECT_EQ(ReadArchive(base_).results.size(), 1u);  // the first result, on disk
  // Old times, to see the touch.
  const struct timespec old_times[2] = {{1, 0}, {1, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (base_ + ".meta").c_str(), old_times, 0), 0);
  ASSERT_EQ(::utimensat(AT_FDCWD, out_.c_str(), old_times, 0), 0);
  a.SetU64(1, 20);
  ASSERT_OK(rec.Sample(at(700)));
  EXPECT_EQ(size(base_ + ".0"), written);  // held
  ASSERT_OK(rec.LiveStep(at(1020)));
  EXPECT_GT(mtime(base_ + ".meta"), 1);
  EXPECT_GT(mtime(out_), 1);
  EXPECT_EQ(rec.NextLiveStep(), at(1220));
  a.SetU64(1, 30);
  ASSERT_OK(rec.Sample(at(1100)));
  EXPECT_EQ(size(base_ + ".0"), written);  // still held
  ASSERT_OK(rec.LiveStep(at(1220)));  // no reader yet: looked for again
  EXPECT_EQ(size(base_ + ".0"), written);
  EXPECT_EQ(rec.NextLiveStep(), at(1270));
  {
    // pmproxy's pmNewContext opens and reads .meta.
    std::ifstream meta(base_ + ".meta", std::ios::binary);
    char c;
    ASSERT_TRUE(meta.get(c));
  }
  ASSERT_OK(rec.LiveStep(at(1270)));  // seen: its moment
  EXPECT_EQ(size(base_ + ".0"), written);
  EXPECT_EQ(rec.NextLiveStep(), at(1370));
  ASSERT_OK(rec.LiveStep(at(1370)));
  EXPECT_GT(size(base_ + ".0"), written);
  EXPECT_EQ(rec.NextLiveStep(), absl::InfiniteFuture());
  a.SetU64(1, 40);
  ASSERT_OK(rec.Sample(at(1500)));  // written at once from now on
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  ASSERT_THAT(ar.results, SizeIs(4));
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(U64(ar, ar.results[i], "mmv.alpha.count"), 10 * (i + 1));
  EXPECT_PMLOGCHECK_OK(base_);
}

// What a reader of the files sees each time a record reaches a volume of
// `meta`'s archive: the size of .meta then (SeenAtRecords).
std::string g_meta_path;
std::vector<off_t>* g_meta_at_records = nullptr;

ssize_t WriteNotingMeta(int fd, const void* data, size_t n) {
  char link[64], path[4096];
  std::snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  const ssize_t len = ::readlink(link, path, sizeof(path) - 1);
  struct stat st;
  if (len > 2 && std::string(path, len).ends_with(".0") && ::fstat(fd, &st) == 0 &&
      st.st_size > 0) {  // past the volume's label: a record
    struct stat meta;
    g_meta_at_records->push_back(::stat(g_meta_path.c_str(), &meta) == 0 ? meta.st_size : -1);
  }
  return RealFileSyscalls().write(fd, data, n);
}

// pmproxy opens a new archive once its volume holds a record, reads .meta
// then, and the records later: a record whose descriptors reached .meta
// between the two is read without them and dropped (CI lost a first sample
// so, fleet_cluster_test). So in a live archive, the first record to reach
// the volume (the prologue, with the first results in the same write) finds
// .meta already describing the first results; without `live` the prologue
// is written before them, as pmlogger writes it.
TEST_F(RecorderTest, LiveArchiveWritesItsFirstRecordsAfterAllTheirMetadata) {
  for (const bool live : {true, false}) {
    SCOPED_TRACE(live ? "live" : "not live");
    const std::string base = absl::StrCat(base_, live ? "-live" : "-plain");
    MmvApp a(Path(live ? "alpha" : "bravo"), SimpleSpec());
    a.Create();
    a.SetU64(1, 10);
    RecorderOptions o = Options();
    o.archive_base = base;
    o.live = live;
    Recorder rec(o, log_.fn());
    std::vector<off_t> meta_at_records;
    g_meta_path = base + ".meta";
    g_meta_at_records = &meta_at_records;
    const FileSyscallTable noting = {RealFileSyscalls().open, WriteNotingMeta,
                                     RealFileSyscalls().fdatasync, RealFileSyscalls().ftruncate,
                                     RealFileSyscalls().close};
    SetFileSyscallsForTesting(&noting);
    const absl::Status sampled = rec.Sample(T(0.3));
    SetFileSyscallsForTesting(nullptr);
    ASSERT_OK(sampled);
    struct stat meta;
    ASSERT_EQ(::stat(g_meta_path.c_str(), &meta), 0);
    ASSERT_THAT(meta_at_records, ::testing::Not(IsEmpty()));
    EXPECT_EQ(ReadArchive(base).results.size(), 1u);  // the first result, on disk
    if (live) {
      EXPECT_THAT(meta_at_records, ::testing::Each(meta.st_size));
      EXPECT_THAT(meta_at_records, SizeIs(1));  // one write: the prologue and the result
    } else {
      EXPECT_LT(meta_at_records.front(), meta.st_size);
    }
    ASSERT_OK(rec.Close());
    EXPECT_PMLOGCHECK_OK(base);
  }
}

// With no reader after the touch (no pmproxy, or one too busy to look), the
// held results are written 2 s after it: held no longer than that.
TEST_F(RecorderTest, LiveArchiveWithNoReaderIsHeldTwoSecondsAfterTheTouch) {
  MmvApp a(Path("alpha"), SimpleSpec());
  a.Create();
  RecorderOptions o = Options();
  o.live = true;
  Recorder rec(o, log_.fn());
  const absl::Time second = absl::FromUnixSeconds(absl::ToUnixSeconds(T(0)) + 100);
  auto at = [&](int ms) { return second + absl::Milliseconds(ms); };
  ASSERT_OK(rec.Sample(at(300)));
  ASSERT_OK(rec.LiveStep(at(301)));
  ASSERT_OK(rec.Sample(at(700)));
  struct stat st;
  ASSERT_EQ(::stat((base_ + ".0").c_str(), &st), 0);
  const off_t written = st.st_size;
  ASSERT_OK(rec.LiveStep(at(1020)));  // touched
  int steps = 0;
  while (rec.NextLiveStep() < at(3020)) {
    ASSERT_OK(rec.LiveStep(rec.NextLiveStep()));
    // (a stat: reading the archive would be a reader)
    ASSERT_EQ(::stat((base_ + ".0").c_str(), &st), 0);
    ASSERT_EQ(st.st_size, written);
    ++steps;
  }
  EXPECT_EQ(steps, 36);  // at 1220, then every 50 ms
  EXPECT_EQ(rec.NextLiveStep(), at(3020));
  ASSERT_OK(rec.LiveStep(at(3020)));
  EXPECT_EQ(rec.NextLiveStep(), absl::InfiniteFuture());
  EXPECT_EQ(ReadArchive(base_).results.size(), 2u);
  ASSERT_OK(rec.Close());
  EXPECT_PMLOGCHECK_OK(base_);
}

// Held results are written by Close, when the run ends before the release.
TEST_F(RecorderTest, LiveArchiveClosedWhileHoldingKeepsEverything) {
  MmvApp a(Path("alpha"), SimpleSpec());
  a.Create();
  RecorderOptions o = Options();
  o.live = true;
  Recorder rec(o, log_.fn());
  for (int i = 0; i < 3; ++i) {
    a.SetU64(1, 10 * (i + 1));
    ASSERT_OK(rec.Sample(T(0.1 * i)));
    ASSERT_OK(rec.LiveStep(T(0.1 * i)));
  }
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  ASSERT_THAT(ar.results, SizeIs(3));
  EXPECT_EQ(U64(ar, ar.results[2], "mmv.alpha.count"), 30u);
  EXPECT_PMLOGCHECK_OK(base_);
}

// Values are read in place from the file's mapping (MmvSource kMapped) while
// the application rewrites its file in place, new generation after new
// generation, sometimes shrinking it first: every recorded result holds
// values of one generation only, whole, and nothing crashes. A torn read is
// taken again from copies (stats().retaken).
TEST_F(RecorderTest, ValuesReadInPlaceWhileTheFileIsRewrittenAreNeverTorn) {
  constexpr int kInstances = 600;  // values over several pages
  std::vector<std::pair<int32_t, std::string>> insts;
  for (int i = 0; i < kInstances; ++i) insts.push_back({i, absl::StrCat("i", i)});
  auto image_of = [&](uint64_t generation) {
    format::MmvSpec spec = IndomSpec(insts);
    spec.generation = generation;
    absl::StatusOr<format::MmvImage> image = format::BuildMmv(spec);
    EXPECT_OK(image);
    for (int i = 0; i < kInstances; ++i) {
      format::SetMmvU64(image->bytes, image->slot(1, i), generation * 1'000'000 + i);
    }
    return image->bytes;
  };
  const std::string path = Path("app");
  ASSERT_OK(WriteFileAtomically(path, image_of(1)));

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> rewrites{0};
  std::thread writer([&] {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    for (uint64_t g = 2; !stop.load(); ++g) {
      std::vector<uint8_t> next = image_of(g);
      // A seqlock writer: g2 cleared first, the rest, g2 last; now and then
      // the file is cut short first (a mapped read past it would SIGBUS).
      const uint8_t zero[8] = {};
      EXPECT_EQ(::pwrite(fd, zero, sizeof(zero), 16), 8);
      if (g % 3 == 0) {
        EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(next.size() / 2)), 0);
      }
      std::vector<uint8_t> unsettled = next;
      std::memset(unsettled.data() + 16, 0, 8);
      EXPECT_EQ(::pwrite(fd, unsettled.data(), unsettled.size(), 0),
                static_cast<ssize_t>(unsettled.size()));
      EXPECT_EQ(::pwrite(fd, next.data() + 16, 8, 16), 8);
      rewrites.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::microseconds(200 + g % 500));
    }
    ::close(fd);
  });
  Recorder rec(Options(), log_.fn());
  int ticks = 0;
  for (; ticks < 4000 && (ticks < 300 || rewrites.load() < 200); ++ticks) {
    ASSERT_OK(rec.Sample(T(ticks * 0.001)));
  }
  stop = true;
  writer.join();
  ASSERT_OK(rec.Close());
  std::cout << ticks << " ticks, " << rewrites.load() << " rewrites, " << rec.stats().samples
            << " samples, " << rec.stats().retaken << " retaken\n";

  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.warnings, IsEmpty());
  size_t checked = 0;
  for (const format::Result* r : ar.data()) {
    const format::ValueSet* s = ar.Set(*r, "mmv.app.per");
    ASSERT_NE(s, nullptr);
    ASSERT_THAT(s->values, SizeIs(kInstances)) << "at " << r->timestamp.sec;
    const uint64_t g = s->values[0].u64 / 1'000'000;
    for (const format::ResultValue& v : s->values) {
      ASSERT_EQ(v.u64, g * 1'000'000 + static_cast<uint64_t>(v.inst))
          << "instance " << v.inst << " of a result of generation " << g;
    }
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

// With a DirWatch (as `mmvlog record` runs), a tick whose directory did not
// change looks at neither it nor its files' names; every change of the
// entries is still seen at the next tick: a new file, a file replaced by
// rename with the same generation and size (only its new inode tells), a
// removed file. Values written in place are read every tick.
TEST_F(RecorderTest, WithADirWatchEveryChangeOfTheEntriesIsSeenAtTheNextTick) {
  absl::StatusOr<DirWatch> watch = DirWatch::Open(dir_);
  ASSERT_OK(watch);
  RecorderOptions o = Options();
  o.mmv_dir_watch = &*watch;
  MmvApp a(Path("alpha"), SimpleSpec());
  a.Create();
  a.SetU64(1, 1);
  Recorder rec(o, log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  a.SetU64(1, 2);  // in place
  ASSERT_OK(rec.Sample(T(1)));
  a.SetU64(1, 3);
  ASSERT_OK(rec.Sample(T(2)));
  MmvApp b(Path("beta"), SimpleSpec());
  b.Create();
  b.SetU64(1, 30);
  ASSERT_OK(rec.Sample(T(3)));
  // Replaced: same generation, same layout, another value, a new inode.
  format::MmvImage next = a.image();
  format::SetMmvU64(next.bytes, next.slot(1), 77);
  ASSERT_OK(WriteFileAtomically(a.path(), next.bytes));
  ASSERT_OK(rec.Sample(T(4)));
  b.Remove();
  ASSERT_OK(rec.Sample(T(5)));
  ASSERT_OK(rec.Sample(T(6)));
  ASSERT_OK(rec.Close());

  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.warnings, IsEmpty());
  std::vector<const format::Result*> data = ar.data();
  ASSERT_THAT(data, SizeIs(7));
  EXPECT_EQ(U64(ar, *data[0], "mmv.alpha.count"), 1u);
  EXPECT_EQ(U64(ar, *data[1], "mmv.alpha.count"), 2u);
  EXPECT_EQ(U64(ar, *data[2], "mmv.alpha.count"), 3u);
  EXPECT_EQ(ar.Set(*data[2], "mmv.beta.count"), nullptr);
  EXPECT_EQ(U64(ar, *data[3], "mmv.beta.count"), 30u);
  EXPECT_EQ(U64(ar, *data[4], "mmv.alpha.count"), 77u);
  EXPECT_EQ(U64(ar, *data[4], "mmv.beta.count"), 30u);
  EXPECT_EQ(ar.Set(*data[5], "mmv.beta.count"), nullptr);
  EXPECT_EQ(U64(ar, *data[6], "mmv.alpha.count"), 77u);
  EXPECT_EQ(log_.Count(LogLevel::kInfo, {"beta: file is gone"}), 1u);
}

TEST_F(RecorderTest, FilesStartingWithADotAndDirectoriesAreIgnored) {
  MmvApp hidden(Path(".hidden"), SimpleSpec());
  hidden.Create();
  ASSERT_EQ(::mkdir(Path("subdir").c_str(), 0755), 0);
  MmvApp a(Path("a"), SimpleSpec());
  a.Create();
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  EXPECT_EQ(rec.metrics(), 2u);
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.meta.descs, SizeIs(2));
}

// pmlogger records instance changes as new indom records (v3: deltas)
// written before the first result that uses them.
class RecorderIndomTest : public RecorderTest, public ::testing::WithParamInterface<int> {};

TEST_P(RecorderIndomTest, InstancesAddedAndRemovedGetAnInDomBeforeTheirResult) {
  const int version = GetParam();
  std::vector<std::pair<int32_t, std::string>> insts;
  for (int i = 1; i <= 8; ++i) insts.push_back({i, absl::StrCat("q", i)});
  MmvApp app(Path("app"), IndomSpec(insts));
  app.Create();
  RecorderOptions o = Options();
  o.archive.version = version;
  Recorder rec(o, log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  ASSERT_OK(rec.Sample(T(1)));
  // The application restarts with instance 3 gone and instance 42 new.
  std::vector<std::pair<int32_t, std::string>> later = insts;
  later.erase(later.begin() + 2);
  later.push_back({42, "q42"});
  app.Restart(IndomSpec(later));
  app.SetU64(1, 4242, 42);
  ASSERT_OK(rec.Sample(T(2)));
  ASSERT_OK(rec.Sample(T(3)));
  ASSERT_OK(rec.Close());

  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.warnings, IsEmpty());
  ExpectTimeOrder(ar);
  const uint32_t indom = format::InDomBuild(70, (1u << 11) | 1);
  ASSERT_TRUE(ar.meta.indoms.contains(indom));
  const auto& history = ar.meta.indoms.at(indom);
  ASSERT_THAT(history, SizeIs(2));
  EXPECT_EQ(history[0].timestamp, Ts(0));
  EXPECT_THAT(history[0].instances, SizeIs(8));
  EXPECT_EQ(history[1].timestamp, Ts(2));
  EXPECT_THAT(history[1].instances, SizeIs(8));
  // Every value of every result has its instance in the indom in force.
  std::vector<const format::Result*> data = ar.data();
  ASSERT_THAT(data, SizeIs(4));
  for (const format::Result* r : data) {
    const format::InDom* in = ar.meta.InDomAt(indom, r->timestamp);
    ASSERT_NE(in, nullptr);
    for (const format::ValueSet& s : r->sets) {
      for (const format::ResultValue& v : s.values) {
        EXPECT_TRUE(std::any_of(in->instances.begin(), in->instances.end(),
                                [&](const format::InDomInstance& i) { return i.inst == v.inst; }))
            << "instance " << v.inst << " at " << r->timestamp.sec;
      }
    }
  }
  const format::ValueSet* last = ar.Set(*data[3], "mmv.app.per");
  ASSERT_NE(last, nullptr);
  std::vector<int32_t> seen;
  for (const auto& v : last->values) seen.push_back(v.inst);
  EXPECT_THAT(seen, ElementsAre(1, 2, 4, 5, 6, 7, 8, 42));
  EXPECT_EQ(last->values.back().u64, 4242u);
  // As written: v3 writes the change as a delta (one added, one deleted).
  std::vector<format::InDom> written;
  for (const format::MetaRecord& m : ReadMetaRecords(base_, version)) {
    const auto* d = std::get_if<format::InDom>(&m);
    if (d != nullptr && format::InDomDomain(d->indom) == 70) written.push_back(*d);
  }
  ASSERT_THAT(written, SizeIs(2));
  EXPECT_FALSE(written[0].delta);
  if (version == 3) {
    EXPECT_TRUE(written[1].delta);
    EXPECT_THAT(written[1].instances,
                ::testing::UnorderedElementsAre(format::InDomInstance{42, "q42", false},
                                                format::InDomInstance{3, "", true}));
  } else {
    EXPECT_FALSE(written[1].delta);
    EXPECT_THAT(written[1].instances, SizeIs(8));
  }
  EXPECT_PMLOGCHECK_OK(base_);
}

INSTANTIATE_TEST_SUITE_P(Versions, RecorderIndomTest, ::testing::Values(2, 3));

TEST_F(RecorderTest, ApplicationRestartIsMarkedAndItsMetadataReread) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  app.SetU64(1, 180);
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  ASSERT_OK(rec.Sample(T(1)));
  // Restarted: the counter starts again, and there is a new metric.
  format::MmvSpec spec = SimpleSpec();
  spec.metrics.push_back(SpecMetric("errors", 3));
  app.Restart(spec);
  app.SetU64(1, 5);
  app.SetU64(3, 1);
  ASSERT_OK(rec.Sample(T(2)));
  ASSERT_OK(rec.Sample(T(3)));
  EXPECT_EQ(rec.stats().marks, 1u);
  ASSERT_OK(rec.Close());

  ArchiveContents ar = ReadArchive(base_);
  ASSERT_THAT(ar.results, SizeIs(5));
  EXPECT_THAT(MarkPositions(ar), ElementsAre(2));
  // The mark sits between the last old and the first new value.
  EXPECT_GT(ar.results[2].timestamp, Ts(1));
  EXPECT_LE(ar.results[2].timestamp, Ts(2));
  EXPECT_EQ(U64(ar, ar.results[1], "mmv.app.count"), 180u);
  EXPECT_EQ(U64(ar, ar.results[3], "mmv.app.count"), 5u);
  EXPECT_EQ(U64(ar, ar.results[3], "mmv.app.errors"), 1u);
  EXPECT_EQ(ar.Set(ar.results[1], "mmv.app.errors"), nullptr);
  // Same file, same cluster: the PMIDs did not move.
  EXPECT_EQ(ar.Pmid("mmv.app.count"), format::PmidBuild(70, 1, 1));
  EXPECT_EQ(ar.Pmid("mmv.app.errors"), format::PmidBuild(70, 1, 3));
  EXPECT_PMLOGCHECK_OK(base_);
}

TEST_F(RecorderTest, UnchangedFileWritesNoMetadataAndNoMark) {
  MmvApp app(Path("app"), IndomSpec({{1, "a"}, {2, "b"}}));
  app.Create();
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  absl::StatusOr<struct stat> meta1 = StatPath(base_ + ".meta");
  ASSERT_OK(meta1);
  for (int i = 1; i < 10; ++i) {
    app.SetU64(1, i, 1);
    ASSERT_OK(rec.Sample(T(i)));
  }
  absl::StatusOr<struct stat> meta2 = StatPath(base_ + ".meta");
  ASSERT_OK(meta2);
  EXPECT_EQ(meta1->st_size, meta2->st_size);
  EXPECT_EQ(rec.stats().marks, 0u);
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  EXPECT_EQ(ar.marks(), 0u);
  EXPECT_THAT(ar.results, SizeIs(10));
}

TEST_F(RecorderTest, FileRemovedAndRecreatedIsMarked) {
  MmvApp keep(Path("keep"), SimpleSpec());
  keep.Create();
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  app.SetU64(1, 100);
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  const uint32_t pmid_before = format::PmidBuild(70, 1, 1);  // "app" sorts first
  app.Remove();
  ASSERT_OK(rec.Sample(T(1)));
  ASSERT_OK(rec.Sample(T(2)));
  EXPECT_EQ(log_.Count(LogLevel::kInfo, {"app", "gone"}), 1u) << log_.All();
  app.Restart(SimpleSpec());
  app.SetU64(1, 3);
  ASSERT_OK(rec.Sample(T(3)));
  ASSERT_OK(rec.Close());

  ArchiveContents ar = ReadArchive(base_);
  ExpectTimeOrder(ar);
  EXPECT_EQ(ar.Pmid("mmv.app.count"), pmid_before);
  // r0 (app), mark, r1, r2 (keep only), r3 (app again).
  ASSERT_THAT(ar.results, SizeIs(5));
  EXPECT_THAT(MarkPositions(ar), ElementsAre(1));
  EXPECT_EQ(U64(ar, ar.results[0], "mmv.app.count"), 100u);
  EXPECT_EQ(ar.Set(ar.results[2], "mmv.app.count"), nullptr);
  EXPECT_NE(ar.Set(ar.results[2], "mmv.keep.count"), nullptr);
  EXPECT_EQ(U64(ar, ar.results[4], "mmv.app.count"), 3u);
  EXPECT_PMLOGCHECK_OK(base_);
}

TEST_F(RecorderTest, FileReplacedBetweenTwoSamplesIsMarked) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  app.SetU64(1, 100);
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  app.Restart(SimpleSpec());  // new inode, new generation, same layout
  app.SetU64(1, 1);
  ASSERT_OK(rec.Sample(T(1)));
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  ASSERT_THAT(ar.results, SizeIs(3));
  EXPECT_THAT(MarkPositions(ar), ElementsAre(1));
}

// An application writing its own MMV files may keep the generation when it
// recreates the file; the new inode still means its counters restarted.
TEST_F(RecorderTest, FileRecreatedWithTheSameGenerationIsMarked) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  app.SetU64(1, 100);
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  app.Create();  // same spec, same generation, a new file
  app.SetU64(1, 1);
  ASSERT_OK(rec.Sample(T(1)));
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  ASSERT_THAT(ar.results, SizeIs(3));
  EXPECT_THAT(MarkPositions(ar), ElementsAre(1));
  EXPECT_EQ(U64(ar, ar.results[2], "mmv.app.count"), 1u);
}

// A child process that sleeps until killed; reaped by Kill().
class Sleeper {
 public:
  Sleeper() {
    pid_ = ::fork();
    if (pid_ == 0) {
      for (;;) ::pause();
    }
  }
  ~Sleeper() { Kill(); }
  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status;
    ::waitpid(pid_, &status, 0);  // a zombie would still answer kill(pid, 0)
    pid_ = -1;
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

TEST_F(RecorderTest, ProcessFlagFileStopsWhenItsProcessExits) {
  Sleeper child;
  ASSERT_GT(child.pid(), 0);
  MmvApp keep(Path("keep"), SimpleSpec());
  keep.Create();
  format::MmvSpec spec = SimpleSpec();
  spec.flags = format::kMmvFlagProcess;
  spec.process = child.pid();
  MmvApp app(Path("app"), spec);
  app.Create();
  app.SetU64(1, 7);
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  ASSERT_OK(rec.Sample(T(1)));
  child.Kill();
  ASSERT_OK(rec.Sample(T(2)));
  ASSERT_OK(rec.Sample(T(3)));
  ASSERT_OK(rec.Sample(T(4)));
  EXPECT_EQ(rec.stats().marks, 1u);
  EXPECT_EQ(log_.Count(LogLevel::kWarning, {"app", "has exited"}), 1u) << log_.All();
  ASSERT_OK(rec.Close());

  ArchiveContents ar = ReadArchive(base_);
  ExpectTimeOrder(ar);
  ASSERT_THAT(ar.results, SizeIs(6));
  EXPECT_THAT(MarkPositions(ar), ElementsAre(2));
  EXPECT_EQ(U64(ar, ar.results[1], "mmv.app.count"), 7u);
  for (size_t i = 3; i < 6; ++i) {
    EXPECT_EQ(ar.Set(ar.results[i], "mmv.app.count"), nullptr) << i;
    EXPECT_NE(ar.Set(ar.results[i], "mmv.keep.count"), nullptr) << i;
  }
  EXPECT_PMLOGCHECK_OK(base_);
}

TEST_F(RecorderTest, ProcessFlagFileOfADeadProcessIsNeverRecorded) {
  pid_t dead;
  {
    Sleeper child;
    dead = child.pid();
  }
  MmvApp keep(Path("keep"), SimpleSpec());
  keep.Create();
  format::MmvSpec spec = SimpleSpec();
  spec.flags = format::kMmvFlagProcess;
  spec.process = dead;
  MmvApp app(Path("app"), spec);
  app.Create();
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  ASSERT_OK(rec.Sample(T(1)));
  EXPECT_EQ(rec.metrics(), 2u);
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  EXPECT_EQ(ar.Pmid("mmv.app.count"), 0u);
  EXPECT_EQ(ar.marks(), 0u);
}

TEST_F(RecorderTest, CorruptFileIsReportedOnceAndTheOthersKeepRecording) {
  MmvApp good(Path("good"), SimpleSpec());
  good.Create();
  // Not an MMV file at all, and a valid one cut short.
  const std::string junk = "this is not an MMV file, just some text in the directory";
  ASSERT_OK(WriteFileAtomically(Path("junk"),
                                std::span<const uint8_t>(
                                    reinterpret_cast<const uint8_t*>(junk.data()), junk.size())));
  absl::StatusOr<format::MmvImage> image = format::BuildMmv(SimpleSpec());
  ASSERT_OK(image);
  image->bytes.resize(image->bytes.size() / 2);
  ASSERT_OK(WriteFileAtomically(Path("short"), image->bytes));
  Recorder rec(Options(), log_.fn());
  for (int i = 0; i < 5; ++i) {
    good.SetU64(1, i);
    ASSERT_OK(rec.Sample(T(i)));
  }
  EXPECT_EQ(log_.Count(LogLevel::kWarning, {"junk"}), 1u) << log_.All();
  EXPECT_EQ(log_.Count(LogLevel::kWarning, {"short"}), 1u) << log_.All();
  EXPECT_EQ(rec.stats().marks, 0u);  // never recorded: nothing to mark
  // The broken file is fixed: it is picked up.
  ASSERT_OK(WriteFileAtomically(Path("short"), format::BuildMmv(SimpleSpec())->bytes));
  ASSERT_OK(rec.Sample(T(5)));
  EXPECT_EQ(rec.metrics(), 4u);
  ASSERT_OK(rec.Close());

  ArchiveContents ar = ReadArchive(base_);
  ASSERT_THAT(ar.results, SizeIs(6));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(U64(ar, ar.results[i], "mmv.good.count"), i);
  EXPECT_NE(ar.Set(ar.results[5], "mmv.short.count"), nullptr);
  EXPECT_PMLOGCHECK_OK(base_);
}

TEST_F(RecorderTest, RecordedFileThatBecomesCorruptIsMarkedAndComesBackMarked) {
  MmvApp keep(Path("keep"), SimpleSpec());
  keep.Create();
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  const std::string junk = "garbage";
  ASSERT_OK(WriteFileAtomically(Path("app"),
                                std::span<const uint8_t>(
                                    reinterpret_cast<const uint8_t*>(junk.data()), junk.size())));
  ASSERT_OK(rec.Sample(T(1)));
  ASSERT_OK(rec.Sample(T(2)));
  app.Restart(SimpleSpec());
  ASSERT_OK(rec.Sample(T(3)));
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  // r0, mark (failed), r1, r2, mark (came back), r3.
  ASSERT_THAT(ar.results, SizeIs(6));
  EXPECT_THAT(MarkPositions(ar), ElementsAre(1, 4));
  EXPECT_NE(ar.Set(ar.results[5], "mmv.app.count"), nullptr);
  EXPECT_EQ(ar.Pmid("mmv.app.count"), format::PmidBuild(70, 1, 1));
}

// A value damaged in place under the same generation (a string's offset
// pointing outside the STRINGS section): pmdammv's fetch gives that metric
// PCP's generic error, and so does the archive; the log says so once, and
// once more when it can be read again. The other metrics keep their values.
TEST_F(RecorderTest, ValueDamagedInPlaceIsAnErrorSetAndLoggedOnce) {
  format::MmvSpec spec = SimpleSpec();
  spec.metrics.push_back(SpecMetric("version", 3, format::MmvType::kString));
  MmvApp app(Path("app"), spec);
  app.Create();
  format::SetMmvString(app.image().bytes, app.image().slot(3), "v1");
  app.Flush();
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  const uint64_t extra = app.image().slot(3).value_offset + format::kMmvValueExtraOffset;
  int64_t good;
  std::memcpy(&good, app.image().bytes.data() + extra, sizeof(good));
  const int64_t outside = static_cast<int64_t>(app.image().bytes.size()) + 4096;
  std::memcpy(app.image().bytes.data() + extra, &outside, sizeof(outside));
  for (int i = 1; i <= 3; ++i) {
    app.SetU64(1, 10 * i);
    ASSERT_OK(rec.Sample(T(i)));
  }
  std::memcpy(app.image().bytes.data() + extra, &good, sizeof(good));
  app.SetU64(1, 40);
  ASSERT_OK(rec.Sample(T(4)));
  ASSERT_OK(rec.Close());
  EXPECT_EQ(log_.Count(LogLevel::kWarning, {"app", "mmv.app.version", "can no longer be read"}),
            1u)
      << log_.All();
  EXPECT_EQ(log_.Count(LogLevel::kInfo, {"mmv.app.version", "can be read again"}), 1u)
      << log_.All();
  ArchiveContents ar = ReadArchive(base_);
  ASSERT_THAT(ar.results, SizeIs(5));
  for (int i = 1; i <= 3; ++i) {
    const format::ValueSet* v = ar.Set(ar.results[i], "mmv.app.version");
    ASSERT_NE(v, nullptr) << i;
    EXPECT_LT(v->error, 0) << i;
    EXPECT_EQ(U64(ar, ar.results[i], "mmv.app.count"), 10u * i);
  }
  const format::ValueSet* back = ar.Set(ar.results[4], "mmv.app.version");
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->error, 0);
  EXPECT_EQ(rec.stats().marks, 0u);
  EXPECT_PMLOGCHECK_OK(base_);
}

TEST_F(RecorderTest, DescriptorChangeUnderTheSameNameStartsASecondArchive) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  MmvApp other(Path("other"), SimpleSpec());
  other.Create();
  app.SetU64(1, 1);
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  ASSERT_OK(rec.Sample(T(1)));
  // The restarted application made "count" a double.
  format::MmvSpec spec = SimpleSpec();
  spec.metrics[0].type = format::MmvType::kDouble;
  app.Restart(spec);
  app.SetDouble(1, 2.5);
  ASSERT_OK(rec.Sample(T(2)));
  ASSERT_OK(rec.Sample(T(3)));
  EXPECT_EQ(rec.stats().archives, 2u);
  ASSERT_OK(rec.Close());
  const std::string second = base_ + "-2";
  EXPECT_THAT(rec.archives(), ElementsAre(base_, second));
  EXPECT_EQ(log_.Count(LogLevel::kWarning, {"new archive"}), 1u) << log_.All();

  ArchiveContents first = ReadArchive(base_);
  ArchiveContents next = ReadArchive(second);
  EXPECT_THAT(first.warnings, IsEmpty());
  EXPECT_THAT(next.warnings, IsEmpty());
  ASSERT_THAT(first.data(), SizeIs(2));
  EXPECT_EQ(first.meta.Desc(first.Pmid("mmv.app.count"))->type, format::kTypeU64);
  ASSERT_THAT(next.data(), SizeIs(2));
  EXPECT_EQ(next.label.start, Start(2));
  const format::Desc* d = next.meta.Desc(next.Pmid("mmv.app.count"));
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->type, format::kTypeDouble);
  const format::ValueSet* s = next.Set(*next.data()[0], "mmv.app.count");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->values[0].f64, 2.5);
  // The other file continues in the new archive, with its metadata.
  EXPECT_NE(next.Set(*next.data()[0], "mmv.other.count"), nullptr);
  bool context = false;
  for (const auto& l : next.meta.labels) context |= l.type == format::kLabelContext;
  EXPECT_TRUE(context);
  EXPECT_PMLOGCHECK_OK(base_);
  EXPECT_PMLOGCHECK_OK(second);
}

TEST_F(RecorderTest, MetricMovedToAnotherItemStartsASecondArchive) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  app.SetU64(1, 1);
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  // Restarted with "count" at item 7: its name would need another PMID.
  format::MmvSpec spec = SimpleSpec();
  spec.metrics[0].item = 7;
  app.Restart(spec);
  app.SetU64(7, 2);
  ASSERT_OK(rec.Sample(T(1)));
  ASSERT_OK(rec.Sample(T(2)));
  ASSERT_OK(rec.Close());
  ASSERT_THAT(rec.archives(), ElementsAre(base_, base_ + "-2"));
  ArchiveContents first = ReadArchive(base_);
  ArchiveContents next = ReadArchive(base_ + "-2");
  EXPECT_EQ(first.Pmid("mmv.app.count"), format::PmidBuild(70, 1, 1));
  EXPECT_EQ(next.Pmid("mmv.app.count"), format::PmidBuild(70, 1, 7));
  ASSERT_THAT(next.data(), SizeIs(2));
  EXPECT_EQ(U64(next, *next.data()[0], "mmv.app.count"), 2u);
  EXPECT_PMLOGCHECK_OK(base_);
  EXPECT_PMLOGCHECK_OK(base_ + "-2");
}

TEST_F(RecorderTest, WallClockSteppingBackwardsIsMarkedAndOrderKept) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(100)));
  ASSERT_OK(rec.Sample(T(101)));
  ASSERT_OK(rec.Sample(T(50)));  // stepped back 51 seconds
  ASSERT_OK(rec.Sample(T(102)));
  EXPECT_EQ(rec.stats().samples, 4u);
  EXPECT_EQ(rec.stats().marks, 1u);
  EXPECT_EQ(log_.Count(LogLevel::kWarning, {"backwards"}), 1u) << log_.All();
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  ExpectTimeOrder(ar);
  ASSERT_THAT(ar.results, SizeIs(5));
  EXPECT_THAT(MarkPositions(ar), ElementsAre(2));
  EXPECT_GE(ar.results[3].timestamp, Ts(101));
  EXPECT_EQ(ar.results[4].timestamp, Ts(102));
  EXPECT_PMLOGCHECK_OK(base_);
}

TEST_F(RecorderTest, ClockBehindForSeveralSamplesGivesOneMarkAndDistinctTimes) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(100)));
  ASSERT_OK(rec.Sample(T(50)));  // stepped back...
  ASSERT_OK(rec.Sample(T(51)));  // ...and still behind
  ASSERT_OK(rec.Sample(T(52)));
  ASSERT_OK(rec.Sample(T(101)));  // caught up
  EXPECT_EQ(rec.stats().marks, 1u);
  EXPECT_EQ(log_.Count(LogLevel::kWarning, {"backwards"}), 1u) << log_.All();
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  ASSERT_THAT(ar.results, SizeIs(6));
  EXPECT_THAT(MarkPositions(ar), ElementsAre(1));
  for (size_t i = 1; i < ar.results.size(); ++i) {
    EXPECT_LT(ar.results[i - 1].timestamp, ar.results[i].timestamp) << "record " << i;
  }
}

TEST_F(RecorderTest, VolumeSamplesSwitchesVolumes) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  RecorderOptions o = Options();
  o.volume_samples = 3;
  Recorder rec(o, log_.fn());
  for (int i = 0; i < 10; ++i) {
    app.SetU64(1, i);
    ASSERT_OK(rec.Sample(T(i)));
  }
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.volumes, ElementsAre(base_ + ".0", base_ + ".1", base_ + ".2", base_ + ".3"));
  ASSERT_THAT(ar.results, SizeIs(10));
  for (int i = 0; i < 10; ++i) EXPECT_EQ(U64(ar, ar.results[i], "mmv.app.count"), i);
  // Each volume's first result has its index entry: samples 0, 3, 6, 9.
  std::vector<std::pair<int, int64_t>> entries;
  for (const auto& e : ar.index) entries.push_back({e.volume, e.timestamp.sec - absl::ToUnixSeconds(kT0)});
  // (The first is the prologue's, 1 us before sample 0.)
  EXPECT_THAT(entries, ::testing::IsSupersetOf({std::pair<int, int64_t>{0, -1}, {1, 3}, {2, 6}, {3, 9}}));
  EXPECT_PMLOGCHECK_OK(base_);
}

TEST_F(RecorderTest, NewVolumeOnRequest) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  ASSERT_OK(rec.NewVolume());
  ASSERT_OK(rec.Sample(T(1)));
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.volumes, SizeIs(2));
  EXPECT_THAT(ar.results, SizeIs(2));
}

TEST_F(RecorderTest, ExistingArchiveIsNotOverwrittenWithoutResume) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  {
    Recorder rec(Options(), log_.fn());
    ASSERT_OK(rec.Sample(T(0)));
    ASSERT_OK(rec.Close());
  }
  Recorder again(Options(), log_.fn());
  EXPECT_THAT(again.Sample(T(10)), StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr(base_)));
  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.results, SizeIs(1));
}

TEST_F(RecorderTest, ResumeWithoutAnArchiveCreatesOne) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  RecorderOptions o = Options();
  o.resume = true;
  Recorder rec(o, log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.results, SizeIs(1));
  EXPECT_EQ(ar.marks(), 0u);
}

TEST_F(RecorderTest, NamedFilesWithoutADirectory) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  MmvApp other(Path("other"), SimpleSpec());  // in the directory, not named
  other.Create();
  RecorderOptions o = Options();
  o.mmv_dir = "";
  o.files = {Path("app"), Path("missing")};
  Recorder rec(o, log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  ASSERT_OK(rec.Sample(T(1)));
  EXPECT_EQ(rec.metrics(), 2u);
  EXPECT_EQ(log_.Count(LogLevel::kWarning, {"missing"}), 1u) << log_.All();
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  EXPECT_NE(ar.Pmid("mmv.app.count"), 0u);
  EXPECT_EQ(ar.Pmid("mmv.other.count"), 0u);
  EXPECT_THAT(ar.results, SizeIs(2));
}

TEST_F(RecorderTest, ResumeContinuesAnArchiveAfterACrash) {
  MmvApp a(Path("a"), SimpleSpec());
  a.Create();
  MmvApp b(Path("b"), SimpleSpec());
  b.Create();
  {
    Recorder rec(Options(), log_.fn());
    for (int i = 0; i < 3; ++i) {
      b.SetU64(1, 10 + i);
      ASSERT_OK(rec.Sample(T(i)));
    }
  }
  // The crash tore the last record.
  absl::StatusOr<struct stat> st = StatPath(base_ + ".0");
  ASSERT_OK(st);
  ASSERT_EQ(::truncate((base_ + ".0").c_str(), st->st_size - 5), 0);
  const uint32_t b_count = ReadArchive(base_).Pmid("mmv.b.count");
  ASSERT_EQ(b_count, format::PmidBuild(70, 2, 1));
  // Restarted with "a" gone and a newcomer "c".
  a.Remove();
  MmvApp c(Path("c"), SimpleSpec());
  c.Create();
  RecorderOptions o = Options();
  o.resume = true;
  Recorder rec(o, log_.fn());
  b.SetU64(1, 99);
  ASSERT_OK(rec.Sample(T(10)));
  ASSERT_OK(rec.Sample(T(11)));
  EXPECT_EQ(rec.stats().marks, 1u);
  ASSERT_OK(rec.Close());
  EXPECT_EQ(log_.Count(LogLevel::kInfo, {"continuing"}), 1u) << log_.All();

  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.warnings, IsEmpty());
  ExpectTimeOrder(ar);
  EXPECT_THAT(ar.volumes, ElementsAre(base_ + ".0", base_ + ".1"));
  EXPECT_EQ(ar.label.start, Start(0));
  // Two complete old results, the mark, two new ones.
  ASSERT_THAT(ar.results, SizeIs(5));
  EXPECT_THAT(MarkPositions(ar), ElementsAre(2));
  EXPECT_LT(ar.results[2].timestamp, Ts(10));
  EXPECT_EQ(U64(ar, ar.results[1], "mmv.b.count"), 11u);
  EXPECT_EQ(U64(ar, ar.results[3], "mmv.b.count"), 99u);
  // Same PMIDs; the newcomer does not take the departed file's cluster.
  EXPECT_EQ(ar.Pmid("mmv.b.count"), b_count);
  EXPECT_EQ(ar.Pmid("mmv.a.count"), format::PmidBuild(70, 1, 1));
  EXPECT_EQ(ar.Pmid("mmv.c.count"), format::PmidBuild(70, 3, 1));
  // Each descriptor is in .meta once.
  EXPECT_THAT(ar.meta.descs, SizeIs(6));
  EXPECT_PMLOGCHECK_OK(base_);
}

// A file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored) makes every write
// past it fail with EFBIG, as a full disk makes them fail with ENOSPC.
class FileSizeLimit {
 public:
  FileSizeLimit() {
    EXPECT_EQ(::getrlimit(RLIMIT_FSIZE, &old_), 0);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    EXPECT_EQ(::sigaction(SIGXFSZ, &ignore, &old_action_), 0);
  }
  ~FileSizeLimit() { Lift(); }
  void Set(rlim_t bytes) {
    struct rlimit l = old_;
    l.rlim_cur = bytes;
    EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &l), 0);
  }
  void Lift() {
    if (lifted_) return;
    ::setrlimit(RLIMIT_FSIZE, &old_);
    ::sigaction(SIGXFSZ, &old_action_, nullptr);
    lifted_ = true;
  }

 private:
  struct rlimit old_ {};
  struct sigaction old_action_ {};
  bool lifted_ = false;
};

TEST_F(RecorderTest, DiskFullDropsSamplesThenResumesWithAMark) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  Recorder rec(Options(), log_.fn());
  for (int i = 0; i < 3; ++i) {
    app.SetU64(1, i);
    ASSERT_OK(rec.Sample(T(i)));
  }
  const uint64_t good_samples = rec.stats().samples;
  std::vector<absl::Status> during;
  {
    FileSizeLimit limit;
    // First the result write stops part-way, then nothing can be written.
    absl::StatusOr<struct stat> st = StatPath(base_ + ".0");
    ASSERT_OK(st);
    limit.Set(st->st_size + 10);
    app.SetU64(1, 1000);
    during.push_back(rec.Sample(T(3)));
    limit.Set(0);
    for (int i = 4; i < 7; ++i) during.push_back(rec.Sample(T(i)));
    limit.Lift();
  }
  for (const absl::Status& s : during) EXPECT_OK(s);
  EXPECT_EQ(rec.stats().dropped, 4u);
  EXPECT_EQ(rec.stats().samples, good_samples);
  EXPECT_GE(log_.Count(LogLevel::kError, {"dropped"}), 1u) << log_.All();
  app.SetU64(1, 7);
  ASSERT_OK(rec.Sample(T(7)));
  app.SetU64(1, 8);
  ASSERT_OK(rec.Sample(T(8)));
  EXPECT_EQ(rec.stats().dropped, 4u);
  EXPECT_EQ(rec.stats().marks, 1u);
  EXPECT_EQ(log_.Count(LogLevel::kInfo, {"writable again"}), 1u) << log_.All();
  ASSERT_OK(rec.Close());

  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.warnings, IsEmpty());
  ExpectTimeOrder(ar);
  ASSERT_THAT(ar.results, SizeIs(6));
  EXPECT_THAT(MarkPositions(ar), ElementsAre(3));
  EXPECT_EQ(U64(ar, ar.results[2], "mmv.app.count"), 2u);
  EXPECT_EQ(U64(ar, ar.results[4], "mmv.app.count"), 7u);
  EXPECT_EQ(ar.results[4].timestamp, Ts(7));
  EXPECT_GE(ar.volumes.size(), 2u);  // continued in a new volume
  EXPECT_PMLOGCHECK_OK(base_);
}

// With no MMV file at all there is nothing to record; a result with no
// metrics would read as a <mark> record to every PCP tool.
TEST_F(RecorderTest, EmptyDirectoryWritesNoMarkLikeRecords) {
  Recorder rec(Options(), log_.fn());
  for (int i = 0; i < 3; ++i) ASSERT_OK(rec.Sample(T(i)));
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  ASSERT_OK(rec.Sample(T(3)));
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  EXPECT_EQ(ar.marks(), 0u);
  ASSERT_THAT(ar.results, SizeIs(1));
  EXPECT_EQ(ar.results[0].timestamp, Ts(3));
  EXPECT_PMLOGCHECK_OK(base_);
}

TEST_F(RecorderTest, EveryFileGoneWritesOneMarkNotTwo) {
  MmvApp app(Path("app"), SimpleSpec());
  app.Create();
  Recorder rec(Options(), log_.fn());
  ASSERT_OK(rec.Sample(T(0)));
  app.Remove();
  ASSERT_OK(rec.Sample(T(1)));
  ASSERT_OK(rec.Sample(T(2)));
  ASSERT_OK(rec.Close());
  ArchiveContents ar = ReadArchive(base_);
  EXPECT_EQ(ar.marks(), 1u);
  EXPECT_THAT(ar.results, SizeIs(2));
}

}  // namespace
}  // namespace mmvlog::archiver

namespace mmvlog::archiver {
namespace {

// Every numeric type, singular and over an indom: the recorder keeps the
// encoded record of such files and stores only new values (its fast path).
// A file with a STRING metric coming and going forces whole encodings in
// between. Every value of every sample must read back as written, with the
// same timestamps and counts as the slow path gives.
TEST_F(RecorderTest, FastPathRecordsEveryValueOfEverySample) {
  using format::MmvType;
  const MmvType kTypes[] = {MmvType::kI32, MmvType::kU32, MmvType::kI64,
                            MmvType::kU64, MmvType::kFloat, MmvType::kDouble};
  format::MmvSpec spec;
  spec.indoms = {SpecIndom(1, {{0, "a"}, {5, "b"}, {9, "c"}})};
  for (uint32_t i = 0; i < 6; ++i) {
    spec.metrics.push_back(SpecMetric(absl::StrCat("one", i), i + 1, kTypes[i]));
    spec.metrics.push_back(SpecMetric(absl::StrCat("per", i), i + 11, kTypes[i], 1));
  }
  // Instant values: they go up and down (pmlogcheck checks counters).
  for (format::MmvSpecMetric& m : spec.metrics) m.semantics = format::kMmvSemInstant;
  MmvApp app(Path("nums"), spec);
  app.Create();
  format::MmvSpec text_spec;
  text_spec.metrics = {SpecMetric("text", 1, MmvType::kString)};
  MmvApp text(Path("texts"), text_spec);

  // value of metric `m` (0..11) at instance index `k` in sample `n`: distinct
  // per sample, with sign and high bits exercised.
  auto value = [](int n, uint32_t m, int k) -> int64_t {
    return (static_cast<int64_t>(n) * 1'000'003 + m * 1009 + k * 17) * (m % 2 ? -1 : 1) *
           (m >= 4 ? 1'000'000'007LL : 1);
  };
  const std::vector<std::pair<int32_t, int>> kSingular = {{format::kMmvInNull, 0}};
  const std::vector<std::pair<int32_t, int>> kInstances = {{0, 0}, {5, 1}, {9, 2}};
  auto set_all = [&](int n) {
    for (uint32_t i = 0; i < 6; ++i) {
      for (bool per : {false, true}) {
        const uint32_t item = per ? i + 11 : i + 1;
        for (auto [inst, k] : per ? kInstances : kSingular) {
          const int64_t v = value(n, item, k);
          const format::MmvValueSlot& s = app.image().slot(item, inst);
          switch (kTypes[i]) {
            case MmvType::kI32: format::SetMmvI32(app.image().bytes, s, static_cast<int32_t>(v)); break;
            case MmvType::kU32: format::SetMmvU32(app.image().bytes, s, static_cast<uint32_t>(v)); break;
            case MmvType::kI64: format::SetMmvI64(app.image().bytes, s, v); break;
            case MmvType::kU64: format::SetMmvU64(app.image().bytes, s, static_cast<uint64_t>(v)); break;
            case MmvType::kFloat: format::SetMmvFloat(app.image().bytes, s, static_cast<float>(v) / 8); break;
            case MmvType::kDouble: format::SetMmvDouble(app.image().bytes, s, static_cast<double>(v) / 8); break;
            default: break;
          }
        }
      }
    }
    app.Flush();
  };

  constexpr int kSamples = 12;
  Recorder rec(Options(), log_.fn());
  for (int n = 0; n < kSamples; ++n) {
    if (n == 4) text.Create();  // samples 4..6 have a string: whole encodings
    if (n == 7) text.Remove();
    set_all(n);
    ASSERT_OK(rec.Sample(T(n)));
  }
  ASSERT_OK(rec.Close());
  EXPECT_EQ(rec.stats().samples, static_cast<uint64_t>(kSamples));
  EXPECT_EQ(rec.stats().values, kSamples * 24u + 3u);

  ArchiveContents ar = ReadArchive(base_);
  std::vector<const format::Result*> data = ar.data();
  ASSERT_THAT(data, SizeIs(kSamples));
  EXPECT_EQ(ar.marks(), 1u);  // the string file going away
  for (int n = 0; n < kSamples; ++n) {
    const format::Result& r = *data[n];
    EXPECT_EQ(r.timestamp, Ts(n));
    EXPECT_EQ(r.sets.size(), (n >= 4 && n < 7) ? 13u : 12u) << "sample " << n;
    for (uint32_t i = 0; i < 6; ++i) {
      for (bool per : {false, true}) {
        const uint32_t item = per ? i + 11 : i + 1;
        const std::string name = absl::StrCat("mmv.nums.", per ? "per" : "one", i);
        const format::ValueSet* s = ar.Set(r, name);
        ASSERT_NE(s, nullptr) << name << " sample " << n;
        const auto& insts = per ? kInstances : kSingular;
        ASSERT_EQ(s->values.size(), insts.size()) << name;
        for (auto [inst, k] : insts) {
          const format::ResultValue& got = s->values[k];
          EXPECT_EQ(got.inst, inst) << name;
          const int64_t v = value(n, item, k);
          switch (kTypes[i]) {
            case MmvType::kI32: EXPECT_EQ(got.i64, static_cast<int32_t>(v)) << name << " " << n; break;
            case MmvType::kU32: EXPECT_EQ(got.u64, static_cast<uint32_t>(v)) << name << " " << n; break;
            case MmvType::kI64: EXPECT_EQ(got.i64, v) << name << " " << n; break;
            case MmvType::kU64: EXPECT_EQ(got.u64, static_cast<uint64_t>(v)) << name << " " << n; break;
            case MmvType::kFloat: EXPECT_EQ(got.f64, static_cast<float>(v) / 8) << name << " " << n; break;
            case MmvType::kDouble: EXPECT_EQ(got.f64, static_cast<double>(v) / 8) << name << " " << n; break;
            default: break;
          }
        }
      }
    }
  }
  EXPECT_PMLOGCHECK_OK(base_);
}

}  // namespace
}  // namespace mmvlog::archiver

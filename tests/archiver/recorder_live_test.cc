// The recorder's fast path on files as applications write them with
// libpcp_mmv: counters over two instance domains, strings that change,
// elapsed times, values rewritten between and during samples. Their values
// are read where they are (mapped) and stored into the result template
// (stats().in_place), every value recorded as written, a string that
// outgrows its place encoded whole, torn reads retaken from copies.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <tuple>
#include <thread>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "archiver/record/recorder.h"
#include "archiver/file/posix_file.h"
#include "format/archive/archive_format.h"
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
using ::mmvlog::testing::SpecIndom;
using ::mmvlog::testing::SpecMetric;
using ::mmvlog::testing::TestRecorderOptions;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using format::MmvType;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);
absl::Time T(double sec) { return kT0 + absl::Seconds(sec); }

class RecorderLiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = NewTempDir("mmv");
    base_ = NewTempDir("out") + "/arch";
  }
  std::string dir_, base_;
  LogSink log_;
};

// As libpcp_mmv's users write them: "ep" counters over indom 1 (3
// instances), "pool" counters over indom 2 (2 instances), the strings
// "version" and "state", an ELAPSED "busy" interval. Every sample the
// counters and the state change, the interval starts and stops; the state
// keeps its length but for samples 10..11, whose longer state no longer
// fits the template. Every value is recorded as written; from the second
// sample on, the samples whose strings fit are stored in place.
TEST_F(RecorderLiveTest, CountersStringsAndElapsedAreRecordedInPlaceAsWritten) {
  format::MmvSpec spec;
  spec.indoms = {SpecIndom(1, {{0, "ep0"}, {1, "ep1"}, {2, "ep2"}}),
                 SpecIndom(2, {{0, "pool0"}, {1, "pool1"}})};
  spec.metrics = {SpecMetric("ep.requests", 1, MmvType::kU64, 1),
                  SpecMetric("pool.tasks", 2, MmvType::kU64, 2),
                  SpecMetric("version", 3, MmvType::kString),
                  SpecMetric("state", 4, MmvType::kString),
                  SpecMetric("busy", 5, MmvType::kElapsed)};
  MmvApp app(dir_ + "/app", spec);
  app.Create();
  auto state = [](int n) {
    return n == 10 || n == 11 ? absl::StrCat("degraded, update ", n, " of many")
                              : absl::StrCat("serving, update ", n % 10);
  };
  auto counter = [](int n, uint32_t item, int inst) {
    return uint64_t{1000} * item + 10 * static_cast<uint64_t>(n) + static_cast<uint64_t>(inst);
  };
  // The interval runs in odd samples, from 100 us before the sample.
  auto busy_total = [](int n) { return int64_t{200} * n; };
  constexpr int kSamples = 24;
  Recorder rec(TestRecorderOptions(dir_, base_), log_.fn());
  for (int n = 0; n < kSamples; ++n) {
    format::MmvImage& im = app.image();
    for (int i = 0; i < 3; ++i) format::SetMmvU64(im.bytes, im.slot(1, i), counter(n, 1, i));
    for (int i = 0; i < 2; ++i) format::SetMmvU64(im.bytes, im.slot(2, i), counter(n, 2, i));
    format::SetMmvString(im.bytes, im.slot(3), "6.0.3-test");
    format::SetMmvString(im.bytes, im.slot(4), state(n));
    const int64_t now_usec = absl::ToUnixMicros(T(n));
    format::SetMmvElapsed(im.bytes, im.slot(5), busy_total(n), n % 2 ? -(now_usec - 100) : 0);
    app.Flush();
    ASSERT_OK(rec.Sample(T(n)));
  }
  ASSERT_OK(rec.Close());
  EXPECT_EQ(rec.stats().samples, static_cast<uint64_t>(kSamples));
  EXPECT_EQ(rec.stats().retaken, 0u);
  // Samples 1..9 and from a few samples after the long state on.
  EXPECT_GE(rec.stats().in_place, static_cast<uint64_t>(kSamples - 8)) << log_.All();

  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.warnings, IsEmpty());
  std::vector<const format::Result*> data = ar.data();
  ASSERT_THAT(data, SizeIs(kSamples));
  EXPECT_EQ(ar.marks(), 0u);
  for (int n = 0; n < kSamples; ++n) {
    const format::Result& r = *data[n];
    for (auto [name, item, insts] : {std::tuple<const char*, uint32_t, int>{"ep.requests", 1, 3},
                                     {"pool.tasks", 2, 2}}) {
      const format::ValueSet* s = ar.Set(r, absl::StrCat("mmv.app.", name));
      ASSERT_NE(s, nullptr) << name << " " << n;
      ASSERT_THAT(s->values, SizeIs(insts)) << name << " " << n;
      for (int i = 0; i < insts; ++i) {
        EXPECT_EQ(s->values[i].inst, i);
        EXPECT_EQ(s->values[i].u64, counter(n, item, i)) << name << " " << i << " sample " << n;
      }
    }
    const format::ValueSet* version = ar.Set(r, "mmv.app.version");
    ASSERT_NE(version, nullptr);
    ASSERT_THAT(version->values, SizeIs(1));
    EXPECT_EQ(version->values[0].bytes, "6.0.3-test");
    const format::ValueSet* st = ar.Set(r, "mmv.app.state");
    ASSERT_NE(st, nullptr);
    ASSERT_THAT(st->values, SizeIs(1));
    EXPECT_EQ(st->values[0].bytes, state(n)) << "sample " << n;
    const format::ValueSet* busy = ar.Set(r, "mmv.app.busy");
    ASSERT_NE(busy, nullptr);
    ASSERT_THAT(busy->values, SizeIs(1));
    EXPECT_EQ(busy->values[0].i64, busy_total(n) + (n % 2 ? 100 : 0)) << "sample " << n;
  }
  EXPECT_PMLOGCHECK_OK(base_);
}

// A file rewritten generation after generation while it is read in place
// (as ValuesReadInPlaceWhileTheFileIsRewrittenAreNeverTorn, with a string):
// every result holds the values and the string of one generation.
TEST_F(RecorderLiveTest, StringsReadInPlaceWhileTheFileIsRewrittenAreNeverTorn) {
  constexpr int kInstances = 300;
  std::vector<std::pair<int32_t, std::string>> insts;
  for (int i = 0; i < kInstances; ++i) insts.push_back({i, absl::StrCat("i", i)});
  auto image_of = [&](uint64_t generation) {
    format::MmvSpec spec;
    spec.generation = generation;
    spec.indoms = {SpecIndom(1, insts)};
    spec.metrics = {SpecMetric("per", 1, MmvType::kU64, 1), SpecMetric("gen", 2, MmvType::kString)};
    absl::StatusOr<format::MmvImage> image = format::BuildMmv(spec);
    EXPECT_OK(image);
    for (int i = 0; i < kInstances; ++i) {
      format::SetMmvU64(image->bytes, image->slot(1, i), generation * 1'000'000 + i);
    }
    format::SetMmvString(image->bytes, image->slot(2), absl::StrCat("generation ", generation));
    return image->bytes;
  };
  const std::string path = dir_ + "/app";
  ASSERT_OK(WriteFileAtomically(path, image_of(1)));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> rewrites{0};
  std::thread writer([&] {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    for (uint64_t g = 2; !stop.load(); ++g) {
      std::vector<uint8_t> next = image_of(g);
      // A seqlock writer (g2 cleared, the rest, g2 last), now and then
      // cutting the file short first.
      const uint8_t zero[8] = {};
      EXPECT_EQ(::pwrite(fd, zero, sizeof(zero), 16), 8);
      if (g % 3 == 0) EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(next.size() / 2)), 0);
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
  Recorder rec(TestRecorderOptions(dir_, base_), log_.fn());
  int ticks = 0;
  // Until some reads were in place while the writer runs (how many depends
  // on how the two threads interleave on this machine: one run in a full
  // suite had none in its first 300), within a bound.
  for (; ticks < 20000 && (ticks < 300 || rewrites.load() < 200 || rec.stats().in_place == 0);
       ++ticks) {
    ASSERT_OK(rec.Sample(T(ticks * 0.001)));
  }
  stop = true;
  writer.join();
  ASSERT_OK(rec.Close());
  std::cout << ticks << " ticks, " << rewrites.load() << " rewrites, " << rec.stats().samples
            << " samples, " << rec.stats().retaken << " retaken, " << rec.stats().in_place
            << " in place\n";
  EXPECT_GT(rec.stats().in_place, 0u);

  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.warnings, IsEmpty());
  size_t checked = 0;
  for (const format::Result* r : ar.data()) {
    const format::ValueSet* s = ar.Set(*r, "mmv.app.per");
    const format::ValueSet* gen = ar.Set(*r, "mmv.app.gen");
    ASSERT_NE(s, nullptr);
    ASSERT_NE(gen, nullptr);
    ASSERT_THAT(s->values, SizeIs(kInstances)) << "at " << r->timestamp.sec;
    ASSERT_THAT(gen->values, SizeIs(1));
    const uint64_t g = s->values[0].u64 / 1'000'000;
    EXPECT_EQ(gen->values[0].bytes, absl::StrCat("generation ", g));
    for (const format::ResultValue& v : s->values) {
      ASSERT_EQ(v.u64, g * 1'000'000 + static_cast<uint64_t>(v.inst))
          << "instance " << v.inst << " of a result of generation " << g;
    }
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

}  // namespace
}  // namespace mmvlog::archiver

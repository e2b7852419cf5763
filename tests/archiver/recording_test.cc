// Recording: the one way record and capture wire a Recorder. A directory
// that is the only source is watched, and the loop waits on the watch (an
// empty one until a file appears, unless the run counts samples); named
// files are not watched and the waits sleep; a bound on each wait holds.
#include "archiver/record/recording.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "archiver/schedule/record_loop.h"
#include "format/mmv/mmv_writer.h"
#include "tests/archiver/recorder_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::LogSink;
using ::mmvlog::testing::MmvApp;
using ::mmvlog::testing::NewTempDir;
using ::mmvlog::testing::SpecMetric;
using ::mmvlog::testing::TestRecorderOptions;

TEST(RecordingTest, ADirectoryAloneIsWatchedAndWaitedOn) {
  const std::string dir = NewTempDir("mmv");
  LogSink log;
  Recording r(TestRecorderOptions(dir, NewTempDir("out") + "/a"), log.fn());
  EXPECT_TRUE(r.watched());
  std::vector<absl::Time> slept;
  LoopHooks hooks;
  r.SetWaits(&hooks, LoopLimits{}, [&](absl::Time t) { slept.push_back(t); });
  ASSERT_TRUE(hooks.wait_until != nullptr);
  ASSERT_TRUE(hooks.wait_for_files != nullptr);  // an empty directory is slept on
  // The wait is the watch's (which a new file ends at once): the sleep
  // given is not used.
  MmvApp app(dir + "/app", format::MmvSpec{.metrics = {SpecMetric("count", 1)}});
  app.Create();
  hooks.wait_until(absl::Now() + absl::Seconds(30));
  EXPECT_TRUE(slept.empty());
  // A count of samples keeps its ticks: no wait for files.
  LoopLimits counted;
  counted.samples = 5;
  r.SetWaits(&hooks, counted, [&](absl::Time t) { slept.push_back(t); });
  EXPECT_TRUE(hooks.wait_for_files == nullptr);
  counted.samples = 0;
  counted.ticks = 1;
  r.SetWaits(&hooks, counted, [&](absl::Time t) { slept.push_back(t); });
  EXPECT_TRUE(hooks.wait_for_files == nullptr);
}

TEST(RecordingTest, NamedFilesAreNotWatchedAndTheWaitsSleepWithinTheBound) {
  const std::string dir = NewTempDir("mmv");
  MmvApp app(dir + "/app", format::MmvSpec{.metrics = {SpecMetric("count", 1)}});
  app.Create();
  RecorderOptions o = TestRecorderOptions(dir, NewTempDir("out") + "/a");
  o.files = {dir + "/app"};
  LogSink log;
  Recording r(o, log.fn());
  EXPECT_FALSE(r.watched());
  std::vector<absl::Time> slept;
  LoopHooks hooks;
  r.SetWaits(
      &hooks, LoopLimits{}, [&](absl::Time t) { slept.push_back(t); },
      [] { return absl::Milliseconds(20); });
  EXPECT_TRUE(hooks.wait_for_files == nullptr);
  const absl::Time before = absl::Now();
  hooks.wait_until(before + absl::Hours(1));
  ASSERT_EQ(slept.size(), 1u);
  // At most 20 ms after the wait began (taken before it, so no timing).
  EXPECT_LE(slept[0], absl::Now() + absl::Milliseconds(20));
  EXPECT_GE(slept[0], before + absl::Milliseconds(20));
  // The recorder records the named file.
  ASSERT_OK(r.recorder().Sample(absl::FromUnixSeconds(1'700'000'000)));
  EXPECT_EQ(r.recorder().stats().samples, 1u);
}

}  // namespace
}  // namespace mmvlog::archiver

// RunRecordLoop and NextTick: sampling on absolute deadlines (no drift),
// stalls that skip ticks instead of bunching samples, the events that stop
// the loop or switch volumes, and the sample/duration limits. Most tests run
// under a fake clock (now() is a variable that wait_until advances); one
// runs 1,000 samples at 5 msec on the real clock.
#include "archiver/schedule/record_loop.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "archiver/record/recorder.h"
#include "archiver/schedule/schedule.h"
#include "format/archive/archive_types.h"
#include "format/mmv/mmv_format.h"
#include "tests/archiver/recorder_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::ArchiveContents;
using ::mmvlog::testing::LogSink;
using ::mmvlog::testing::MmvApp;
using ::mmvlog::testing::NewTempDir;
using ::mmvlog::testing::ReadArchive;
using ::mmvlog::testing::SpecMetric;
using ::mmvlog::testing::TestRecorderOptions;
using ::testing::HasSubstr;
using ::testing::ElementsAre;
using ::testing::SizeIs;

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

// ---------------------------------------------------------------------------
// NextTick, as a table.

struct TickCase {
  const char* what;
  absl::Duration interval;
  int64_t last_index;
  absl::Duration now;  // since start
  int64_t index;       // expected
  int64_t skipped;
};

TEST(NextTick, Table) {
  const absl::Duration s = absl::Seconds(1);
  const absl::Duration ms = absl::Milliseconds(1);
  const TickCase cases[] = {
      {"right after a sample", s, 0, ms, 1, 0},
      {"half way", s, 0, 500 * ms, 1, 0},
      {"exactly at the deadline", s, 0, s, 1, 0},
      {"slightly late: still the current tick", s, 0, 1500 * ms, 1, 0},
      {"just under one interval late", s, 0, 2 * s - absl::Nanoseconds(1), 1, 0},
      {"one interval late: one tick skipped", s, 0, 2 * s, 2, 1},
      {"long stall", s, 0, 10 * s + 300 * ms, 10, 9},
      {"later in the run", s, 41, 41 * s + 200 * ms, 42, 0},
      {"later in the run, stalled", s, 41, 45 * s + 999 * ms, 45, 3},
      {"fast interval", 5 * ms, 999, 999 * 5 * ms + 2 * ms, 1000, 0},
      {"fast interval, stalled", 5 * ms, 999, 1003 * 5 * ms + 4 * ms, 1003, 3},
      {"clock before start", s, 0, -5 * s, 1, 0},
      {"fractional interval", absl::Microseconds(333), 2, absl::Microseconds(700), 3, 0},
      {"hours of samples", absl::Milliseconds(10), 360'000, absl::Seconds(3600) + 5 * ms,
       360'001, 0},
  };
  for (const TickCase& c : cases) {
    const Tick t = NextTick(kStart, c.interval, c.last_index, kStart + c.now);
    EXPECT_EQ(t.index, c.index) << c.what;
    EXPECT_EQ(t.skipped, c.skipped) << c.what;
    EXPECT_EQ(t.due, kStart + c.interval * c.index) << c.what;
    // The deadline is never more than one interval in the past.
    EXPECT_LT(kStart + c.now - t.due, c.interval) << c.what;
  }
}

TEST(NextTick, DeadlinesAreMultiplesOfTheIntervalFromStart) {
  // Summing intervals would drift by rounding; start + k * interval does not.
  const absl::Duration interval = absl::Nanoseconds(3'333'333);
  int64_t last = 0;
  absl::Time now = kStart;
  for (int i = 0; i < 100'000; ++i) {
    const Tick t = NextTick(kStart, interval, last, now);
    ASSERT_EQ(t.index, last + 1);
    now = t.due;
    last = t.index;
  }
  EXPECT_EQ(now, kStart + absl::Nanoseconds(int64_t{3'333'333} * 100'000));
}

// ---------------------------------------------------------------------------
// RunRecordLoop under a fake clock.

// now() returns `now`; wait_until moves it to the deadline (plus a late
// wake-up); each sample costs `sample_cost`; `poll` plays the signals.
struct FakeClock {
  absl::Time now = kStart;
  absl::Duration wake_late;
  absl::Duration sample_cost;
  int waits = 0;
  std::vector<absl::Time> sample_times;  // as passed to the recorder
  std::function<LoopEvent()> poll = [] { return LoopEvent::kNone; };
  std::function<void(int)> after_sample = [](int) {};  // argument: samples so far
  // Replaces wait_until's behaviour when set: returns early at this time.
  std::function<bool(absl::Time deadline)> interrupt;

  LoopHooks Hooks() {
    LoopHooks h;
    h.now = [this] { return now; };
    h.wait_until = [this](absl::Time deadline) {
      ++waits;
      if (interrupt && interrupt(deadline)) return;
      if (deadline > now) now = deadline + wake_late;
    };
    h.poll = [this] { return poll(); };
    h.on_sample = [this] {
      sample_times.push_back(now);
      now += sample_cost;
      after_sample(static_cast<int>(sample_times.size()));
    };
    return h;
  }
};

class RecordLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = NewTempDir("mmv");
    base_ = NewTempDir("out") + "/arch";
    format::MmvSpec spec;
    spec.metrics = {SpecMetric("n", 1)};
    app_ = std::make_unique<MmvApp>(dir_ + "/app", spec);
    app_->Create();
  }
  std::unique_ptr<Recorder> NewRecorder() {
    return std::make_unique<Recorder>(TestRecorderOptions(dir_, base_), log_.fn());
  }
  // Result timestamps in the archive, as offsets from kStart.
  std::vector<absl::Duration> Recorded() {
    std::vector<absl::Duration> out;
    ArchiveContents ar = ReadArchive(base_);
    for (const format::Result& r : ar.results) {
      EXPECT_FALSE(r.sets.empty()) << "unexpected mark";
      out.push_back(format::ToAbslTime(r.timestamp) - kStart);
    }
    return out;
  }

  std::string dir_, base_;
  std::unique_ptr<MmvApp> app_;
  LogSink log_;
};

TEST_F(RecordLoopTest, FirstSampleAtOnceThenOnTheGrid) {
  FakeClock clock;
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  limits.samples = 5;
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  EXPECT_EQ(stats.samples, 5);
  EXPECT_EQ(stats.skipped_ticks, 0);
  EXPECT_EQ(stats.max_lateness, absl::ZeroDuration());
  EXPECT_THAT(Recorded(), ElementsAre(absl::Seconds(0), absl::Seconds(1), absl::Seconds(2),
                                      absl::Seconds(3), absl::Seconds(4)));
  // After the last sample the loop returns without waiting for the next tick.
  EXPECT_EQ(clock.waits, 4);
  EXPECT_EQ(clock.now, kStart + absl::Seconds(4));
}

// The issue: "at a fast interval, after 1,000 samples the last timestamp is
// within one interval of start + 1,000 x interval". Every sample costs 30%
// of the interval and every wake-up is 10% late; a loop that sleeps one
// interval after each sample would end 400 intervals late.
TEST_F(RecordLoopTest, NoDriftOverAThousandSamplesWithSlowSamplesAndLateWakeups) {
  const absl::Duration interval = absl::Milliseconds(10);
  FakeClock clock;
  clock.sample_cost = interval * 0.3;
  clock.wake_late = interval * 0.1;
  LoopLimits limits;
  limits.interval = interval;
  limits.samples = 1000;
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  EXPECT_EQ(stats.samples, 1000);
  EXPECT_EQ(stats.skipped_ticks, 0);
  EXPECT_EQ(stats.max_lateness, interval * 0.1);
  EXPECT_EQ(stats.lateness.count(), 1000);
  EXPECT_EQ(stats.on_time, 1000);
  EXPECT_EQ(stats.lateness.Percentile(0.5), interval * 0.1);  // all but the first
  EXPECT_THAT(stats.Summary(), HasSubstr("1000 ticks, 100.00% on time (0 missed, 0 late)"));
  std::vector<absl::Duration> ts = Recorded();
  ASSERT_THAT(ts, SizeIs(1000));
  EXPECT_LT(absl::AbsDuration(ts.back() - 1000 * interval), interval) << ts.back();
  // Each sample is within its own slot [k, k+1) intervals from start.
  for (int k = 0; k < 1000; ++k) {
    EXPECT_GE(ts[k], k * interval) << k;
    EXPECT_LT(ts[k], (k + 1) * interval) << k;
  }
}

TEST_F(RecordLoopTest, StallSkipsTicksAndCountsThemWithoutBunchingSamples) {
  FakeClock clock;
  // The fifth sample (at 4 s) takes 3.5 s.
  clock.after_sample = [&](int n) {
    if (n == 5) clock.now += absl::Milliseconds(3500);
  };
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  limits.samples = 8;
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  EXPECT_EQ(stats.samples, 8);
  EXPECT_EQ(stats.skipped_ticks, 2);  // 5 s and 6 s; 7 s is taken, late
  EXPECT_EQ(stats.max_lateness, absl::Milliseconds(500));
  EXPECT_EQ(stats.on_time, 8);  // 7.5 s is before the next tick, 8 s
  EXPECT_THAT(stats.Summary(), HasSubstr("10 ticks, 80.00% on time (2 missed, 0 late)"));
  const absl::Duration s = absl::Seconds(1);
  EXPECT_THAT(Recorded(), ElementsAre(0 * s, 1 * s, 2 * s, 3 * s, 4 * s,
                                      absl::Milliseconds(7500), 8 * s, 9 * s));
}

TEST_F(RecordLoopTest, StallShorterThanAnIntervalSamplesLateWithoutSkipping) {
  FakeClock clock;
  clock.after_sample = [&](int n) {
    if (n == 3) clock.now += absl::Milliseconds(1600);  // at 2 s, done at 3.6 s
  };
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  limits.samples = 5;
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  EXPECT_EQ(stats.skipped_ticks, 0);
  EXPECT_EQ(stats.max_lateness, absl::Milliseconds(600));
  const absl::Duration s = absl::Seconds(1);
  EXPECT_THAT(Recorded(), ElementsAre(0 * s, 1 * s, 2 * s, absl::Milliseconds(3600), 4 * s));
}

TEST_F(RecordLoopTest, EarlyWakeupsWaitAgainUntilTheDeadline) {
  FakeClock clock;
  // Every wait returns after a quarter of the remaining time.
  clock.interrupt = [&](absl::Time deadline) {
    clock.now += (deadline - clock.now) / 4 + absl::Milliseconds(1);
    return true;
  };
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  limits.samples = 3;
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  ASSERT_THAT(clock.sample_times, SizeIs(3));
  EXPECT_GE(clock.sample_times[1], kStart + absl::Seconds(1));
  EXPECT_GE(clock.sample_times[2], kStart + absl::Seconds(2));
  EXPECT_GT(clock.waits, 4);
}

TEST_F(RecordLoopTest, StopEndsTheLoopWithoutAnotherSample) {
  FakeClock clock;
  int polls_after_third = 0;
  clock.poll = [&] {
    if (clock.sample_times.size() < 3) return LoopEvent::kNone;
    ++polls_after_third;
    return LoopEvent::kStop;
  };
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  EXPECT_EQ(stats.samples, 3);
  EXPECT_EQ(polls_after_third, 1);
  EXPECT_THAT(Recorded(), SizeIs(3));
}

TEST_F(RecordLoopTest, NewVolumeSwitchesVolumeAndKeepsGoing) {
  FakeClock clock;
  bool sent = false;
  clock.poll = [&] {
    if (clock.sample_times.size() == 2 && !sent) {
      sent = true;
      return LoopEvent::kNewVolume;
    }
    return LoopEvent::kNone;
  };
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  limits.samples = 4;
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  EXPECT_EQ(stats.samples, 4);
  ArchiveContents ar = ReadArchive(base_);
  EXPECT_THAT(ar.volumes, ElementsAre(base_ + ".0", base_ + ".1"));
  EXPECT_THAT(ar.results, SizeIs(4));
  const absl::Duration s = absl::Seconds(1);
  EXPECT_THAT(Recorded(), ElementsAre(0 * s, 1 * s, 2 * s, 3 * s));
}

// pmlogger's -v with a time: a new volume once the interval has passed,
// counted again from any switch (also an asynchronous one, as SIGHUP's).
TEST_F(RecordLoopTest, VolumeIntervalSwitchesVolumesOnTime) {
  FakeClock clock;
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  limits.samples = 9;
  limits.volume_interval = absl::Milliseconds(2500);
  bool sent = false;
  clock.poll = [&] {
    // SIGHUP after the sample at 7 s: a switch, and the count restarts.
    if (clock.sample_times.size() == 8 && !sent) {
      sent = true;
      return LoopEvent::kNewVolume;
    }
    return LoopEvent::kNone;
  };
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  ArchiveContents ar = ReadArchive(base_);
  // Switches before the samples at 3 s and 6 s (2.5 s after 0 and after 3),
  // then SIGHUP at about 7.x s; the next timed one would be 2.5 s after that.
  EXPECT_THAT(ar.volumes, ElementsAre(base_ + ".0", base_ + ".1", base_ + ".2", base_ + ".3"));
  EXPECT_THAT(ar.results, SizeIs(9));
  // Each volume's first record has an index entry: when each volume began.
  std::vector<absl::Duration> first_of_volume(4, absl::InfiniteDuration());
  for (const format::IndexEntry& e : ar.index) {
    ASSERT_GE(e.volume, 0);
    ASSERT_LT(e.volume, 4);
    first_of_volume[e.volume] =
        std::min(first_of_volume[e.volume], format::ToAbslTime(e.timestamp) - kStart);
  }
  const absl::Duration s = absl::Seconds(1);
  // (Volume 0 begins with the prologue, 1 us before the first sample.)
  EXPECT_THAT(first_of_volume, ElementsAre(-absl::Microseconds(1), 3 * s, 6 * s, 8 * s));
}

// pmlogger's -s with bytes: the loop stops after the sample that makes the
// archive reach the size (records are never cut).
TEST_F(RecordLoopTest, MaxBytesStopsAfterTheSampleThatReachesIt) {
  std::vector<uint64_t> sizes;  // bytes written after each sample
  {
    FakeClock clock;
    LoopLimits limits;
    limits.samples = 4;
    LoopStats stats;
    std::unique_ptr<Recorder> rec = NewRecorder();
    LoopHooks hooks = clock.Hooks();
    hooks.on_sample = [&] { sizes.push_back(rec->bytes_written()); };
    ASSERT_OK(RunRecordLoop(*rec, limits, hooks, &stats));
    ASSERT_OK(rec->Close());
  }
  ASSERT_THAT(sizes, SizeIs(4));
  for (const auto& [max_bytes, want] : std::vector<std::pair<uint64_t, int64_t>>{
           {1, 1}, {sizes[1], 2}, {sizes[1] + 1, 3}, {sizes[3] + 1000000, 6}}) {
    base_ = NewTempDir("out") + "/arch";
    FakeClock clock;
    LoopLimits limits;
    limits.samples = 6;
    limits.max_bytes = max_bytes;
    LoopStats stats;
    std::unique_ptr<Recorder> rec = NewRecorder();
    ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
    ASSERT_OK(rec->Close());
    EXPECT_EQ(stats.samples, want) << "max_bytes " << max_bytes;
  }
}

TEST_F(RecordLoopTest, FinalSampleDuringAWaitIsTakenAtOnceThenTheLoopEnds) {
  FakeClock clock;
  // After the third sample (at 2 s) the command exits at 2.25 s, waking the
  // wait early.
  clock.interrupt = [&](absl::Time deadline) {
    if (clock.sample_times.size() != 3) return false;
    clock.now = kStart + absl::Milliseconds(2250);
    (void)deadline;
    return true;
  };
  clock.poll = [&] {
    return clock.now == kStart + absl::Milliseconds(2250) ? LoopEvent::kFinalSample
                                                          : LoopEvent::kNone;
  };
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  EXPECT_EQ(stats.samples, 4);
  const absl::Duration s = absl::Seconds(1);
  EXPECT_THAT(Recorded(), ElementsAre(0 * s, 1 * s, 2 * s, absl::Milliseconds(2250)));
}

// Here the second sample runs late, so there is no wait before the next
// tick and the event is seen by the poll after it.
TEST_F(RecordLoopTest, FinalSamplePolledWithoutAWaitIsTheLastSample) {
  FakeClock clock;
  clock.after_sample = [&](int n) {
    if (n == 2) clock.now += absl::Milliseconds(1500);
  };
  clock.poll = [&] {
    return clock.sample_times.size() == 2 ? LoopEvent::kFinalSample : LoopEvent::kNone;
  };
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  limits.samples = 10;
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  EXPECT_EQ(stats.samples, 3);
  EXPECT_EQ(clock.waits, 1);
  const absl::Duration s = absl::Seconds(1);
  EXPECT_THAT(Recorded(), ElementsAre(0 * s, 1 * s, absl::Milliseconds(2500)));
}

TEST_F(RecordLoopTest, FinalSamplePolledAtTheDeadlineIsTheLastSample) {
  FakeClock clock;
  clock.poll = [&] {
    return clock.sample_times.size() == 2 ? LoopEvent::kFinalSample : LoopEvent::kNone;
  };
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  limits.samples = 10;
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  EXPECT_EQ(stats.samples, 3);
  const absl::Duration s = absl::Seconds(1);
  EXPECT_THAT(Recorded(), ElementsAre(0 * s, 1 * s, 2 * s));
}

// A window of 10 intervals: a sample at its start and one per interval,
// none after its end (the one due exactly at the end may or may not be
// taken: on a real clock the wake-up is always a little later).
TEST_F(RecordLoopTest, DurationLimitSamplesNothingPastTheEnd) {
  FakeClock clock;
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  limits.duration = absl::Seconds(10);
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  EXPECT_GE(stats.samples, 10);
  EXPECT_LE(stats.samples, 11);
  std::vector<absl::Duration> ts = Recorded();
  ASSERT_THAT(ts, SizeIs(stats.samples));
  for (size_t k = 0; k < ts.size(); ++k) EXPECT_EQ(ts[k], absl::Seconds(k));
  EXPECT_LE(clock.now, kStart + absl::Seconds(10));  // no wait beyond the end
}

TEST_F(RecordLoopTest, UntilLimitAndAStallPastIt) {
  FakeClock clock;
  LoopLimits limits;
  limits.interval = absl::Seconds(1);
  limits.until = kStart + absl::Milliseconds(3500);
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, clock.Hooks(), &stats));
  ASSERT_OK(rec->Close());
  EXPECT_EQ(stats.samples, 4);  // 0, 1, 2, 3

  // A sample that ends past the limit is the last one.
  FakeClock stalled;
  stalled.after_sample = [&](int n) {
    if (n == 2) stalled.now += absl::Seconds(5);
  };
  base_ = NewTempDir("out2") + "/arch";
  std::unique_ptr<Recorder> rec2 = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec2, limits, stalled.Hooks(), &stats));
  ASSERT_OK(rec2->Close());
  EXPECT_EQ(stats.samples, 2);
}

TEST_F(RecordLoopTest, RecorderErrorEndsTheLoop) {
  FakeClock clock;
  LoopLimits limits;
  limits.samples = 3;
  LoopStats stats;
  RecorderOptions o = TestRecorderOptions(dir_, "/nonexistent-dir/arch");
  Recorder rec(o, log_.fn());
  EXPECT_FALSE(RunRecordLoop(rec, limits, clock.Hooks(), &stats).ok());
  EXPECT_EQ(stats.samples, 0);
}

// ---------------------------------------------------------------------------
// The real clock: 1,000 samples at 5 msec (about 5 s), real files.

TEST_F(RecordLoopTest, NoDriftOnTheRealClockAt5Msec) {
  const absl::Duration interval = absl::Milliseconds(5);
  bool first = true;
  absl::Time start;
  LoopHooks hooks;
  hooks.now = [&] {
    absl::Time t = absl::Now();
    if (first) {
      start = t;
      first = false;
    }
    return t;
  };
  hooks.wait_until = [](absl::Time deadline) {
    const absl::Duration d = deadline - absl::Now();
    if (d > absl::ZeroDuration()) absl::SleepFor(d);
  };
  int n = 0;
  hooks.on_sample = [&] { app_->SetU64(1, ++n); };
  LoopLimits limits;
  limits.interval = interval;
  limits.samples = 1000;
  LoopStats stats;
  std::unique_ptr<Recorder> rec = NewRecorder();
  ASSERT_OK(RunRecordLoop(*rec, limits, hooks, &stats));
  ASSERT_OK(rec->Close());
  EXPECT_EQ(stats.samples, 1000);
  ArchiveContents ar = ReadArchive(base_);
  ASSERT_THAT(ar.results, SizeIs(1000));
  const absl::Time last = format::ToAbslTime(ar.results.back().timestamp);
  // Ticks a stalled machine skipped move the last sample on by as many
  // intervals; with none skipped this is the statement exactly.
  const absl::Time due = start + (999 + stats.skipped_ticks) * interval;
  EXPECT_GE(last, due);
  EXPECT_LT(last - due, interval) << "skipped " << stats.skipped_ticks << ", max lateness "
                                  << stats.max_lateness;
  if (stats.skipped_ticks == 0) {
    EXPECT_LT(absl::AbsDuration(last - (start + 1000 * interval)), interval);
  }
  for (size_t i = 1; i < ar.results.size(); ++i) {
    EXPECT_LE(ar.results[i - 1].timestamp, ar.results[i].timestamp);
  }
  EXPECT_PMLOGCHECK_OK(base_);
}

}  // namespace
}  // namespace mmvlog::archiver

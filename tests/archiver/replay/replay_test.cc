// Replay::Run, the whole pipeline into a CSV output: the -t grid starts at
// the archive's label time (pmlogger writes its prologue before the first
// sample; pmval and pmrep start there, not at the first record), pmval's
// rows stop at the archive's end where pmrep's read 1 ms past it, -T with
// -s spreads the interval as pmrep does, a late window (-S) gives the rows a
// whole read gives whether or not the stream has to start again, and damage
// is reported.
#include "archiver/replay/replay.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "archiver/replay/output/csv_output.h"
#include "format/archive/archive_format.h"
#include "tests/archiver/replay/replay_test_util.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::CapturedFile;
using ::mmvlog::testing::TestArchive;
using ::mmvlog::testing::TestMetric;
using ::testing::ElementsAre;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

ReplayPlan Plan(const std::string& interval) {
  ReplayPlan p;
  p.zone = absl::UTCTimeZone();
  if (!interval.empty()) {
    absl::Duration d;
    EXPECT_TRUE(absl::ParseDuration(interval, &d));
    p.interval = d;
  }
  return p;
}

// The CSV lines of a replay of `bases` (without the header), and its report.
std::vector<std::string> Csv(const std::vector<std::string>& bases, const ReplayPlan& plan,
                             ReplayReport* report = nullptr, int64_t max_rows = 0) {
  absl::StatusOr<Replay> r = Replay::Open(bases, {});
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  CapturedFile f;
  ReplayReport local;
  {
    CsvOutput out(f.file(), max_rows, false);
    const absl::Status s = r->Run(plan, {&out}, [](LogLevel, const std::string&) {}, report ? report : &local);
    EXPECT_TRUE(s.ok()) << s;
  }
  return Lines(f.text());
}

TEST(Replay, TheGridStartsAtTheLabelTimeNotTheFirstRecord) {
  // As pmlogger writes: the label (its prologue) 19 ms before the first
  // sample.
  TestArchive a({{"cnt", format::kTypeU32, format::kSemCounter}, {"inst", format::kType32, format::kSemInstant}});
  a.LabelAt(-0.019);
  for (int t = 0; t <= 3; ++t) a.Record(t, {{"cnt", 1000 * t}, {"inst", t}});
  const std::string base = a.Write("label_time");
  ReplayPlan plan = Plan("1s");
  plan.raw = true;
  // pmrep -t 1sec -r: 21:59:59.981 has nothing (before the first
  // sample), then every second from there, interpolated.
  EXPECT_THAT(Csv({base}, plan), ElementsAre("2023-11-14 21:59:59.981,,", "2023-11-14 22:00:00.981,981,1",
                                             "2023-11-14 22:00:01.981,1981,2", "2023-11-14 22:00:02.981,2981,3"));
}

TEST(Replay, PmvalRowsStopAtTheEndPmrepsOneMillisecondLater) {
  TestArchive a({{"disc", format::kType32, format::kSemDiscrete}});
  a.Record(0, {{"disc", 0}});
  a.Record(5, {{"disc", 5}});
  a.Record(9.9995, {{"disc", 10}});
  const std::string base = a.Write("end_slack");
  ReplayPlan plan = Plan("5s");
  EXPECT_THAT(Csv({base}, plan), ElementsAre("2023-11-14 22:00:00.000,0", "2023-11-14 22:00:05.000,5",
                                             "2023-11-14 22:00:10.000,10"));
  plan.pmval_rows = true;
  EXPECT_THAT(Csv({base}, plan), ElementsAre("2023-11-14 22:00:00.000,0", "2023-11-14 22:00:05.000,5"));
}

TEST(Replay, FinishWithSamplesSpreadsTheIntervalAsPmrepDoes) {
  TestArchive a({{"inst", format::kType32, format::kSemInstant}});
  for (int t = 0; t <= 30; t += 5) a.Record(t, {{"inst", t}});
  const std::string base = a.Write("spread");
  // pmrep -T +12 -s 3 -t 5: rows at 0, 6 and 12.
  ReplayPlan plan = Plan("5s");
  plan.window.end = "+12";
  plan.samples = 3;
  EXPECT_THAT(Csv({base}, plan), ElementsAre("2023-11-14 22:00:00.000,0", "2023-11-14 22:00:06.000,5",
                                             "2023-11-14 22:00:12.000,10"));
  // pmrep -s 30 -t 5 on a 30 s archive: 7 rows (the end of the log first).
  plan = Plan("5s");
  plan.samples = 30;
  EXPECT_EQ(Csv({base}, plan).size(), 7u);
}

// 0..99 every second with an index entry before each record; "sparse" only
// every tenth.
std::string LongArchive(const std::string& name, bool sparse) {
  TestArchive a({{"a", format::kTypeU32, format::kSemCounter}, {"sparse", format::kType32, format::kSemDiscrete}});
  a.IndexEvery(1);
  for (int t = 0; t < 100; ++t) {
    if (!sparse || t % 10 == 0) {
      a.Record(t, {{"a", 10 * t}, {"sparse", t}});
    } else {
      a.Record(t, {{"a", 10 * t}});
    }
  }
  return a.Write(name);
}

TEST(Replay, ALateWindowGivesTheRowsAWholeReadGives) {
  for (bool sparse : {false, true}) {
    const std::string base = LongArchive(sparse ? "late_sparse" : "late_dense", sparse);
    // -S enters the archive at an index entry (and starts again when
    // "sparse" had no value between it and the window); -O alone reads it
    // all. The same grid, the same rows.
    ReplayPlan late = Plan("1.5s");
    late.window.start = "+55.5";
    ReplayPlan whole = Plan("1.5s");
    whole.window.origin = "+55.5";
    const std::vector<std::string> rows = Csv({base}, late);
    ASSERT_EQ(rows.size(), 30u) << sparse;  // 55.5, 57, ..., 99
    EXPECT_EQ(rows, Csv({base}, whole)) << sparse;
    // The counter has no rate at the first grid time; the discrete value
    // is the nearest sample's (55.5 is nearer 60 than 50).
    EXPECT_EQ(rows[0], sparse ? "2023-11-14 22:00:55.500,,60" : "2023-11-14 22:00:55.500,,55") << sparse;
  }
}

// Counts the rows it is given, and how many had come when it was first
// flushed (a follower flushes before it waits for more).
class CountingOutput : public Output {
 public:
  bool TakeRow(const Row& row) override {
    rows_ += !row.mark;
    return true;
  }
  void Flush() override {
    if (at_first_flush_ < 0) at_first_flush_ = rows_;
  }
  absl::Status End(const ReplayEnd&) override { return absl::OkStatus(); }
  int rows() const { return rows_; }
  int at_first_flush() const { return at_first_flush_; }

 private:
  int rows_ = 0;
  int at_first_flush_ = -1;
};

// Following a recording with -t: the rows known so far, before waiting.
int RowsBeforeWaiting(const std::string& base) {
  absl::StatusOr<Replay> r = Replay::Open({base}, {});
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return -1;
  ReplayPlan plan = Plan("2s");
  plan.follow = true;
  plan.sleep_until = [](absl::Time) { return false; };  // stop at the first wait
  CountingOutput out;
  ReplayReport report;
  EXPECT_TRUE(r->Run(plan, {&out}, [](LogLevel, const std::string&) {}, &report).ok());
  EXPECT_GE(out.rows(), 50);  // 0, 2, ..., 98 once stopped
  return out.at_first_flush();
}

TEST(Replay, FollowingGivesTheGridRowsBeforeWaiting) {
  TestArchive a({{"every", format::kTypeU32, format::kSemCounter}});
  for (int t = 0; t < 100; ++t) a.Record(t, {{"every", t}});
  EXPECT_GE(RowsBeforeWaiting(a.Write("follow")), 49);
}

// A metric logged once (its only value in the first record, as pmlogger
// logs hinv.*) must not hold every grid row back while following: the
// Interpolator waits for that column's next sample, which a live recording
// may never have; once nothing more is written the rows are given as PCP
// would show them then (it once printed nothing until stopped).
TEST(Replay, FollowingGivesTheGridRowsBeforeWaitingWithAMetricLoggedOnce) {
  TestArchive a({{"every", format::kTypeU32, format::kSemCounter}, {"once", format::kType32, format::kSemDiscrete}});
  a.Record(0, {{"every", 0}, {"once", 42}});
  for (int t = 1; t < 100; ++t) a.Record(t, {{"every", t}});
  EXPECT_GE(RowsBeforeWaiting(a.Write("follow_once")), 49);
}

TEST(Replay, DamageIsReported) {
  TestArchive a({{"inst", format::kType32, format::kSemInstant}});
  a.Record(0, {{"inst", 1}});
  const std::string good = a.Write("good");
  TestArchive b({{"inst", format::kType32, format::kSemInstant}});
  b.LabelAt(10);
  for (int t = 10; t < 13; ++t) b.Record(t, {{"inst", t}});
  const std::string broken = b.Write("broken");
  ASSERT_TRUE(testing::DamageRecord(broken, 1));
  ReplayReport report;
  // The records before the damage; no line for the join's mark.
  EXPECT_THAT(Csv({good, broken}, Plan(""), &report),
              ElementsAre("2023-11-14 22:00:00.000,1", "2023-11-14 22:00:10.000,10"));
  ASSERT_EQ(report.damaged.size(), 1u);
  EXPECT_THAT(report.damaged[0], ::testing::HasSubstr(broken + ".0"));
}

// At the records, a replay whose stream is read on a second thread
// (SampleReadAhead) gives what one read on this thread gives: the rows,
// the damage, a late window entered at an index entry and started again.
TEST(Replay, ReadAheadGivesWhatOneThreadGives) {
  TestArchive a({{"inst", format::kType32, format::kSemInstant}});
  for (int t = 0; t < 40; ++t) a.Record(t, {{"inst", t}});
  const std::string good = a.Write("ahead_good");
  TestArchive b({{"inst", format::kType32, format::kSemInstant}});
  b.LabelAt(100);
  for (int t = 100; t < 140; ++t) b.Record(t, {{"inst", t}});
  const std::string broken = b.Write("ahead_broken");
  ASSERT_TRUE(testing::DamageRecord(broken, 30));
  const std::string sparse = LongArchive("ahead_sparse", true);
  struct Case {
    std::vector<std::string> bases;
    std::string start, finish;
  };
  const std::vector<Case> cases = {{{good, broken}, "", ""},
                                   {{good, broken}, "+10", "+20"},
                                   {{sparse}, "+55.5", ""},
                                   {{sparse}, "", "+30"}};
  for (const std::string interval : {"", "1.5s"}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(absl::StrCat(c.bases[0], " ", c.start, " ", c.finish, " ", interval));
      ReplayPlan one = Plan(interval);
      one.window.start = c.start;
      one.window.end = c.finish;
      one.read_ahead_from = UINT64_MAX;
      ReplayPlan two = one;
      two.read_ahead_from = 0;
      ReplayReport one_report, two_report;
      const std::vector<std::string> rows = Csv(c.bases, one, &one_report);
      EXPECT_GT(rows.size(), 5u);
      EXPECT_EQ(Csv(c.bases, two, &two_report), rows);
      EXPECT_EQ(two_report.damaged, one_report.damaged);
    }
  }
}

// On a grid the stream is read ahead too; a column sampled rarely makes
// the interpolator look ahead for its next sample once it keeps too many
// of the others' (2^18), from where the sample it was given last left the
// stream, not from where the thread's stream is by then (up to 16 samples
// further: the sample at 265 is among them).
TEST(Replay, ReadAheadOnAGridLooksAheadFromTheSampleGivenLast) {
  std::vector<std::pair<int32_t, std::string>> instances;
  for (int i = 0; i < 1000; ++i) instances.push_back({i, absl::StrCat("i", i)});
  for (const std::vector<int>& rare : std::vector<std::vector<int>>{{0, 265, 330}, {0}}) {
    TestArchive a({{"wide", format::kTypeU32, format::kSemCounter, "count", instances},
                   {"rare", format::kType32, format::kSemDiscrete}});
    for (int t = 0; t < 400; ++t) {
      std::vector<testing::Cell> cells;
      for (int i = 0; i < 1000; ++i) cells.push_back({"wide", i, static_cast<uint32_t>(t * (i + 1))});
      if (std::find(rare.begin(), rare.end(), t) != rare.end()) cells.push_back({"rare", t});
      a.Record(t, std::move(cells));
    }
    const std::string base = a.Write(absl::StrCat("grid_ahead_", rare.size()));
    ReplayPlan one = Plan("1.5s");
    one.read_ahead_from = UINT64_MAX;
    ReplayPlan two = one;
    two.read_ahead_from = 0;
    const std::vector<std::string> rows = Csv({base}, one);
    ASSERT_EQ(rows.size(), 267u);  // 0, 1.5, ..., 399
    const std::vector<std::string> ahead = Csv({base}, two);
    ASSERT_EQ(ahead.size(), rows.size());
    for (size_t k = 0; k < rows.size(); ++k) {
      ASSERT_TRUE(ahead[k] == rows[k]) << "row " << k << " differs (its last cell "
                                       << ahead[k].substr(ahead[k].rfind(',') + 1) << ", not "
                                       << rows[k].substr(rows[k].rfind(',') + 1) << ")";
    }
    // The nearest of the rare samples: 265 from 133.5 on.
    const std::string at_198 = rows[132];
    EXPECT_EQ(at_198.substr(at_198.rfind(',') + 1), rare.size() > 1 ? "265" : "0") << at_198;
  }
}

// Archives read together must agree on each PMID's descriptor, as libpcp's
// __pmLogAddDesc has it (pmval and pmrep exit 1 with "The type of a metric
// has changed in an archive"): replay refuses them, naming the metric, what
// changed and both archives, instead of mixing numbers and strings in one
// column.
TEST(Replay, ArchivesThatDescribeAMetricDifferentlyAreRefused) {
  TestArchive a({{"m", format::kTypeU32, format::kSemCounter}});
  a.Record(1, {{"m", 1u}});
  const std::string first = a.Write("desc_first");
  struct Case {
    std::string name;
    TestMetric metric;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"type", {"m", format::kTypeString, format::kSemCounter}, "the type of a metric has changed"},
      {"sem", {"m", format::kTypeU32, format::kSemInstant}, "the semantics of a metric has changed"},
      {"units", {"m", format::kTypeU32, format::kSemCounter, "bytes"},
       "the units of a metric have changed"},
      {"indom", {"m", format::kTypeU32, format::kSemCounter, "count", {{0, "zero"}}},
       "the instance domain of a metric has changed"},
  };
  for (const Case& c : cases) {
    TestArchive b({c.metric});
    if (c.metric.type == format::kTypeString) {
      b.Record(2, {{"m", "x"}});
    } else if (!c.metric.instances.empty()) {
      b.Record(2, {{"m", 0, 2u}});
    } else {
      b.Record(2, {{"m", 2u}});
    }
    const std::string second = b.Write("desc_second_" + c.name);
    absl::StatusOr<Replay> r = Replay::Open({first, second}, {});
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_THAT(r.status().message(), ::testing::HasSubstr(c.says)) << c.name;
    EXPECT_THAT(r.status().message(), ::testing::HasSubstr(first)) << c.name;
    EXPECT_THAT(r.status().message(), ::testing::HasSubstr(second)) << c.name;
  }
  // The same descriptor in both: read as one.
  TestArchive same({{"m", format::kTypeU32, format::kSemCounter}});
  same.Record(2, {{"m", 2u}});
  EXPECT_TRUE(Replay::Open({first, same.Write("desc_same")}, {}).ok());
}

}  // namespace
}  // namespace mmvlog::archiver

// Replay's timeline: ReadTimeline on archives written by ArchiveWriter
// (columns in first-seen order with instance names, values of every kind,
// instances that come and go, several archives with a mark between them,
// globs, a damaged archive), the dense row storage, NumericValue (rates,
// resets, marks) and RowNumbers, which must agree with it cell for cell.
#include "archiver/replay/replay.h"

#include <unistd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "archiver/store/archive_writer.h"
#include "archiver/store/posix_file.h"
#include "format/archive_format.h"
#include "format/archive_meta.h"
#include "format/archive_result.h"
#include "tests/archiver/archive_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::TempBase;
using ::mmvlog::testing::TestArchiveOptions;

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint32_t kCounter = format::PmidBuild(70, 1, 1);  // U64 counter, indom
constexpr uint32_t kGauge = format::PmidBuild(70, 1, 2);    // DOUBLE instant
constexpr uint32_t kText = format::PmidBuild(70, 1, 3);     // STRING discrete
constexpr uint32_t kSigned = format::PmidBuild(70, 1, 4);   // 32-bit counter
constexpr uint32_t kIndom = format::InDomBuild(70, 1);
constexpr int64_t kStart = 1'700'000'000;

format::Desc MakeDesc(uint32_t pmid, int32_t type, int32_t sem, uint32_t indom, std::string name) {
  format::Desc d;
  d.pmid = pmid;
  d.type = type;
  d.sem = sem;
  d.indom = indom;
  d.names = {std::move(name)};
  return d;
}

format::ResultValue U64(int32_t inst, uint64_t v) {
  format::ResultValue r;
  r.inst = inst;
  r.u64 = v;
  return r;
}

// One sample: the counter's instances as given, and optionally the others.
struct Sample {
  int64_t sec = 0;
  uint32_t nsec = 0;
  std::vector<std::pair<int32_t, uint64_t>> counter;
  std::optional<double> gauge;
  std::optional<std::string> text;
  std::optional<int32_t> signed32;
  bool mark = false;
};

format::Result ToResult(const Sample& s) {
  format::Result r;
  r.timestamp = {s.sec, s.nsec};
  if (!s.counter.empty()) {
    format::ValueSet set;
    set.pmid = kCounter;
    set.type = format::kTypeU64;
    for (auto [inst, v] : s.counter) set.values.push_back(U64(inst, v));
    r.sets.push_back(set);
  }
  if (s.gauge) {
    format::ValueSet set;
    set.pmid = kGauge;
    set.type = format::kTypeDouble;
    format::ResultValue v;
    v.inst = format::kInNull;
    v.f64 = *s.gauge;
    set.values.push_back(v);
    r.sets.push_back(set);
  }
  if (s.text) {
    format::ValueSet set;
    set.pmid = kText;
    set.type = format::kTypeString;
    format::ResultValue v;
    v.inst = format::kInNull;
    v.bytes = *s.text;
    set.values.push_back(v);
    r.sets.push_back(set);
  }
  if (s.signed32) {
    format::ValueSet set;
    set.pmid = kSigned;
    set.type = format::kType32;
    format::ResultValue v;
    v.inst = format::kInNull;
    v.i64 = *s.signed32;
    set.values.push_back(v);
    r.sets.push_back(set);
  }
  return r;
}

std::string Write(const std::string& name, int64_t start, const std::vector<Sample>& samples) {
  const std::string base = TempBase(name);
  auto w = ArchiveWriter::Create(base, TestArchiveOptions(3), {start, 0});
  EXPECT_OK(w);
  if (!w.ok()) return base;
  EXPECT_OK((*w)->AddDesc(MakeDesc(kCounter, format::kTypeU64, format::kSemCounter, kIndom, "app.requests")));
  EXPECT_OK((*w)->AddDesc(MakeDesc(kGauge, format::kTypeDouble, format::kSemInstant,
                                   format::kIndomNull, "app.load")));
  EXPECT_OK((*w)->AddDesc(MakeDesc(kText, format::kTypeString, format::kSemDiscrete,
                                   format::kIndomNull, "app.version")));
  EXPECT_OK((*w)->AddDesc(MakeDesc(kSigned, format::kType32, format::kSemCounter,
                                   format::kIndomNull, "other.signed")));
  format::InDom in;
  in.indom = kIndom;
  in.timestamp = {start, 0};
  in.instances = {{0, "zero"}, {1, "one"}, {2, "two"}};
  EXPECT_OK((*w)->AddInDom(in));
  for (const Sample& s : samples) {
    if (s.mark) {
      EXPECT_OK((*w)->AppendMark({s.sec, s.nsec}));
    } else {
      EXPECT_OK((*w)->AppendResult(ToResult(s)));
    }
  }
  EXPECT_OK((*w)->Close());
  return base;
}

std::vector<std::string> Labels(const Timeline& t) {
  std::vector<std::string> out;
  for (const Column& c : t.columns) out.push_back(c.label());
  return out;
}

std::vector<Sample> Samples() {
  std::vector<Sample> s(6);
  s[0] = {kStart + 1, 0, {{0, 100}, {1, 1000}}, 0.5, "v1", -5};
  s[1] = {kStart + 3, 0, {{0, 110}, {1, 1040}}, 0.75, std::nullopt, 10};
  // Instance 2 appears (a new column in the middle of the run), 1 resets.
  s[2] = {kStart + 4, 500'000'000, {{0, 125}, {2, 7}, {1, 3}}, std::nullopt, "v2", 13};
  s[3].sec = kStart + 5;
  s[3].mark = true;
  s[4] = {kStart + 6, 0, {{0, 130}, {2, 9}}, 1.5, std::nullopt, 20};
  s[5] = {kStart + 8, 0, {{0, 150}, {2, 17}, {1, 23}}, 2.5, std::nullopt, 19};
  return s;
}

TEST(ReadTimeline, ColumnsRowsAndValues) {
  const std::string base = Write("one", kStart, Samples());
  absl::StatusOr<Timeline> t = ReadTimeline({base}, {});
  ASSERT_OK(t);
  EXPECT_EQ(t->host, "host");
  EXPECT_THAT(t->archives, ElementsAre(base));
  EXPECT_THAT(t->problems, ::testing::IsEmpty());
  EXPECT_THAT(Labels(*t), ElementsAre("app.requests[zero]", "app.requests[one]", "app.load",
                                      "app.version", "other.signed", "app.requests[two]"));
  ASSERT_EQ(t->rows.size(), 6u);
  // Rows are as wide as the columns known when they were read.
  EXPECT_EQ(t->rows[0].width, 5u);
  EXPECT_EQ(t->rows[2].width, 6u);
  EXPECT_TRUE(t->rows[3].mark);
  EXPECT_EQ(t->rows[2].time, (format::Timestamp{kStart + 4, 500'000'000}));
  EXPECT_EQ(t->ValueCount(0), 5u);
  EXPECT_EQ(t->ValueCount(1), 4u);
  EXPECT_EQ(t->ValueCount(3), 0u);
  EXPECT_FALSE(t->Has(0, 5));  // beyond the row's width
  EXPECT_EQ(t->Value(0, 0).kind, StoredValue::kUint);
  EXPECT_EQ(t->Value(0, 0).u, 100u);
  EXPECT_EQ(t->Value(2, 5).u, 7u);
  EXPECT_EQ(t->Value(0, 2).kind, StoredValue::kDouble);
  EXPECT_EQ(t->Value(0, 2).d, 0.5);
  EXPECT_EQ(t->Value(0, 3).kind, StoredValue::kString);
  EXPECT_EQ(t->Value(2, 3).s, "v2");
  EXPECT_EQ(t->Value(0, 3).Text(), "v1");
  EXPECT_EQ(t->Value(0, 4).kind, StoredValue::kInt);
  EXPECT_EQ(t->Value(0, 4).i, -5);
  EXPECT_EQ(t->Value(0, 4).Text(), "-5");
  EXPECT_FALSE(t->Value(1, 3).has_value());
  EXPECT_EQ(t->ColumnDesc(5).pmid, kCounter);
  EXPECT_EQ(t->Desc(kGauge)->names[0], "app.load");
}

TEST(ReadTimeline, GlobsChooseColumns) {
  const std::string base = Write("globs", kStart, Samples());
  absl::StatusOr<Timeline> t = ReadTimeline({base}, {"app.req*", "other"});
  ASSERT_OK(t);
  EXPECT_THAT(Labels(*t), ElementsAre("app.requests[zero]", "app.requests[one]", "other.signed",
                                      "app.requests[two]"));
  EXPECT_EQ(t->descs.size(), 2u);
}

TEST(NumericValue, RatesResetsAndMarks) {
  const std::string base = Write("rates", kStart, Samples());
  absl::StatusOr<Timeline> t = ReadTimeline({base}, {});
  ASSERT_OK(t);
  EXPECT_EQ(NumericValue(*t, 0, 0, false), std::nullopt);  // no previous sample
  EXPECT_EQ(NumericValue(*t, 1, 0, false), 5.0);           // (110 - 100) / 2 s
  EXPECT_EQ(NumericValue(*t, 2, 0, false), 10.0);          // 15 / 1.5 s
  EXPECT_EQ(NumericValue(*t, 2, 1, false), std::nullopt);  // a reset
  EXPECT_EQ(NumericValue(*t, 4, 0, false), std::nullopt);  // after the mark
  EXPECT_EQ(NumericValue(*t, 5, 5, false), 4.0);           // (17 - 9) / 2 s
  EXPECT_EQ(NumericValue(*t, 5, 1, false), std::nullopt);  // previous is before the mark
  EXPECT_EQ(NumericValue(*t, 1, 4, false), 7.5);           // signed counter: 15 / 2 s
  EXPECT_EQ(NumericValue(*t, 5, 4, false), std::nullopt);  // 20 -> 19: a reset
  EXPECT_EQ(NumericValue(*t, 1, 2, false), 0.75);          // instant: as stored
  EXPECT_EQ(NumericValue(*t, 0, 3, false), std::nullopt);  // strings have no number
  EXPECT_EQ(NumericValue(*t, 2, 1, true), 3.0);            // raw
  EXPECT_EQ(NumericValue(*t, 3, 0, true), std::nullopt);   // the mark has no values
}

// RowNumbers must give NumericValue's answer for every cell, raw or not.
void ExpectRowNumbersAgree(const Timeline& t) {
  for (bool raw : {false, true}) {
    RowNumbers numbers(t, raw);
    for (size_t r = 0; r < t.rows.size(); ++r) {
      const std::vector<std::optional<double>>& row = numbers.Of(r);
      ASSERT_EQ(row.size(), t.columns.size());
      for (size_t c = 0; c < t.columns.size(); ++c) {
        EXPECT_EQ(row[c], NumericValue(t, r, c, raw)) << "row " << r << " column " << c << " raw " << raw;
      }
    }
  }
}

TEST(RowNumbers, AgreesWithNumericValueOnEveryCell) {
  const std::string base = Write("agree", kStart, Samples());
  absl::StatusOr<Timeline> t = ReadTimeline({base}, {});
  ASSERT_OK(t);
  ExpectRowNumbersAgree(*t);
}

TEST(ReadTimeline, SeveralArchivesAreOneTimelineWithAMarkBetween) {
  std::vector<Sample> later = Samples();
  for (Sample& s : later) s.sec += 100;
  const std::string a = Write("first", kStart, Samples());
  const std::string b = Write("second", kStart + 100, later);
  // Named in any order, read in time order; a damaged one is reported.
  const std::string c = TempBase("damaged");
  ASSERT_OK(WriteFileAtomically(c + ".meta", std::vector<uint8_t>(10, 0)));
  ASSERT_OK(WriteFileAtomically(c + ".0", std::vector<uint8_t>(10, 0)));
  absl::StatusOr<Timeline> t = ReadTimeline({b, c, a}, {});
  ASSERT_OK(t);
  EXPECT_THAT(t->archives, ElementsAre(a, b));
  ASSERT_EQ(t->problems.size(), 1u);
  EXPECT_THAT(t->problems[0], HasSubstr(c));
  ASSERT_EQ(t->rows.size(), 13u);
  EXPECT_TRUE(t->rows[6].mark);
  EXPECT_EQ(t->rows[6].time, t->rows[5].time);
  EXPECT_EQ(t->columns.size(), 6u);  // the same columns in both
  EXPECT_EQ(t->Value(7, 0).u, 100u);
  EXPECT_EQ(NumericValue(*t, 7, 0, false), std::nullopt);  // not across archives
  EXPECT_EQ(NumericValue(*t, 8, 0, false), 5.0);
  ExpectRowNumbersAgree(*t);
}

TEST(ReadTimeline, NothingReadableIsNotFound) {
  EXPECT_THAT(ReadTimeline({TempBase("missing")}, {}),
              ::mmvlog::testing::StatusIs(absl::StatusCode::kNotFound, HasSubstr("no readable archive")));
}

TEST(Timeline, DenseRowsGrowWithTheirColumns) {
  Timeline t;
  t.descs.push_back(MakeDesc(kCounter, format::kTypeU64, format::kSemCounter, kIndom, "m"));
  t.desc_of_pmid[kCounter] = 0;
  Column col;
  col.pmid = kCounter;
  col.metric = "m";
  t.AddRow({1, 0}, false);
  EXPECT_EQ(t.rows[0].width, 0u);
  EXPECT_EQ(t.AddColumn(col), 0u);
  EXPECT_EQ(t.AddColumn(col), 1u);
  EXPECT_EQ(t.rows[0].width, 2u);  // the last row grows
  StoredValue s;
  s.kind = StoredValue::kString;
  s.s = "text";
  t.Set(0, 1, s);
  // A value from the timeline's own strings, set again: copied safely.
  for (int i = 0; i < 100; ++i) t.Set(0, 1, t.Value(0, 1));
  EXPECT_EQ(t.Value(0, 1).s, "text");
  t.AddRow({2, 0}, false);
  EXPECT_EQ(t.rows[1].width, 2u);
  EXPECT_EQ(t.rows[1].first, 2u);
  EXPECT_EQ(t.AddColumn(col), 2u);
  EXPECT_EQ(t.rows[0].width, 2u);  // earlier rows keep theirs
  EXPECT_EQ(t.rows[1].width, 3u);
  EXPECT_FALSE(t.Has(0, 2));
  EXPECT_EQ(t.ValueCount(0), 1u);
  EXPECT_EQ(t.ValueCount(1), 0u);
}

TEST(Interpolate, CountersLinearOthersStepNothingAcrossMarks) {
  const std::string base = Write("interp", kStart, Samples());
  absl::StatusOr<Timeline> t = ReadTimeline({base}, {});
  ASSERT_OK(t);
  const Timeline g = Interpolate(*t, absl::FromUnixSeconds(kStart + 2),
                                 absl::FromUnixSeconds(kStart + 8), absl::Seconds(2));
  // Grid 2, 4, (mark), 6, 8.
  ASSERT_EQ(g.rows.size(), 5u);
  EXPECT_TRUE(g.rows[2].mark);
  EXPECT_EQ(g.Value(0, 0).u, 105u);     // halfway between 100 and 110
  EXPECT_EQ(g.Value(0, 2).d, 0.5);      // instant: the last value
  EXPECT_EQ(g.Value(0, 3).s, "v1");     // string: the last value
  EXPECT_EQ(g.Value(1, 0).u, 120u);     // 110 + 15 * (1 / 1.5)
  EXPECT_FALSE(g.Has(1, 1));            // a reset between the samples either side
  EXPECT_EQ(g.Value(3, 0).u, 130u);     // a sample at the grid time
  EXPECT_FALSE(g.Has(3, 1));            // no sample of instance 1 since the mark
  EXPECT_EQ(g.Value(4, 5).u, 17u);
  ExpectRowNumbersAgree(g);
}

}  // namespace
}  // namespace mmvlog::archiver

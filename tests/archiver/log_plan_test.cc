// archiver/log_plan: pmlogger's meaning of a configuration, as a table of
// configurations and the groups they give; and GroupSchedule's deadlines.
#include "archiver/schedule/log_plan.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "archiver/schedule/group_schedule.h"
#include "format/text/logger_config.h"

namespace mmvlog::archiver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// mmv.a.x (no instances), mmv.a.y [0 "zero", 1 "one", 2 "two words"],
// mmv.b.z [7 "seven"].
std::vector<OfferedMetric> Metrics() {
  return {
      {"mmv.a.x", 1, false, {}},
      {"mmv.a.y", 2, true, {{0, "zero"}, {1, "one"}, {2, "two words"}}},
      {"mmv.b.z", 3, true, {{7, "seven"}}},
  };
}

format::LoggerConfig Config(const std::string& text) {
  format::PmcppOptions o;
  o.load = [](const std::string& p) -> absl::StatusOr<std::string> {
    return absl::NotFoundError(p);
  };
  absl::StatusOr<format::LoggerConfig> c = format::ParseLoggerConfigText(text, "cfg", o);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : format::LoggerConfig{};
}

// "interval: pmid[insts] ..." per group, in order.
std::string Show(const LogPlan& plan) {
  std::vector<std::string> groups;
  for (const GroupSelection& g : plan.groups()) {
    std::vector<std::pair<uint32_t, std::string>> ms;
    for (const auto& [pmid, s] : g.metrics) {
      ms.push_back({pmid, s.all ? absl::StrCat(pmid)
                                : absl::StrCat(pmid, "[", absl::StrJoin(s.instances, ","), "]")});
    }
    std::sort(ms.begin(), ms.end());
    std::vector<std::string> parts;
    for (auto& [p, t] : ms) parts.push_back(t);
    groups.push_back(absl::StrCat(absl::FormatDuration(g.interval), ": ", absl::StrJoin(parts, " ")));
  }
  return absl::StrJoin(groups, "; ");
}

TEST(LogPlanTest, PmloggersMeaning) {
  struct Case {
    const char* what;
    const char* config;
    const char* want;
  } cases[] = {
      {"a leaf", "log mandatory on 1 sec mmv.a.x", "1s: 1"},
      {"a subtree is every leaf below it", "log mandatory on 1 sec mmv.a", "1s: 1 2"},
      {"the root", "log mandatory on 1 sec mmv", "1s: 1 2 3"},
      {"a prefix that is not a whole component is nothing", "log mandatory on 1 sec mmv.b.zz", ""},
      {"same state and interval: one group",
       "log mandatory on 1 sec mmv.a.x\nlog mandatory on 1 sec mmv.b", "1s: 1 3"},
      {"advisory and mandatory at one interval are two groups",
       "log mandatory on 1 sec mmv.a.x\nlog advisory on 1 sec mmv.b", "1s: 1; 1s: 3"},
      {"three cadences",
       "log mandatory on 250 msec mmv.a.x\nlog mandatory on 1 min mmv.a.y\n"
       "log mandatory on 1 hour mmv.b.z",
       "250ms: 1; 1m: 2; 1h: 3"},
      {"once groups come first",
       "log mandatory on 1 sec mmv.a.x\nlog mandatory on once mmv.b.z", "0: 3; 1s: 1"},
      {"every 0 is once", "log mandatory on every 0 sec mmv.a.x", "0: 1"},
      {"default is the -t interval", "log mandatory on default mmv.a.x", "5s: 1"},
      {"a metric in two groups is logged at both",
       "log mandatory on 1 sec mmv.a.y\nlog mandatory on 10 sec mmv.a.y", "1s: 2; 10s: 2"},
      {"advisory too", "log advisory on 1 sec mmv.a.y\nlog advisory on 10 sec mmv.a.y",
       "1s: 2; 10s: 2"},
      {"instances by name and number",
       "log mandatory on 1 sec mmv.a.y [ \"zero\" 2 ]", "1s: 2[0,2]"},
      {"an instance by the first word of its name",
       "log mandatory on 1 sec mmv.a.y [ two ]", "1s: 2[2]"},
      {"a later request takes named instances from an earlier one",
       "log mandatory on 1 sec mmv.a.y [ 0 1 ]\nlog mandatory on 10 sec mmv.a.y [ 1 ]",
       "1s: 2[0]; 10s: 2[1]"},
      {"all instances in the same group again", "log mandatory on 1 sec { mmv.a.y [0] mmv.a.y }",
       "1s: 2"},
      {"mandatory off is not undone by advisory on",
       "log mandatory off mmv.a.x\nlog advisory on 1 sec mmv.a.x", ""},
      {"mandatory off is undone by mandatory on",
       "log mandatory off mmv.a.x\nlog mandatory on 1 sec mmv.a.x", "1s: 1"},
      {"mandatory on is not undone by advisory off",
       "log mandatory on 1 sec mmv.a.x\nlog advisory off mmv.a.x", "1s: 1"},
      {"mandatory maybe logs nothing by itself", "log mandatory maybe mmv.a.x", ""},
      {"mandatory maybe lets advisory decide",
       "log mandatory maybe mmv.a.x\nlog advisory on 1 sec mmv.a.x", "1s: 1"},
      {"advisory off logs nothing", "log advisory off mmv.a", ""},
      {"advisory off takes named instances from an advisory on",
       "log advisory on 1 sec mmv.a.y [0 1]\nlog advisory off mmv.a.y [1]", "1s: 2[0]"},
      {"mandatory off takes a named instance from mandatory on",
       "log mandatory on 1 sec mmv.a.y [0 1]\nlog mandatory off mmv.a.y [1]", "1s: 2[0]"},
      {"advisory on cannot take an instance from mandatory on",
       "log mandatory on 1 sec mmv.a.y [0]\nlog advisory on 10 sec mmv.a.y [0 1]",
       "1s: 2[0]; 10s: 2[1]"},
      {"unknown instances are dropped", "log mandatory on 1 sec mmv.a.y [ nine 9 ]", ""},
      {"instances of a metric without any", "log mandatory on 1 sec mmv.a.x [ 0 ]", ""},
  };
  for (const Case& c : cases) {
    LogPlan plan(Config(c.config), absl::Seconds(5));
    (void)plan.Start(Metrics());
    EXPECT_EQ(Show(plan), c.want) << c.what << "\n" << c.config;
  }
}

TEST(LogPlanTest, WarningsNameThePlaceAndWhatIsWrong) {
  LogPlan plan(Config("log mandatory on 1 sec {\n mmv.nothing\n mmv.a.y [ nine ]\n"
                      " mmv.a.x [ 3 ]\n}\nlog mandatory off mmv.b.z\n"
                      "log advisory on 1 sec mmv.b.z\n"),
               absl::Seconds(5));
  EXPECT_THAT(
      plan.Start(Metrics()),
      ElementsAre("cfg:2:2: mmv.nothing matches no metric yet; it is logged if it appears",
                  "cfg:3:2: instance \"nine\" is not defined for the metric mmv.a.y; not "
                  "logged",
                  "cfg:4:2: instance 3 given for the metric mmv.a.x, which has no "
                  "instances; not logged",
                  "cfg:7:23: mmv.b.z not changed: an advisory request cannot change a "
                  "mandatory one"));
}

TEST(LogPlanTest, MetricsThatAppearLaterJoinTheirRootsGroup) {
  LogPlan plan(Config("log mandatory on 1 sec mmv.a.y\nlog mandatory on 10 sec mmv.later\n"
                      "log advisory on 1 min mmv.b\nlog mandatory off mmv.gone\n"),
               absl::Seconds(5));
  (void)plan.Start(Metrics());
  EXPECT_EQ(Show(plan), "1s: 2; 1m: 3");
  std::vector<OfferedMetric> more = Metrics();
  EXPECT_FALSE(plan.Update(more));  // nothing new
  more.push_back({"mmv.later.q", 10, false, {}});  // below a root with no metric at start
  more.push_back({"mmv.b.new", 11, true, {{1, "one"}}});  // below a subtree that had some
  more.push_back({"mmv.a.other", 12, false, {}});  // below nothing configured
  more.push_back({"mmv.gone.g", 13, false, {}});   // below an "off" root
  EXPECT_TRUE(plan.Update(more));
  EXPECT_EQ(Show(plan), "1s: 2; 10s: 10; 1m: 3 11");
  EXPECT_TRUE(plan.Logs(10));
  EXPECT_FALSE(plan.Logs(12));
  EXPECT_FALSE(plan.Logs(13));
}

TEST(LogPlanTest, DescribeIsTheSchedule) {
  LogPlan plan(Config("log mandatory on 10 sec { mmv.a.y [ 1 ] mmv.a.x }\n"
                      "log advisory on once mmv.b.z\nlog mandatory off mmv.a.q\n"
                      "log mandatory on 250 msec mmv.later\n"),
               absl::Seconds(5));
  std::vector<OfferedMetric> m = Metrics();
  m.push_back({"mmv.a.q", 4, false, {}});
  (void)plan.Start(m);
  EXPECT_EQ(plan.Describe(m),
            "advisory on once:\n"
            "    mmv.b.z  all instances\n"
            "mandatory on every 10 sec:\n"
            "    mmv.a.x  (no instances)\n"
            "    mmv.a.y  [1 \"one\"]\n"
            "mandatory off:\n"
            "    mmv.a.q\n"
            "logged as they appear, below:\n"
            "    mmv.later (every 250 msec)\n");
}

TEST(GroupScheduleTest, EachGroupOnItsOwnDeadlines) {
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  const absl::Duration ms = absl::Milliseconds(1);
  GroupSchedule s;
  EXPECT_EQ(s.NextDue(), absl::InfiniteFuture());
  s.Set({{5, absl::ZeroDuration()}, {1, 250 * ms}, {2, 1000 * ms}}, t0);
  struct Step {
    int at_ms;
    std::vector<size_t> due;
    int next_ms;  // -1: never
    int64_t skipped;
  } steps[] = {
      {0, {5, 1, 2}, 250, 0},  // all at the start, the once group only then
      {250, {1}, 500, 0},
      {499, {}, 500, 0},       // early: nothing
      {510, {1}, 750, 0},      // a little late: the next deadline is unchanged
      {750, {1}, 1000, 0},
      {1000, {1, 2}, 1250, 0},
      {1800, {1}, 2000, 2},    // stalled: 1250's served late, 1500 and 1750 dropped
      {2000, {1, 2}, 2250, 0},
  };
  int64_t skipped = 0;
  for (const Step& st : steps) {
    int64_t before = skipped;
    EXPECT_EQ(s.TakeDue(t0 + st.at_ms * ms, &skipped), st.due) << st.at_ms;
    EXPECT_EQ(s.NextDue(), t0 + st.next_ms * ms) << st.at_ms;
    EXPECT_EQ(skipped - before, st.skipped) << st.at_ms;
  }
}

TEST(GroupScheduleTest, NewGroupsStartWhenTheyAppearOldOnesKeepTheirPhase) {
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  const absl::Duration s1 = absl::Seconds(1);
  GroupSchedule s;
  s.Set({{0, absl::ZeroDuration()}, {1, 10 * s1}}, t0, /*taken_now=*/true);
  EXPECT_EQ(s.NextDue(), t0 + 10 * s1);  // both just sampled; once is done
  s.Set({{0, absl::ZeroDuration()}, {1, 10 * s1}, {2, 3 * s1}, {3, absl::ZeroDuration()}},
        t0 + 4 * s1);
  EXPECT_EQ(s.NextDue(), t0 + 4 * s1);
  EXPECT_THAT(s.TakeDue(t0 + 4 * s1, nullptr), ElementsAre(2, 3));
  EXPECT_EQ(s.NextDue(), t0 + 7 * s1);
  EXPECT_THAT(s.TakeDue(t0 + 10 * s1, nullptr), ElementsAre(1, 2));
  s.Set({{2, 3 * s1}}, t0 + 11 * s1);  // group 1 is gone
  EXPECT_EQ(s.NextDue(), t0 + 13 * s1);
  s.Set({}, t0 + 11 * s1);
  EXPECT_THAT(s.TakeDue(t0 + 100 * s1, nullptr), IsEmpty());
  EXPECT_EQ(s.NextDue(), absl::InfiniteFuture());
}

}  // namespace
}  // namespace mmvlog::archiver

// DumpOutput (replay -o dump): every record with a chosen value, as
// pmdumplog -a lists them (its time with nanoseconds, the value count, a
// line per value: PMID, metric, instance, value; aggregates and event
// arrays decoded, event parameters named from the archive), and <mark>s.
#include "archiver/replay/output/dump_output.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "archiver/replay/selection.h"
#include "format/archive/archive_format.h"
#include "format/archive/event_record.h"
#include "tests/archiver/replay/replay_test_util.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::CapturedFile;
using ::mmvlog::testing::OpenArchives;
using ::mmvlog::testing::TestArchive;

std::string EventBytes() {
  format::EventArray a;
  format::EventRecord e;
  e.timestamp = {1700000000, 123456000};
  e.flags = format::kEventFlagPoint;
  e.params = {{TestArchive::PmidOf(1), format::kTypeString, "fetch"}};
  a.records.push_back(e);
  std::vector<uint8_t> b;
  format::EncodeEventArray(a, false, &b);
  return std::string(b.begin(), b.end());
}

TestArchive Dumped() {
  TestArchive a({
      {"req", format::kTypeU64, format::kSemCounter, "count", {{0, "a"}, {7, "b c"}}},
      {"ver", format::kTypeString, format::kSemDiscrete, "none"},
      {"load", format::kTypeDouble, format::kSemInstant, "none"},
      {"neg", format::kType32, format::kSemInstant},
      {"agg", format::kTypeAggregate, format::kSemDiscrete, "none"},
      {"ev", format::kTypeEvent, format::kSemDiscrete, "none"},
  });
  a.Record(0, {{"req", 0, 100}, {"req", 7, 18446744073709551615ull}, {"ver", "a \"q\""}, {"load", 0.1},
               {"neg", -3}});
  a.Mark(0.5);
  a.Record(1.000000123, {{"agg", "ab"}, {"ev", EventBytes()}});
  a.Record(2, {{"load", 2.5}});
  return a;
}

std::string Dump(const testing::Opened& o) {
  CapturedFile f;
  {
    DumpOutput out(f.file());
    out.Begin(testing::HeaderFor(o, false, std::nullopt));
    testing::ForEachSample(o, [&out](const Sample& s) { out.Record(s); });
    EXPECT_TRUE(out.End({}).ok());
  }
  return f.text();
}

TEST(DumpOutput, EveryRecordAsPmdumplogListsIt) {
  auto o = OpenArchives({Dumped().Write("dump")});
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(Dump(*o),
            "2023-11-14 22:00:00.000000000  5 values\n"
            "    245.0.1 (req) inst [0 or \"a\"] value 100\n"
            "    245.0.1 (req) inst [7 or \"b c\"] value 18446744073709551615\n"
            "    245.0.2 (ver) value \"a \\\"q\\\"\"\n"
            "    245.0.3 (load) value 0.1\n"
            "    245.0.4 (neg) value -3\n"
            "2023-11-14 22:00:00.500000000  <mark>\n"
            "2023-11-14 22:00:01.000000123  2 values\n"
            "    245.0.5 (agg) value \"ab\" [6162]\n"
            "    245.0.6 (ev) 1 event record\n"
            "        --- event record [0] timestamp 2023-11-14 22:13:20.123456 flags 0x1 (point) ---\n"
            "        245.0.2 (ver) value \"fetch\"\n"
            "2023-11-14 22:00:02.000000000  1 values\n"
            "    245.0.3 (load) value 2.5\n");
}

TEST(DumpOutput, RecordsOfNoChosenMetricAreLeftOut) {
  Selection sel;
  sel.metrics = {"load"};
  auto o = OpenArchives({Dumped().Write("dump_chosen")}, sel);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(Dump(*o),
            "2023-11-14 22:00:00.000000000  1 values\n"
            "    245.0.3 (load) value 0.1\n"
            "2023-11-14 22:00:00.500000000  <mark>\n"
            "2023-11-14 22:00:02.000000000  1 values\n"
            "    245.0.3 (load) value 2.5\n");
}

}  // namespace
}  // namespace mmvlog::archiver

// decoded_value: event arrays and aggregates as the dump shows them
// (pmdumplog -a's text, checked against it by //tests/pcp:
// event_record_oracle_test) and as JSON for scripts, from one small array;
// a damaged array, and every prefix of a good one, is a message.
#include "archiver/replay/output/decoded_value.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/time/time.h"
#include "format/archive/archive_format.h"
#include "format/archive/event_record.h"

namespace mmvlog::archiver {
namespace {

std::string EventBytes(bool highres) {
  format::EventArray a;
  format::EventRecord e;
  e.timestamp = {1700000000, 123456000};
  e.flags = format::kEventFlagPoint;
  e.params = {{format::PmidBuild(70, 2, 7), format::kTypeString, "fetch"},
              {format::PmidBuild(70, 2, 9), format::kTypeAggregate, "ab"}};
  a.records.push_back(e);
  a.records.push_back({{1700000001, 0}, format::kEventFlagMissed, 3, {}});
  std::vector<uint8_t> b;
  format::EncodeEventArray(a, highres, &b);
  return std::string(b.begin(), b.end());
}

const std::map<uint32_t, std::string> kNames = {{format::PmidBuild(70, 2, 7), "test.param.string"}};

TEST(DecodedValue, EventArrayAsPmdumplogPrintsIt) {
  EXPECT_EQ(DecodedValueText(format::kTypeEvent, EventBytes(false), kNames, absl::UTCTimeZone()),
            "2 (and 3 missed) event records\n"
            "        --- event record [0] timestamp 2023-11-14 22:13:20.123456 flags 0x1 (point) ---\n"
            "        70.2.7 (test.param.string) value \"fetch\"\n"
            "        70.2.9 (<noname>) value \"ab\" [6162]\n"
            "        --- event record [1] timestamp 2023-11-14 22:13:21.000000 flags 0x80000000 "
            "(missed) ---\n"
            "        ==> 3 missed event records");
  EXPECT_THAT(DecodedValueText(format::kTypeHighresEvent, EventBytes(true), kNames, absl::UTCTimeZone()),
              ::testing::HasSubstr("timestamp 2023-11-14 22:13:20.123456000 flags"));
  EXPECT_EQ(DecodedValueText(format::kTypeAggregate, "ab", kNames, absl::UTCTimeZone()),
            "value \"ab\" [6162]");
  // The zone is the one asked for.
  EXPECT_THAT(DecodedValueText(format::kTypeEvent, EventBytes(false), kNames,
                               absl::FixedTimeZone(3600)),
              ::testing::HasSubstr("timestamp 2023-11-14 23:13:20.123456 flags"));
}

TEST(DecodedValue, EventArrayAsJson) {
  EXPECT_EQ(DecodedValueJson(format::kTypeEvent, EventBytes(false), kNames),
            "[{\"timestamp\":1700000000.123456000,\"flags\":1,\"params\":["
            "{\"pmid\":\"70.2.7\",\"name\":\"test.param.string\",\"value\":\"fetch\"},"
            "{\"pmid\":\"70.2.9\",\"value\":\"6162\"}]},"
            "{\"timestamp\":1700000001.000000000,\"flags\":2147483648,\"missed\":3,\"params\":[]}]");
  EXPECT_EQ(DecodedValueJson(format::kTypeAggregateStatic, std::string("\x00\xff", 2), kNames),
            "\"00ff\"");
  EXPECT_TRUE(IsDecodedType(format::kTypeHighresEvent));
  EXPECT_TRUE(IsDecodedType(format::kTypeAggregate));
  EXPECT_FALSE(IsDecodedType(format::kTypeString));
  EXPECT_FALSE(IsDecodedType(format::kTypeU64));
}

// A damaged array is a message naming the offset (from the start of the
// pmValueBlock) and what is wrong; so is every prefix of a good one.
TEST(DecodedValue, DamagedEventArrayIsAMessage) {
  const std::string bytes = EventBytes(false);
  EXPECT_EQ(DecodedValueText(format::kTypeEvent, bytes.substr(0, 30), kNames, absl::UTCTimeZone()),
            "damaged event array (offsets in its pmValueBlock): offset 4: event array: 2 records "
            "do not fit in 26 bytes");
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THAT(DecodedValueText(format::kTypeEvent, bytes.substr(0, n), kNames, absl::UTCTimeZone()),
                ::testing::StartsWith("damaged event array"));
    EXPECT_THAT(DecodedValueJson(format::kTypeEvent, bytes.substr(0, n), kNames),
                ::testing::StartsWith("{\"error\":\""));
  }
}

}  // namespace
}  // namespace mmvlog::archiver

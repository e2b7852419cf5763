// Event arrays (PM_TYPE_EVENT, PM_TYPE_HIGHRES_EVENT) and aggregates: golden
// bytes as pmlogger 6.0.3 wrote them with PCP's sample PMDA, round trips, and
// the text pmdumplog -a prints (its output for those archives).
#include "format/archive/event_record.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

std::vector<uint8_t> Hex(absl::string_view hex) {
  const std::string b = absl::HexStringToBytes(hex);
  return {b.begin(), b.end()};
}

std::string Big32(uint32_t v) {
  std::string s(4, 0);
  for (int i = 0; i < 4; ++i) s[i] = static_cast<char>(v >> (24 - 8 * i));
  return s;
}
std::string Big64(uint64_t v) { return Big32(v >> 32) + Big32(static_cast<uint32_t>(v)); }

// sampledso.event.no_indom_records as pmlogger stored it: one record, one
// string parameter "fetch #5" (30.0.134) stored without a NUL.
constexpr absl::string_view kPmloggerRecord =
    "00000001"                  // nrecords
    "546402c3" "00087b3f"       // sec, usec
    "00000001" "00000001"       // flags (point), nparams
    "07800086" "0600000c"       // pmid 30.0.134, type 6 length 12
    "6665746368202335";         // "fetch #5"

TEST(EventRecordTest, PmloggerRecordDecodes) {
  absl::StatusOr<EventArray> a = DecodeEventArray(Hex(kPmloggerRecord), false);
  ASSERT_OK(a.status());
  ASSERT_EQ(a->records.size(), 1u);
  const EventRecord& e = a->records[0];
  EXPECT_EQ(e.timestamp.sec, 0x546402c3);
  EXPECT_EQ(e.timestamp.nsec, 0x00087b3fu * 1000);
  EXPECT_EQ(e.flags, kEventFlagPoint);
  ASSERT_EQ(e.params.size(), 1u);
  EXPECT_EQ(e.params[0].pmid, (30u << 22) | 134u);
  EXPECT_EQ(e.params[0].type, kTypeString);
  EXPECT_EQ(e.params[0].bytes, "fetch #5");
  EXPECT_EQ(EventParamText(e.params[0]), "\"fetch #5\"");
  EXPECT_EQ(EventCountText(*a), "1 event record");
}

// sample.event.highres_records: 64-bit seconds and nanoseconds, no padding
// after nrecords, a record without parameters.
TEST(EventRecordTest, PmloggerHighresRecordDecodes) {
  absl::StatusOr<EventArray> a = DecodeEventArray(
      Hex("00000001" "00000000546402ba" "000000002121eeb9" "00000001" "00000000"), true);
  ASSERT_OK(a.status());
  ASSERT_EQ(a->records.size(), 1u);
  EXPECT_EQ(a->records[0].timestamp.sec, 0x546402ba);
  EXPECT_EQ(a->records[0].timestamp.nsec, 555871929u);
  EXPECT_TRUE(a->records[0].params.empty());
}

TEST(EventRecordTest, MissedRecordCarriesItsCountInNparams) {
  absl::StatusOr<EventArray> a = DecodeEventArray(
      Hex("00000002" "546402bc00087bb3" "80000000" "00000007"
          "546402bd00087bb3" "00000001" "00000000"), false);
  ASSERT_OK(a.status());
  EXPECT_EQ(a->records[0].missed, 7u);
  EXPECT_TRUE(a->records[0].params.empty());
  EXPECT_EQ(a->missed(), 7u);
  EXPECT_EQ(EventCountText(*a), "2 (and 7 missed) event records");
  EXPECT_EQ(EventFlagsText(a->records[0].flags), "0x80000000 (missed)");
}

EventArray EveryType() {
  EventArray a;
  EventRecord e;
  e.timestamp = {1700000000, 123456000};
  e.flags = kEventFlagStart | kEventFlagId | kEventFlagParent;
  e.params = {
      {1, kType32, Big32(static_cast<uint32_t>(-14))},
      {2, kTypeU32, Big32(15)},
      {3, kType64, Big64(static_cast<uint64_t>(-3))},
      {4, kTypeU64, Big64(11)},
      {5, kTypeFloat, Big32(0xc1880000)},  // -17
      {6, kTypeDouble, Big64(0xc022000000000000)},  // -9
      {7, kTypeString, "twelve"},
      {8, kTypeAggregate, std::string("\x01\x03\x07\x0f\x1f\x3f\x7f\xff", 8)},
  };
  a.records.push_back(e);
  EventRecord missed;
  missed.timestamp = {1700000001, 0};
  missed.flags = kEventFlagMissed;
  missed.missed = 3;
  a.records.push_back(missed);
  a.records.push_back(EventRecord{{1700000002, 5000}, kEventFlagEnd, 0, {}});
  return a;
}

TEST(EventRecordTest, RoundTripsBothLayouts) {
  for (bool highres : {false, true}) {
    std::vector<uint8_t> bytes;
    EncodeEventArray(EveryType(), highres, &bytes);
    absl::StatusOr<EventArray> back = DecodeEventArray(bytes, highres);
    ASSERT_OK(back.status());
    EXPECT_EQ(*back, EveryType()) << highres;
  }
}

TEST(EventRecordTest, ParametersPrintAsPmPrintValueDoes) {
  const EventArray a = EveryType();
  std::vector<std::string> texts;
  for (const EventParam& p : a.records[0].params) texts.push_back(EventParamText(p));
  EXPECT_THAT(texts, ::testing::ElementsAre("-14", "15", "-3", "11", "-17", "-9", "\"twelve\"",
                                            "18410503204342530817 -1.371380375612005e+306 "
                                            "[0103070f1f3f7fff]"));
  EXPECT_EQ(EventFlagsText(a.records[0].flags), "0x1a (start,id,parent)");
  EXPECT_EQ(EventFlagsText(0), "0x0");
  EXPECT_EQ(EventCountText(EventArray{}), "No event records");
}

TEST(EventRecordTest, AggregatesPrintAsPmPrintValueDoes) {
  const uint8_t abc[] = {'a', 'b', 'c'};
  EXPECT_EQ(AggregateText(abc), "\"abc\" [616263]");
  const uint8_t nan_float[] = {0, 0, 0xc0, 0x7f};  // NaN, little-endian
  EXPECT_EQ(AggregateText(nan_float), "[0000c07f]");
  const uint8_t one_float[] = {0, 0, 0x80, 0x3f};
  EXPECT_EQ(AggregateText(one_float), "1 [0000803f]");
  EXPECT_EQ(AggregateText({}), "\"\" []");
}

TEST(EventRecordTest, JsonNamesParametersAndKeepsNumbersExact) {
  const std::map<uint32_t, std::string> names = {{1, "sample.event.param_32"}};
  EXPECT_EQ(EventArrayJson(EveryType(), names),
            "[{\"timestamp\":1700000000.123456000,\"flags\":26,\"params\":["
            "{\"pmid\":\"0.0.1\",\"name\":\"sample.event.param_32\",\"value\":-14},"
            "{\"pmid\":\"0.0.2\",\"value\":15},{\"pmid\":\"0.0.3\",\"value\":-3},"
            "{\"pmid\":\"0.0.4\",\"value\":11},{\"pmid\":\"0.0.5\",\"value\":-17},"
            "{\"pmid\":\"0.0.6\",\"value\":-9},{\"pmid\":\"0.0.7\",\"value\":\"twelve\"},"
            "{\"pmid\":\"0.0.8\",\"value\":\"0103070f1f3f7fff\"}]},"
            "{\"timestamp\":1700000001.000000000,\"flags\":2147483648,\"missed\":3,"
            "\"params\":[]},"
            "{\"timestamp\":1700000002.000005000,\"flags\":4,\"params\":[]}]");
}

TEST(EventRecordTest, LastParameterMayLackItsPadding) {
  std::vector<uint8_t> bytes = Hex(absl::StrCat(
      "00000001" "546402c300087b3f" "00000001" "00000001" "07800086" "0600000a",
      "62696e676f21"));  // "bingo!", no padding
  absl::StatusOr<EventArray> a = DecodeEventArray(bytes, false);
  ASSERT_OK(a.status());
  EXPECT_EQ(a->records[0].params[0].bytes, "bingo!");
}

// Tests of all the error paths of DecodeEventArray follow: each names the
// offset and what is wrong, and none reads outside the input.
struct DamageCase {
  const char* name;
  std::string hex;
  bool highres;
  const char* message;
};

TEST(EventRecordTest, DamageIsDataLossWithOffset) {
  const DamageCase cases[] = {
      {"empty", "", false, "event array: offset 4: need 4 bytes, only 0 left"},
      {"too many records", "00000002" "546402c300087b3f" "00000001" "00000000", false,
       "offset 4: event array: 2 records do not fit in 16 bytes"},
      {"negative nrecords", "ffffffff", true, "records do not fit in 0 bytes"},
      {"usec out of range", "00000001" "546402c3000f4240" "00000001" "00000000", false,
       "offset 8: event record 0: microseconds 1000000 >= 1e6"},
      {"nsec out of range", "00000001" "0000000000000001" "000000003b9aca00" "00000001" "00000000",
       true, "offset 8: event record 0: nanoseconds 1000000000 >= 1e9"},
      {"too many params", "00000001" "546402c300087b3f" "00000001" "00000100", false,
       "offset 8: event record 0: 256 parameters do not fit in 0 bytes"},
      {"param length below header", "00000001" "546402c300087b3f" "00000001" "00000001"
       "07800086" "06000002", false, "offset 24: event record 0, parameter 0: length 2 < 4"},
      {"param past the end", "00000001" "546402c300087b3f" "00000001" "00000001"
       "07800086" "06000040" "6162", false,
       "event record 0, parameter 0: offset 32: need 60 bytes, only 2 left"},
      {"number of the wrong size", "00000001" "546402c300087b3f" "00000001" "00000001"
       "07800086" "02000008" "00000001", false,
       "offset 24: event record 0, parameter 0: a value of type 2 has 8 bytes, not 4"},
      {"trailing bytes", "00000000" "00", false,
       "offset 8: event array: 1 unexpected bytes after the last record"},
  };
  for (const DamageCase& c : cases) {
    EXPECT_THAT(DecodeEventArray(Hex(c.hex), c.highres, 4),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr(c.message)))
        << c.name;
  }
}

TEST(EventRecordTest, EveryPrefixIsAnErrorNotACrash) {
  for (bool highres : {false, true}) {
    std::vector<uint8_t> bytes;
    EncodeEventArray(EveryType(), highres, &bytes);
    for (size_t n = 0; n < bytes.size(); ++n) {
      const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
      EXPECT_FALSE(DecodeEventArray(prefix, highres).ok()) << n;
    }
  }
}

}  // namespace
}  // namespace mmvlog::format

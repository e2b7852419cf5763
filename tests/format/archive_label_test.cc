// Tests of //format/archive:archive_label: golden bytes for both versions, round
// trips, encoder validation, and decoding errors by byte surgery.
#include "format/archive/archive_label.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_framing.h"
#include "tests/format/archive_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

using ::mmvlog::format::testing::Bytes;
using ::mmvlog::format::testing::HexDump;
using ::mmvlog::format::testing::IsDataLossAt;
using ::mmvlog::format::testing::IsErrorAt;
using ::mmvlog::testing::IsOk;
using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

LogLabel V2Label() {
  LogLabel l;
  l.version = 2;
  l.pid = 0x2cfa;
  l.start = {1700000000, 250'000'000};
  l.volume = kVolumeIndex;
  l.hostname = "hostA";
  l.timezone = "UTC";
  return l;
}

LogLabel V3Label() {
  LogLabel l;
  l.version = 3;
  l.pid = 0x2d04;
  l.start = {0x1'6553f100, 123'456'789};  // seconds beyond 32 bits
  l.volume = 7;
  l.features = kLogFeatureNone;
  l.hostname = "hostA";
  l.timezone = "AEDT-11";
  l.zoneinfo = ":Australia/Melbourne";
  return l;
}

// The payload of `framed` (a single framed record), checked for framing.
std::span<const uint8_t> Payload(const std::vector<uint8_t>& framed) {
  RecordScanner scanner(framed, 0);
  absl::StatusOr<std::optional<Frame>> f = scanner.Next();
  EXPECT_THAT(f, IsOk());
  if (!f.ok() || !f->has_value()) return {};
  EXPECT_EQ((*f)->size(), framed.size());
  return (*f)->payload;
}

TEST(EncodeLogLabel, V2GoldenBytes) {
  std::vector<uint8_t> out;
  ASSERT_OK(EncodeLogLabel(V2Label(), &out));
  Bytes want;
  want.Be32(132)           // record length
      .Be32(0x50052602)    // magic | version 2
      .Be32(0x2cfa)        // pid
      .Be32(1700000000)    // start, seconds
      .Be32(250000)        // start, microseconds
      .Be32(0xfffffffe)    // volume -2 (.index)
      .Str("hostA", 64)    // hostname
      .Str("UTC", 40)      // timezone
      .Be32(132);          // record length again
  EXPECT_EQ(HexDump(out), HexDump(want));
  EXPECT_EQ(out.size(), kLabelV2PayloadSize + kFrameOverhead);
}

TEST(EncodeLogLabel, V3GoldenBytes) {
  std::vector<uint8_t> out;
  ASSERT_OK(EncodeLogLabel(V3Label(), &out));
  Bytes want;
  want.Be32(808)                         // record length
      .Be32(0x50052603)                  // magic | version 3
      .Be32(0x2d04)                      // pid
      .Be32(0x6553f100).Be32(1)          // start, seconds: low word first
                                         // (V3SecondsWordSwap), then high
      .Be32(123456789)                   // start, nanoseconds
      .Be32(7)                           // volume
      .Be32(0)                           // features
      .Be32(0)                           // reserved
      .Str("hostA", 256)                 // hostname
      .Str("AEDT-11", 256)               // timezone
      .Str(":Australia/Melbourne", 256)  // zoneinfo
      .Be32(808);                        // record length again
  EXPECT_EQ(HexDump(out), HexDump(want));
}

TEST(EncodeLogLabel, V2DropsSubMicrosecondsFeaturesAndZoneinfo) {
  LogLabel l = V2Label();
  l.start.nsec = 250'000'999;
  l.features = 5;
  l.zoneinfo = ":Etc/UTC";
  std::vector<uint8_t> a, b;
  ASSERT_OK(EncodeLogLabel(l, &a));
  ASSERT_OK(EncodeLogLabel(V2Label(), &b));
  EXPECT_EQ(HexDump(a), HexDump(b));
}

TEST(EncodeLogLabel, AppendsToExistingBytes) {
  std::vector<uint8_t> out = {1, 2, 3};
  ASSERT_OK(EncodeLogLabel(V3Label(), &out));
  EXPECT_EQ(out.size(), 3u + 808u);
  EXPECT_EQ(out[2], 3);
}

TEST(LogLabel, RoundTripsBothVersions) {
  std::vector<LogLabel> labels;
  for (int32_t volume : {0, 1, 12345, kVolumeMeta, kVolumeIndex}) {
    LogLabel v2 = V2Label();
    v2.volume = volume;
    labels.push_back(v2);
    LogLabel v3 = V3Label();
    v3.volume = volume;
    labels.push_back(v3);
  }
  LogLabel max2 = V2Label();  // the longest strings that fit
  max2.hostname = std::string(63, 'h');
  max2.timezone = std::string(39, 't');
  max2.start = {-1, 999'999'000};
  max2.pid = -7;
  labels.push_back(max2);
  LogLabel max3 = V3Label();
  max3.hostname = std::string(255, 'h');
  max3.timezone = std::string(255, 't');
  max3.zoneinfo = std::string(255, 'z');
  max3.features = 0xdeadbeef;
  max3.start = {INT64_MIN, 999'999'999};
  labels.push_back(max3);
  LogLabel empty3;  // all strings empty
  labels.push_back(empty3);
  LogLabel empty2;
  empty2.version = 2;
  labels.push_back(empty2);
  for (const LogLabel& l : labels) {
    SCOPED_TRACE(l.hostname.size());
    std::vector<uint8_t> out;
    ASSERT_OK(EncodeLogLabel(l, &out));
    absl::StatusOr<LogLabel> back = DecodeLogLabel(Payload(out));
    ASSERT_OK(back);
    EXPECT_EQ(*back, l);
  }
}

TEST(EncodeLogLabel, RejectsWhatDoesNotFit) {
  struct Case {
    LogLabel label;
    std::string what;
  };
  std::vector<Case> cases;
  LogLabel l = V2Label();
  l.hostname = std::string(64, 'h');
  cases.push_back({l, "hostname is 64 bytes, the field holds at most 63"});
  l = V2Label();
  l.timezone = std::string(40, 't');
  cases.push_back({l, "timezone is 40 bytes, the field holds at most 39"});
  l = V3Label();
  l.hostname = std::string(256, 'h');
  cases.push_back({l, "hostname is 256 bytes"});
  l = V3Label();
  l.zoneinfo = std::string(256, 'z');
  cases.push_back({l, "zoneinfo is 256 bytes"});
  l = V3Label();
  l.timezone = std::string("a\0b", 3);
  cases.push_back({l, "timezone contains a NUL"});
  l = V3Label();
  l.version = 1;
  cases.push_back({l, "version 1 is not 2 or 3"});
  l = V3Label();
  l.version = 4;
  cases.push_back({l, "version 4"});
  l = V3Label();
  l.start.nsec = 1'000'000'000;
  cases.push_back({l, "nanoseconds 1000000000 out of range"});
  l = V2Label();
  l.start.sec = int64_t{1} << 31;
  cases.push_back({l, "does not fit a v2 archive"});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<uint8_t> out = {42};
    EXPECT_THAT(EncodeLogLabel(c.label, &out),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.what)));
    EXPECT_EQ(out, std::vector<uint8_t>{42});
  }
}

// Tests of the error paths of DecodeLogLabel follow. Offsets in messages
// are file offsets: the payload of a label starts at byte 4.

std::vector<uint8_t> PayloadOf(const LogLabel& l) {
  std::vector<uint8_t> out;
  EXPECT_THAT(EncodeLogLabel(l, &out), IsOk());
  return std::vector<uint8_t>(out.begin() + 4, out.end() - 4);
}

TEST(DecodeLogLabel, BadMagicIsInvalidArgument) {
  std::vector<uint8_t> p = PayloadOf(V3Label());
  p[1] = 0x06;  // 0x50062603
  EXPECT_THAT(DecodeLogLabel(p), IsErrorAt(absl::StatusCode::kInvalidArgument,
                                           4, "bad label magic 0x50062603"));
  std::vector<uint8_t> zeros(kLabelV3PayloadSize, 0);
  EXPECT_THAT(DecodeLogLabel(zeros),
              IsErrorAt(absl::StatusCode::kInvalidArgument, 4, "not a PCP archive"));
}

TEST(DecodeLogLabel, OtherVersionsAreUnimplemented) {
  for (uint8_t version : {0, 1, 4, 255}) {
    std::vector<uint8_t> p = PayloadOf(V3Label());
    p[3] = version;
    EXPECT_THAT(DecodeLogLabel(p),
                IsErrorAt(absl::StatusCode::kUnimplemented, 4,
                          absl::StrCat("archive version ", version,
                                       " not supported")));
  }
}

TEST(DecodeLogLabel, WrongSizeIsDataLoss) {
  std::vector<uint8_t> v2 = PayloadOf(V2Label());
  std::vector<uint8_t> v3 = PayloadOf(V3Label());
  std::vector<uint8_t> longer = v2;
  longer.push_back(0);
  EXPECT_THAT(DecodeLogLabel(longer),
              IsDataLossAt(4, "version 2 label is 125 bytes, expected 124"));
  // A v3 payload carrying a v2 magic, and the reverse.
  std::vector<uint8_t> mixed = v3;
  mixed[3] = 2;
  EXPECT_THAT(DecodeLogLabel(mixed),
              IsDataLossAt(4, "version 2 label is 800 bytes, expected 124"));
  mixed = v2;
  mixed[3] = 3;
  EXPECT_THAT(DecodeLogLabel(mixed),
              IsDataLossAt(4, "version 3 label is 124 bytes, expected 800"));
}

TEST(DecodeLogLabel, EveryTruncationIsAnError) {
  for (const LogLabel& l : {V2Label(), V3Label()}) {
    std::vector<uint8_t> p = PayloadOf(l);
    for (size_t n = 0; n < p.size(); ++n) {
      SCOPED_TRACE(n);
      absl::StatusOr<LogLabel> got =
          DecodeLogLabel(std::span<const uint8_t>(p).first(n));
      EXPECT_THAT(got, IsDataLossAt(4, "label is"));
    }
  }
}

TEST(DecodeLogLabel, StringsMustEndWithinTheirField) {
  struct Case {
    LogLabel label;
    size_t field_offset;  // in the payload
    size_t width;
    uint64_t file_offset;
    std::string what;
  };
  const Case cases[] = {
      {V2Label(), 20, 64, 24, "label hostname is not NUL terminated within its 64 bytes"},
      {V2Label(), 84, 40, 88, "label timezone is not NUL terminated within its 40"},
      {V3Label(), 32, 256, 36, "label hostname is not NUL terminated within its 256"},
      {V3Label(), 288, 256, 292, "label timezone is not NUL terminated"},
      {V3Label(), 544, 256, 548, "label zoneinfo is not NUL terminated"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<uint8_t> p = PayloadOf(c.label);
    std::fill(p.begin() + c.field_offset, p.begin() + c.field_offset + c.width,
              'x');
    EXPECT_THAT(DecodeLogLabel(p), IsDataLossAt(c.file_offset, c.what));
  }
}

TEST(DecodeLogLabel, BytesAfterTheNulAreIgnored) {
  std::vector<uint8_t> p = PayloadOf(V2Label());
  p[20 + 10] = 'z';  // garbage after "hostA\0"
  absl::StatusOr<LogLabel> got = DecodeLogLabel(p);
  ASSERT_OK(got);
  EXPECT_EQ(got->hostname, "hostA");
}

TEST(DecodeLogLabel, SubSecondOutOfRangeIsDataLoss) {
  std::vector<uint8_t> p = PayloadOf(V2Label());
  p[12] = 0x00, p[13] = 0x0f, p[14] = 0x42, p[15] = 0x40;  // 1000000 usec
  EXPECT_THAT(DecodeLogLabel(p),
              IsDataLossAt(16, "label start microseconds 1000000 out of range"));
  p = PayloadOf(V3Label());
  p[16] = 0x3b, p[17] = 0x9a, p[18] = 0xca, p[19] = 0x00;  // 1e9 nsec
  EXPECT_THAT(DecodeLogLabel(p),
              IsDataLossAt(20, "label start nanoseconds 1000000000 out of range"));
}

}  // namespace
}  // namespace mmvlog::format

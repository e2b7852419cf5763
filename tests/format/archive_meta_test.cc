// Tests for format/archive_meta: golden bytes for every .meta record type in
// v2 and v3 (the desc, indom, domain label and text goldens are byte for byte
// what LOGIMPORT 6.0.3 wrote for the same content), round trips, a seeded
// random sweep, and damage, through DecodeMetaRecord and the encoders of
// every record kind (meta_desc, meta_indom, meta_label, meta_text); label
// sets from JSON are tests/format/label_json_test.cc.
// tests/pcp/archive_meta_oracle_test.cc checks the same code against archives
// that real PCP writes and reads.
#include "format/archive/archive_meta.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/archive/archive_format.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

using ::mmvlog::testing::IsOk;
using ::mmvlog::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr uint32_t kPmidSingle = PmidBuild(245, 0, 1);  // 245.0.1
constexpr uint32_t kIndom = InDomBuild(245, 1);         // 245.1
constexpr Timestamp kWhen{1700000000, 250000000};       // 22:13:20.25 UTC
constexpr uint64_t kAt = 1000;                          // a record's offset

// 16 bytes a line, with the offset, so a failure shows where bytes differ.
std::string Hex(std::span<const uint8_t> bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i % 16 == 0) absl::StrAppendFormat(&out, "%s%04x:", i ? "\n" : "", i);
    absl::StrAppendFormat(&out, " %02x", bytes[i]);
  }
  return out;
}

// The payload of one framed record, checking the framing on the way.
std::vector<uint8_t> Payload(const std::vector<uint8_t>& record) {
  EXPECT_GE(record.size(), kFrameOverhead);
  if (record.size() < kFrameOverhead) return {};
  const uint32_t n =
      (record[0] << 24) | (record[1] << 16) | (record[2] << 8) | record[3];
  const size_t e = record.size() - 4;
  const uint32_t t = (record[e] << 24) | (record[e + 1] << 16) |
                     (record[e + 2] << 8) | record[e + 3];
  EXPECT_EQ(n, record.size());
  EXPECT_EQ(t, record.size());
  return std::vector<uint8_t>(record.begin() + 4, record.end() - 4);
}

template <typename T>
T DecodeAs(int version, const std::vector<uint8_t>& record) {
  absl::StatusOr<MetaRecord> rec =
      DecodeMetaRecord(version, Payload(record), kAt);
  EXPECT_THAT(rec, IsOk());
  if (!rec.ok() || !std::holds_alternative<T>(*rec)) {
    ADD_FAILURE() << "wrong record kind";
    return T();
  }
  return std::get<T>(*rec);
}

std::vector<uint8_t> Bytes(absl::string_view s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

std::vector<uint8_t> Cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Desc SingleDesc() {
  Desc d;
  d.pmid = kPmidSingle;
  d.type = kTypeU64;
  d.indom = kIndomNull;
  d.sem = kSemCounter;
  d.units = 0x1f013000;  // Kbyte / sec
  d.names = {"test.single"};
  return d;
}

InDom RedGreen() {
  InDom d;
  d.timestamp = kWhen;
  d.indom = kIndom;
  d.instances = {{0, "red"}, {1, "green one"}};
  return d;
}

// ---------------------------------------------------------------------------
// Golden bytes

TEST(ArchiveMetaGolden, Desc) {
  const std::vector<uint8_t> want = Cat({
      {0x00, 0x00, 0x00, 0x33},  // length 51
      {0x00, 0x00, 0x00, 0x01},  // TYPE_DESC
      {0x3d, 0x40, 0x00, 0x01},  // PMID 245.0.1
      {0x00, 0x00, 0x00, 0x03},  // PM_TYPE_U64
      {0xff, 0xff, 0xff, 0xff},  // PM_INDOM_NULL
      {0x00, 0x00, 0x00, 0x01},  // PM_SEM_COUNTER
      {0x1f, 0x01, 0x30, 0x00},  // units: space 1, time -1, Kbyte, sec
      {0x00, 0x00, 0x00, 0x01},  // one name
      {0x00, 0x00, 0x00, 0x0b},  // of 11 bytes
      Bytes("test.single"),      // no NUL, no padding
      {0x00, 0x00, 0x00, 0x33},  // length again
  });
  EXPECT_EQ(want.size(), kFrameOverhead + kDescFixedPayload + 4 + 11);
  std::vector<uint8_t> got;
  ASSERT_OK(EncodeDesc(SingleDesc(), &got));
  EXPECT_EQ(Hex(got), Hex(want));
  EXPECT_EQ(DecodeAs<Desc>(2, want), SingleDesc());
  EXPECT_EQ(DecodeAs<Desc>(3, want), SingleDesc());
}

TEST(ArchiveMetaGolden, DescWithoutNamesKeepsTheCount) {
  Desc d = SingleDesc();
  d.names.clear();
  const std::vector<uint8_t> want = Cat({
      {0x00, 0x00, 0x00, 0x24},  // length 36
      {0x00, 0x00, 0x00, 0x01},  // TYPE_DESC
      {0x3d, 0x40, 0x00, 0x01},  // PMID
      {0x00, 0x00, 0x00, 0x03},  // type
      {0xff, 0xff, 0xff, 0xff},  // indom
      {0x00, 0x00, 0x00, 0x01},  // sem
      {0x1f, 0x01, 0x30, 0x00},  // units
      {0x00, 0x00, 0x00, 0x00},  // no names: the count is still written
      {0x00, 0x00, 0x00, 0x24},  // length again
  });
  std::vector<uint8_t> got;
  ASSERT_OK(EncodeDesc(d, &got));
  EXPECT_EQ(Hex(got), Hex(want));
  EXPECT_EQ(DecodeAs<Desc>(3, want), d);
}

TEST(ArchiveMetaGolden, DescWithTwoNames) {
  Desc d = SingleDesc();
  d.names = {"a.b", "c"};
  const std::vector<uint8_t> want = Cat({
      {0x00, 0x00, 0x00, 0x30},  // length 48
      {0x00, 0x00, 0x00, 0x01},  // TYPE_DESC
      {0x3d, 0x40, 0x00, 0x01},  // PMID
      {0x00, 0x00, 0x00, 0x03},  // type
      {0xff, 0xff, 0xff, 0xff},  // indom
      {0x00, 0x00, 0x00, 0x01},  // sem
      {0x1f, 0x01, 0x30, 0x00},  // units
      {0x00, 0x00, 0x00, 0x02},  // two names
      {0x00, 0x00, 0x00, 0x03},  // 3 bytes
      Bytes("a.b"),              //
      {0x00, 0x00, 0x00, 0x01},  // 1 byte
      Bytes("c"),                //
      {0x00, 0x00, 0x00, 0x30},  // length again
  });
  std::vector<uint8_t> got;
  ASSERT_OK(EncodeDesc(d, &got));
  EXPECT_EQ(Hex(got), Hex(want));
  EXPECT_EQ(DecodeAs<Desc>(2, want), d);
}

TEST(ArchiveMetaGolden, InDomV2) {
  const std::vector<uint8_t> want = Cat({
      {0x00, 0x00, 0x00, 0x3a},  // length 58
      {0x00, 0x00, 0x00, 0x02},  // TYPE_INDOM_V2
      {0x65, 0x53, 0xf1, 0x00},  // seconds 1700000000
      {0x00, 0x03, 0xd0, 0x90},  // microseconds 250000
      {0x3d, 0x40, 0x00, 0x01},  // indom 245.1
      {0x00, 0x00, 0x00, 0x02},  // 2 instances
      {0x00, 0x00, 0x00, 0x00},  // instance 0
      {0x00, 0x00, 0x00, 0x01},  // instance 1
      {0x00, 0x00, 0x00, 0x00},  // "red" at string offset 0
      {0x00, 0x00, 0x00, 0x04},  // "green one" at string offset 4
      Bytes(std::string("red\0green one\0", 14)),
      {0x00, 0x00, 0x00, 0x3a},  // length again
  });
  EXPECT_EQ(want.size(), kFrameOverhead + kInDomV2Header + 2 * 8 + 14);
  std::vector<uint8_t> got;
  ASSERT_OK(EncodeInDom(2, RedGreen(), &got));
  EXPECT_EQ(Hex(got), Hex(want));
  EXPECT_EQ(DecodeAs<InDom>(2, want), RedGreen());
}

TEST(ArchiveMetaGolden, InDomV3) {
  const std::vector<uint8_t> want = Cat({
      {0x00, 0x00, 0x00, 0x3e},  // length 62
      {0x00, 0x00, 0x00, 0x05},  // TYPE_INDOM
      {0x65, 0x53, 0xf1, 0x00},  // seconds, low 32 bits (yes, first)
      {0x00, 0x00, 0x00, 0x00},  // seconds, high 32 bits
      {0x0e, 0xe6, 0xb2, 0x80},  // nanoseconds 250000000
      {0x3d, 0x40, 0x00, 0x01},  // indom 245.1
      {0x00, 0x00, 0x00, 0x02},  // 2 instances
      {0x00, 0x00, 0x00, 0x00},  // instance 0
      {0x00, 0x00, 0x00, 0x01},  // instance 1
      {0x00, 0x00, 0x00, 0x00},  // string offset 0
      {0x00, 0x00, 0x00, 0x04},  // string offset 4
      Bytes(std::string("red\0green one\0", 14)),
      {0x00, 0x00, 0x00, 0x3e},  // length again
  });
  EXPECT_EQ(want.size(), kFrameOverhead + kInDomV3Header + 2 * 8 + 14);
  std::vector<uint8_t> got;
  ASSERT_OK(EncodeInDom(3, RedGreen(), &got));
  EXPECT_EQ(Hex(got), Hex(want));
  EXPECT_EQ(DecodeAs<InDom>(3, want), RedGreen());
}

TEST(ArchiveMetaGolden, InDomDeltaV3) {
  InDom d;
  d.timestamp = {1700000001, 500000000};
  d.indom = kIndom;
  d.delta = true;
  d.instances = {{1, "", true}, {7, "seven"}};
  const std::vector<uint8_t> want = Cat({
      {0x00, 0x00, 0x00, 0x36},  // length 54
      {0x00, 0x00, 0x00, 0x06},  // TYPE_INDOM_DELTA
      {0x65, 0x53, 0xf1, 0x01},  // seconds 1700000001, low word
      {0x00, 0x00, 0x00, 0x00},  // high word
      {0x1d, 0xcd, 0x65, 0x00},  // nanoseconds 500000000
      {0x3d, 0x40, 0x00, 0x01},  // indom
      {0x00, 0x00, 0x00, 0x02},  // 1 deleted + 1 added
      {0x00, 0x00, 0x00, 0x01},  // instance 1 (still positive)
      {0x00, 0x00, 0x00, 0x07},  // instance 7
      {0xff, 0xff, 0xff, 0xff},  // deleted: string offset -1
      {0x00, 0x00, 0x00, 0x00},  // "seven" at offset 0
      Bytes(std::string("seven\0", 6)),
      {0x00, 0x00, 0x00, 0x36},  // length again
  });
  std::vector<uint8_t> got;
  ASSERT_OK(EncodeInDom(3, d, &got));
  EXPECT_EQ(Hex(got), Hex(want));
  EXPECT_EQ(DecodeAs<InDom>(3, want), d);
}

TEST(ArchiveMetaGolden, InDomWithoutInstances) {
  InDom d;
  d.timestamp = kWhen;
  d.indom = kIndom;
  const std::vector<uint8_t> want = Cat({
      {0x00, 0x00, 0x00, 0x1c},  // length 28
      {0x00, 0x00, 0x00, 0x02},  // TYPE_INDOM_V2
      {0x65, 0x53, 0xf1, 0x00},  // seconds
      {0x00, 0x03, 0xd0, 0x90},  // microseconds
      {0x3d, 0x40, 0x00, 0x01},  // indom
      {0x00, 0x00, 0x00, 0x00},  // no instances, no string table
      {0x00, 0x00, 0x00, 0x1c},  // length again
  });
  std::vector<uint8_t> got;
  ASSERT_OK(EncodeInDom(2, d, &got));
  EXPECT_EQ(Hex(got), Hex(want));
  EXPECT_EQ(DecodeAs<InDom>(2, want), d);
}

LabelRecord DomainLabels() {
  LabelRecord r;
  r.timestamp = kWhen;
  r.type = kLabelDomain;
  r.ident = 245;
  absl::StatusOr<LabelSet> set =
      MakeLabelSet(kInNull, R"({"agent":"mmv"})", kLabelDomain);
  EXPECT_THAT(set, IsOk());
  if (set.ok()) r.sets.push_back(*set);
  return r;
}

TEST(ArchiveMetaGolden, LabelV2) {
  const std::vector<uint8_t> want = Cat({
      {0x00, 0x00, 0x00, 0x43},  // length 67
      {0x00, 0x00, 0x00, 0x03},  // TYPE_LABEL_V2
      {0x65, 0x53, 0xf1, 0x00},  // seconds
      {0x00, 0x03, 0xd0, 0x90},  // microseconds
      {0x00, 0x00, 0x00, 0x02},  // PM_LABEL_DOMAIN
      {0x00, 0x00, 0x00, 0xf5},  // ident: domain 245
      {0x00, 0x00, 0x00, 0x01},  // one label set
      {0xff, 0xff, 0xff, 0xff},  //   inst PM_IN_NULL
      {0x00, 0x00, 0x00, 0x0f},  //   json of 15 bytes
      Bytes(R"({"agent":"mmv"})"),
      {0x00, 0x00, 0x00, 0x01},  //   one label
      {0x00, 0x02},              //     name at 2 ...
      {0x05},                    //     ... 5 bytes (agent, no quotes)
      {0x02},                    //     flags: PM_LABEL_DOMAIN
      {0x00, 0x09},              //     value at 9 ...
      {0x00, 0x05},              //     ... 5 bytes ("mmv" with quotes)
      {0x00, 0x00, 0x00, 0x43},  // length again
  });
  EXPECT_EQ(want.size(), kFrameOverhead + kLabelV2Header + kLabelSetFixed + 15 +
                             kLabelEntrySize);
  std::vector<uint8_t> got;
  ASSERT_OK(EncodeLabelRecord(2, DomainLabels(), &got));
  EXPECT_EQ(Hex(got), Hex(want));
  EXPECT_EQ(DecodeAs<LabelRecord>(2, want), DomainLabels());
}

TEST(ArchiveMetaGolden, LabelV3InstancesInOneRecord) {
  // pmlogger's form: every instance's set in one record. The "b" label is
  // optional (flags 0x80 | 0x20).
  LabelRecord r;
  r.timestamp = kWhen;
  r.type = kLabelInstances;
  r.ident = kIndom;
  r.sets.push_back({0, R"({"colour":"red"})", {{2, 6, 0x20, 10, 5}}});
  r.sets.push_back({1,
                    R"({"b":null,"colour":"green"})",
                    {{2, 1, 0xa0, 5, 4}, {11, 6, 0x20, 19, 7}}});
  const std::vector<uint8_t> want = Cat({
      {0x00, 0x00, 0x00, 0x7f},  // length 127
      {0x00, 0x00, 0x00, 0x07},  // TYPE_LABEL
      {0x65, 0x53, 0xf1, 0x00},  // seconds, low word
      {0x00, 0x00, 0x00, 0x00},  // seconds, high word
      {0x0e, 0xe6, 0xb2, 0x80},  // nanoseconds
      {0x00, 0x00, 0x00, 0x20},  // PM_LABEL_INSTANCES
      {0x3d, 0x40, 0x00, 0x01},  // ident: indom 245.1
      {0x00, 0x00, 0x00, 0x02},  // two sets
      {0x00, 0x00, 0x00, 0x00},  //   inst 0
      {0x00, 0x00, 0x00, 0x10},  //   json of 16 bytes
      Bytes(R"({"colour":"red"})"),
      {0x00, 0x00, 0x00, 0x01},  //   one label
      {0x00, 0x02, 0x06, 0x20},  //     name 2+6, flags instances
      {0x00, 0x0a, 0x00, 0x05},  //     value 10+5
      {0x00, 0x00, 0x00, 0x01},  //   inst 1
      {0x00, 0x00, 0x00, 0x1b},  //   json of 27 bytes
      Bytes(R"({"b":null,"colour":"green"})"),
      {0x00, 0x00, 0x00, 0x02},  //   two labels
      {0x00, 0x02, 0x01, 0xa0},  //     name 2+1, flags optional|instances
      {0x00, 0x05, 0x00, 0x04},  //     value 5+4
      {0x00, 0x0b, 0x06, 0x20},  //     name 11+6, flags instances
      {0x00, 0x13, 0x00, 0x07},  //     value 19+7
      {0x00, 0x00, 0x00, 0x7f},  // length again
  });
  EXPECT_EQ(want.size(), kFrameOverhead + kLabelV3Header + 2 * kLabelSetFixed +
                             16 + 27 + 3 * kLabelEntrySize);
  std::vector<uint8_t> got;
  ASSERT_OK(EncodeLabelRecord(3, r, &got));
  EXPECT_EQ(Hex(got), Hex(want));
  EXPECT_EQ(DecodeAs<LabelRecord>(3, want), r);
}

TEST(ArchiveMetaGolden, LabelSetWithErrorCode) {
  LabelRecord r;
  r.timestamp = kWhen;
  r.type = kLabelInstances;
  r.ident = kIndom;
  r.sets.push_back({3, "", {}, -12345});
  const std::vector<uint8_t> want = Cat({
      {0x00, 0x00, 0x00, 0x2c},  // length 44
      {0x00, 0x00, 0x00, 0x03},  // TYPE_LABEL_V2
      {0x65, 0x53, 0xf1, 0x00},  // seconds
      {0x00, 0x03, 0xd0, 0x90},  // microseconds
      {0x00, 0x00, 0x00, 0x20},  // instances
      {0x3d, 0x40, 0x00, 0x01},  // indom
      {0x00, 0x00, 0x00, 0x01},  // one set
      {0x00, 0x00, 0x00, 0x03},  //   inst 3
      {0x00, 0x00, 0x00, 0x00},  //   no json
      {0xff, 0xff, 0xcf, 0xc7},  //   label count -12345: an error code
      {0x00, 0x00, 0x00, 0x2c},  // length again
  });
  std::vector<uint8_t> got;
  ASSERT_OK(EncodeLabelRecord(2, r, &got));
  EXPECT_EQ(Hex(got), Hex(want));
  EXPECT_EQ(DecodeAs<LabelRecord>(2, want), r);
}

TEST(ArchiveMetaGolden, HelpText) {
  const HelpText t{kTextOneLine | kTextPmid, kPmidSingle, "one line"};
  const std::vector<uint8_t> want = Cat({
      {0x00, 0x00, 0x00, 0x1d},             // length 29
      {0x00, 0x00, 0x00, 0x04},             // TYPE_TEXT
      {0x00, 0x00, 0x00, 0x05},             // PM_TEXT_ONELINE | PM_TEXT_PMID
      {0x3d, 0x40, 0x00, 0x01},             // PMID 245.0.1
      Bytes(std::string("one line\0", 9)),  // with its NUL
      {0x00, 0x00, 0x00, 0x1d},             // length again
  });
  EXPECT_EQ(want.size(), kFrameOverhead + kTextHeader + 9);
  std::vector<uint8_t> got;
  ASSERT_OK(EncodeHelpText(t, &got));
  EXPECT_EQ(Hex(got), Hex(want));
  EXPECT_EQ(DecodeAs<HelpText>(2, want), t);
  EXPECT_EQ(DecodeAs<HelpText>(3, want), t);
}

TEST(ArchiveMetaGolden, EncodersAppend) {
  std::vector<uint8_t> out = {0xaa};
  ASSERT_OK(EncodeHelpText({kTextHelp | kTextIndom, kIndom, ""}, &out));
  ASSERT_OK(EncodeHelpText({kTextHelp | kTextIndom, kIndom, "x"}, &out));
  EXPECT_EQ(out.size(), 1u + 21 + 22);
  EXPECT_EQ(out[0], 0xaa);
}

// ---------------------------------------------------------------------------
// What PCP reads that LOGARCHIVE(5) does not say

TEST(ArchiveMetaDecode, TagDecidesTheLayoutNotTheArchiveVersion) {
  // libpcp decodes a v2 record in a v3 archive (and the reverse) by its tag.
  std::vector<uint8_t> v2;
  ASSERT_OK(EncodeInDom(2, RedGreen(), &v2));
  EXPECT_EQ(DecodeAs<InDom>(3, v2), RedGreen());
  std::vector<uint8_t> v3;
  ASSERT_OK(EncodeLabelRecord(3, DomainLabels(), &v3));
  EXPECT_EQ(DecodeAs<LabelRecord>(2, v3), DomainLabels());
}

TEST(ArchiveMetaDecode, V2TimestampsKeepMicroseconds) {
  InDom d = RedGreen();
  d.timestamp.nsec = 250000999;
  std::vector<uint8_t> rec;
  ASSERT_OK(EncodeInDom(2, d, &rec));
  EXPECT_EQ(DecodeAs<InDom>(2, rec).timestamp,
            (Timestamp{1700000000, 250000000}));
}

TEST(ArchiveMetaDecode, V3SecondsBeyond32Bits) {
  InDom d = RedGreen();
  d.timestamp = {0x123456789aLL, 1};
  std::vector<uint8_t> rec;
  ASSERT_OK(EncodeInDom(3, d, &rec));
  // Low word first, then the high word.
  EXPECT_EQ(Hex(std::span(rec).subspan(8, 8)),
            Hex(std::vector<uint8_t>{0x34, 0x56, 0x78, 0x9a, 0, 0, 0, 0x12}));
  EXPECT_EQ(DecodeAs<InDom>(3, rec), d);
  d.timestamp.sec = -1;
  rec.clear();
  ASSERT_OK(EncodeInDom(3, d, &rec));
  EXPECT_EQ(DecodeAs<InDom>(3, rec), d);
}

TEST(ArchiveMetaDecode, StringTableMayHoldUnusedBytesAndSharedNames) {
  // libpcp only follows the offsets; names may be shared or bytes unused.
  const std::vector<uint8_t> payload = Cat({
      {0x00, 0x00, 0x00, 0x02},  // TYPE_INDOM_V2
      {0x65, 0x53, 0xf1, 0x00},  // seconds
      {0x00, 0x00, 0x00, 0x00},  // microseconds
      {0x3d, 0x40, 0x00, 0x01},  // indom
      {0x00, 0x00, 0x00, 0x02},  // 2 instances
      {0x00, 0x00, 0x00, 0x04},  // 4
      {0x00, 0x00, 0x00, 0x05},  // 5
      {0x00, 0x00, 0x00, 0x02},  // offset 2
      {0x00, 0x00, 0x00, 0x02},  // offset 2 again
      Bytes(std::string("xxab\0yy", 7)),
  });
  absl::StatusOr<MetaRecord> rec = DecodeMetaRecord(2, payload, kAt);
  ASSERT_OK(rec);
  const InDom& d = std::get<InDom>(*rec);
  ASSERT_EQ(d.instances.size(), 2u);
  EXPECT_EQ(d.instances[0], (InDomInstance{4, "ab"}));
  EXPECT_EQ(d.instances[1], (InDomInstance{5, "ab"}));
}

// ---------------------------------------------------------------------------
// Encoder errors

TEST(ArchiveMetaEncode, RejectsWhatCannotBeRepresented) {
  std::vector<uint8_t> out;
  InDom delta = RedGreen();
  delta.delta = true;
  EXPECT_THAT(EncodeInDom(2, delta, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("v3")));
  EXPECT_THAT(
      EncodeInDom(4, RedGreen(), &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("version 4")));
  InDom d = RedGreen();
  d.instances[1].inst = -2;
  EXPECT_THAT(EncodeInDom(3, d, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("negative id -2")));
  d = RedGreen();
  d.instances[0].deleted = true;
  EXPECT_THAT(
      EncodeInDom(3, d, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("deleted")));
  d = RedGreen();
  d.instances[0].name = std::string("a\0b", 3);
  EXPECT_THAT(EncodeInDom(3, d, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NUL")));
  d = RedGreen();
  d.timestamp.sec = int64_t{1} << 31;
  EXPECT_THAT(EncodeInDom(2, d, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("does not fit a v2 archive")));
  d.timestamp = {1, 1000000000};
  EXPECT_THAT(
      EncodeInDom(3, d, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nanoseconds")));

  Desc desc = SingleDesc();
  desc.names.push_back("");
  EXPECT_THAT(
      EncodeDesc(desc, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("desc name 1")));

  EXPECT_THAT(
      EncodeHelpText({kTextPmid, 1, "x"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("text type 0x4")));
  EXPECT_THAT(
      EncodeHelpText({kTextOneLine | kTextHelp | kTextPmid, 1, "x"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("text type")));
  EXPECT_THAT(EncodeHelpText(
                  {kTextOneLine | kTextPmid, 1, std::string("a\0", 2)}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NUL")));

  LabelRecord r = DomainLabels();
  r.type = kLabelOptional;
  EXPECT_THAT(EncodeLabelRecord(3, r, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("label type 0x80")));
  r = DomainLabels();
  r.sets[0].labels[0].value_length = 7;  // one byte past the json
  EXPECT_THAT(EncodeLabelRecord(3, r, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("outside the 15-byte json")));
  r = DomainLabels();
  r.sets[0].json = std::string(kMaxLabelJsonLength + 1, 'x');
  r.sets[0].labels.clear();
  EXPECT_THAT(
      EncodeLabelRecord(3, r, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("exceeds 65535")));
  r = DomainLabels();
  r.sets[0].labels.assign(kMaxLabels + 1, LabelEntry{});
  EXPECT_THAT(EncodeLabelRecord(3, r, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("256 labels exceed 255")));
  r = DomainLabels();
  r.sets[0].error = -1;
  EXPECT_THAT(EncodeLabelRecord(3, r, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("without labels")));
  EXPECT_TRUE(out.empty()) << "failed encoders must append nothing";
}

TEST(ArchiveMetaEncode, LargestLabelSetFits) {
  LabelRecord r = DomainLabels();
  r.sets[0].json = std::string(kMaxLabelJsonLength, 'x');
  r.sets[0].labels.assign(kMaxLabels, LabelEntry{0xffff, 0, 0, 0, 0xffff});
  std::vector<uint8_t> out;
  ASSERT_OK(EncodeLabelRecord(3, r, &out));
  EXPECT_EQ(DecodeAs<LabelRecord>(3, out), r);
}

// ---------------------------------------------------------------------------
// Round trips: boundary values and a seeded random sweep

TEST(ArchiveMetaRoundTrip, BoundaryValues) {
  std::vector<MetaRecord> records;
  Desc d;
  d.pmid = 0xffffffff;
  d.type = kTypeNoSupport;
  d.indom = 0;
  d.sem = -7;
  d.units = 0xffffffff;
  d.names = {std::string(1000, 'n'), "x"};
  records.push_back(d);
  InDom big;
  big.timestamp = {std::numeric_limits<int32_t>::min(), 999999000};
  big.indom = 0xffffffff;
  for (int i = 0; i < 300; ++i) {
    big.instances.push_back(
        {i == 0 ? INT32_MAX : i, std::string(i, 'a' + i % 26)});
  }
  records.push_back(big);
  records.push_back(
      HelpText{kTextHelp | kTextIndom, 0xffffffff, std::string(70000, 'h')});
  LabelRecord empty;
  empty.type = kLabelContext;
  empty.ident = kLabelContextIdent;
  records.push_back(empty);
  for (int version : {2, 3}) {
    for (const MetaRecord& want : records) {
      std::vector<uint8_t> bytes;
      absl::Status s = std::visit(
          [&](const auto& r) -> absl::Status {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, Desc>) return EncodeDesc(r, &bytes);
            if constexpr (std::is_same_v<T, InDom>) {
              return EncodeInDom(version, r, &bytes);
            }
            if constexpr (std::is_same_v<T, LabelRecord>) {
              return EncodeLabelRecord(version, r, &bytes);
            }
            if constexpr (std::is_same_v<T, HelpText>) {
              return EncodeHelpText(r, &bytes);
            }
          },
          want);
      ASSERT_OK(s);
      absl::StatusOr<MetaRecord> got =
          DecodeMetaRecord(version, Payload(bytes), kAt);
      ASSERT_OK(got);
      EXPECT_TRUE(*got == want)
          << "version " << version << " index " << want.index();
    }
  }
}

class RandomRecords {
 public:
  explicit RandomRecords(uint32_t seed) : rng_(seed) {}

  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  uint32_t U32() { return static_cast<uint32_t>(rng_()); }
  std::string Text(int max) {
    std::string s(Int(0, max), 'x');
    for (char& c : s) c = static_cast<char>(Int(1, 255));  // anything but NUL
    return s;
  }
  Timestamp When(bool v3) {
    Timestamp t;
    t.sec = v3 ? static_cast<int64_t>((uint64_t{U32()} << 32) | U32())
               : static_cast<int32_t>(U32());
    t.nsec = Int(0, 999999999);
    if (!v3) t.nsec -= t.nsec % 1000;
    return t;
  }

  MetaRecord Any(bool v3) {
    switch (Int(0, 3)) {
      case 0: {
        Desc d;
        d.pmid = U32();
        d.type = static_cast<int32_t>(U32());
        d.indom = U32();
        d.sem = static_cast<int32_t>(U32());
        d.units = U32();
        for (int n = Int(0, 3); n > 0; --n) d.names.push_back("m" + Text(20));
        return d;
      }
      case 1: {
        InDom d;
        d.timestamp = When(v3);
        d.indom = U32();
        d.delta = v3 && Int(0, 1) == 1;
        for (int n = Int(0, 20); n > 0; --n) {
          InDomInstance inst;
          inst.inst = Int(0, INT32_MAX);
          inst.deleted = d.delta && Int(0, 2) == 0;
          if (!inst.deleted) inst.name = Text(30);
          d.instances.push_back(inst);
        }
        return d;
      }
      case 2: {
        LabelRecord r;
        r.timestamp = When(v3);
        r.type = 1u << Int(0, 5);
        r.ident = U32();
        for (int n = Int(0, 4); n > 0; --n) {
          LabelSet set;
          set.inst = static_cast<int32_t>(U32());
          set.json = Text(60);
          if (Int(0, 9) == 0) {
            set.error = -Int(1, 100000);
          } else {
            for (int k = Int(0, 5); k > 0; --k) {
              LabelEntry l;
              const int size = static_cast<int>(set.json.size());
              l.name_offset = Int(0, size);
              l.name_length = Int(0, std::min(255, size - l.name_offset));
              l.flags = Int(0, 255);
              l.value_offset = Int(0, size);
              l.value_length = Int(0, size - l.value_offset);
              set.labels.push_back(l);
            }
          }
          r.sets.push_back(set);
        }
        return r;
      }
      default:
        return HelpText{
            static_cast<uint32_t>(Int(0, 1) ? kTextOneLine : kTextHelp) |
                (Int(0, 1) ? kTextPmid : kTextIndom),
            U32(), Text(100)};
    }
  }

 private:
  std::mt19937 rng_;
};

absl::Status Encode(int version, const MetaRecord& rec,
                    std::vector<uint8_t>* out) {
  if (const auto* d = std::get_if<Desc>(&rec)) return EncodeDesc(*d, out);
  if (const auto* i = std::get_if<InDom>(&rec))
    return EncodeInDom(version, *i, out);
  if (const auto* l = std::get_if<LabelRecord>(&rec)) {
    return EncodeLabelRecord(version, *l, out);
  }
  return EncodeHelpText(std::get<HelpText>(rec), out);
}

TEST(ArchiveMetaRoundTrip, SeededRandomSweep) {
  RandomRecords random(20240607);
  for (int i = 0; i < 4000; ++i) {
    const int version = i % 2 ? 3 : 2;
    const MetaRecord want = random.Any(version == 3);
    std::vector<uint8_t> bytes;
    ASSERT_OK(Encode(version, want, &bytes)) << "record " << i;
    absl::StatusOr<MetaRecord> got =
        DecodeMetaRecord(version, Payload(bytes), kAt);
    ASSERT_OK(got) << "record " << i;
    ASSERT_TRUE(*got == want) << "record " << i << ": " << Hex(bytes);
  }
}

// ---------------------------------------------------------------------------
// Tests of all the error paths in DecodeMetaRecord follow.

// One valid record of every kind, as payloads.
std::vector<std::pair<int, std::vector<uint8_t>>> SampleRecords() {
  std::vector<std::pair<int, std::vector<uint8_t>>> out;
  for (int version : {2, 3}) {
    std::vector<uint8_t> r;
    EXPECT_OK(EncodeDesc(SingleDesc(), &r));
    out.emplace_back(version, Payload(r));
    r.clear();
    EXPECT_OK(EncodeInDom(version, RedGreen(), &r));
    out.emplace_back(version, Payload(r));
    r.clear();
    LabelRecord labels = DomainLabels();
    labels.sets.push_back(labels.sets[0]);
    labels.sets.back().labels[0].flags |= kLabelOptional;
    EXPECT_OK(EncodeLabelRecord(version, labels, &r));
    out.emplace_back(version, Payload(r));
    r.clear();
    EXPECT_OK(
        EncodeHelpText({kTextHelp | kTextIndom, kIndom, "help\ntext"}, &r));
    out.emplace_back(version, Payload(r));
  }
  std::vector<uint8_t> r;
  InDom delta = RedGreen();
  delta.delta = true;
  delta.instances.push_back({9, "", true});
  EXPECT_OK(EncodeInDom(3, delta, &r));
  out.emplace_back(3, Payload(r));
  return out;
}

TEST(ArchiveMetaDamage, EveryTruncationIsDataLossWithOffsets) {
  for (const auto& [version, payload] : SampleRecords()) {
    ASSERT_OK(DecodeMetaRecord(version, payload, kAt));
    for (size_t n = 0; n < payload.size(); ++n) {
      absl::StatusOr<MetaRecord> rec =
          DecodeMetaRecord(version, std::span(payload).first(n), kAt);
      EXPECT_THAT(rec, StatusIs(absl::StatusCode::kDataLoss,
                                AllOf(HasSubstr("record at offset 1000: "),
                                      HasSubstr("offset 10"))))
          << "tag " << int{payload[3]} << " cut to " << n;
    }
  }
}

TEST(ArchiveMetaDamage, TrailingBytesAreDataLoss) {
  for (const auto& [version, payload] : SampleRecords()) {
    const uint8_t tag = payload[3];
    // An indom's string table is whatever follows the offsets, so a longer
    // one is still a valid record.
    if (tag == 2 || tag == 5 || tag == 6) continue;
    std::vector<uint8_t> longer = payload;
    longer.push_back(0);
    const std::string where = absl::StrCat("offset ", kAt + 4 + payload.size());
    EXPECT_THAT(
        DecodeMetaRecord(version, longer, kAt),
        StatusIs(absl::StatusCode::kDataLoss,
                 AllOf(HasSubstr(where), HasSubstr("unexpected bytes"))))
        << "tag " << int{tag};
  }
}

TEST(ArchiveMetaDamage, EveryByteFlipDecodesOrFailsCleanly) {
  // No crash, no sanitizer report, and any failure is DataLoss.
  for (const auto& [version, payload] : SampleRecords()) {
    for (size_t i = 0; i < payload.size(); ++i) {
      for (uint8_t flip : {0x01, 0x80, 0xff}) {
        std::vector<uint8_t> bad = payload;
        bad[i] ^= flip;
        absl::StatusOr<MetaRecord> rec = DecodeMetaRecord(version, bad, kAt);
        if (!rec.ok()) {
          EXPECT_EQ(rec.status().code(), absl::StatusCode::kDataLoss)
              << rec.status();
        }
      }
    }
  }
}

// Replaces the big-endian word at payload offset `at`.
std::vector<uint8_t> With32(std::vector<uint8_t> payload, size_t at,
                            uint32_t v) {
  payload[at] = v >> 24;
  payload[at + 1] = v >> 16;
  payload[at + 2] = v >> 8;
  payload[at + 3] = v;
  return payload;
}

std::vector<uint8_t> PayloadOf(absl::Status (*encode)(std::vector<uint8_t>*)) {
  std::vector<uint8_t> r;
  EXPECT_OK(encode(&r));
  return Payload(r);
}

TEST(ArchiveMetaDamage, UnknownTagIsDataLossNamingIt) {
  EXPECT_THAT(DecodeMetaRecord(3, std::vector<uint8_t>{0, 0, 0, 8, 1, 2}, kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("meta record at offset 1000: offset 1004: "
                                 "unknown record type 8")));
  EXPECT_THAT(DecodeMetaRecord(2, std::vector<uint8_t>{}, kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1004: need 4 bytes, only 0 left")));
}

TEST(ArchiveMetaDamage, BadVersionIsInvalidArgument) {
  EXPECT_THAT(
      DecodeMetaRecord(1, std::vector<uint8_t>{0, 0, 0, 1}, kAt),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("version 1")));
}

TEST(ArchiveMetaDamage, DescCounts) {
  const std::vector<uint8_t> p = PayloadOf(
      [](std::vector<uint8_t>* o) { return EncodeDesc(SingleDesc(), o); });
  // numnames at payload offset 24, the first name's length at 28.
  EXPECT_THAT(DecodeMetaRecord(3, With32(p, 24, 0x7fffffff), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1028: name count 2147483647")));
  EXPECT_THAT(
      DecodeMetaRecord(3, With32(p, 24, 0xffffffff), kAt),
      StatusIs(absl::StatusCode::kDataLoss, HasSubstr("name count -1")));
  EXPECT_THAT(DecodeMetaRecord(3, With32(p, 28, 12), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1032: name 0: length 12")));
  EXPECT_THAT(
      DecodeMetaRecord(3, With32(p, 28, 0x80000000), kAt),
      StatusIs(absl::StatusCode::kDataLoss, HasSubstr("length -2147483648")));
  // A NUL inside a name ends it, as libpcp reads names (C strings).
  std::vector<uint8_t> nul = p;
  nul[33] = 0;
  absl::StatusOr<MetaRecord> cut = DecodeMetaRecord(3, nul, kAt);
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_EQ(std::get<Desc>(*cut).names, std::vector<std::string>{"t"});
}

TEST(ArchiveMetaDamage, InDomContents) {
  const std::vector<uint8_t> v3 = PayloadOf(
      [](std::vector<uint8_t>* o) { return EncodeInDom(3, RedGreen(), o); });
  // v3 payload: tag 0, sec 4, nsec 12, indom 16, numinst 20, insts 24 and
  // 28, offsets 32 and 36, strings from 40.
  EXPECT_THAT(DecodeMetaRecord(3, With32(v3, 12, 1000000000), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1016: timestamp nanoseconds")));
  EXPECT_THAT(
      DecodeMetaRecord(3, With32(v3, 20, 4), kAt),
      StatusIs(absl::StatusCode::kDataLoss,
               HasSubstr("offset 1024: instance count 4 does not fit")));
  EXPECT_THAT(
      DecodeMetaRecord(3, With32(v3, 20, 0xffffffff), kAt),
      StatusIs(absl::StatusCode::kDataLoss, HasSubstr("instance count -1")));
  EXPECT_THAT(DecodeMetaRecord(3, With32(v3, 28, 0xfffffffe), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1032: instance 1: negative id -2")));
  EXPECT_THAT(DecodeMetaRecord(3, With32(v3, 36, 14), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1040: instance 1: string offset 14 "
                                 "outside the 14-byte string table")));
  // -1 means "deleted" only in a delta record.
  EXPECT_THAT(DecodeMetaRecord(3, With32(v3, 32, 0xffffffff), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1036: instance 0: string offset -1")));
  std::vector<uint8_t> no_nul = v3;
  no_nul.back() = 'x';
  EXPECT_THAT(
      DecodeMetaRecord(3, no_nul, kAt),
      StatusIs(absl::StatusCode::kDataLoss,
               HasSubstr("instance 1: name at string offset 4 has no NUL")));
  const std::vector<uint8_t> v2 = PayloadOf(
      [](std::vector<uint8_t>* o) { return EncodeInDom(2, RedGreen(), o); });
  EXPECT_THAT(
      DecodeMetaRecord(2, With32(v2, 8, 1000000), kAt),
      StatusIs(absl::StatusCode::kDataLoss,
               HasSubstr("offset 1012: timestamp microseconds 1000000")));
}

TEST(ArchiveMetaDamage, LabelContents) {
  const std::vector<uint8_t> p = PayloadOf([](std::vector<uint8_t>* o) {
    return EncodeLabelRecord(3, DomainLabels(), o);
  });
  // v3 payload: tag 0, sec 4, nsec 12, type 16, ident 20, nsets 24, then the
  // set: inst 28, jsonlen 32, json 36..50, nlabels 51, entry 55..62.
  EXPECT_THAT(DecodeMetaRecord(3, With32(p, 16, 0x40), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1020: label type 0x40")));
  EXPECT_THAT(DecodeMetaRecord(3, With32(p, 24, 0xffffffff), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1028: label set count -1")));
  EXPECT_THAT(DecodeMetaRecord(3, With32(p, 24, 3), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("label set count 3 does not fit")));
  EXPECT_THAT(
      DecodeMetaRecord(3, With32(p, 32, 0x10000), kAt),
      StatusIs(absl::StatusCode::kDataLoss,
               HasSubstr("offset 1036: label set 0: json length 65536")));
  EXPECT_THAT(
      DecodeMetaRecord(3, With32(p, 32, 0xffffffff), kAt),
      StatusIs(absl::StatusCode::kDataLoss, HasSubstr("json length -1")));
  EXPECT_THAT(DecodeMetaRecord(3, With32(p, 51, 256), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1055: label set 0: label count 256")));
  EXPECT_THAT(DecodeMetaRecord(3, With32(p, 51, 2), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("label count 2 invalid with 8 bytes left")));
  std::vector<uint8_t> outside = p;
  outside[62] = 7;  // value length 7 from offset 9: past the 15-byte json
  EXPECT_THAT(DecodeMetaRecord(3, outside, kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1059: label set 0: label 0 (name 2+5, "
                                 "value 9+7) lies outside the 15-byte json")));
  std::vector<uint8_t> nul = p;
  nul[40] = 0;
  EXPECT_THAT(DecodeMetaRecord(3, nul, kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("label set 0: json contains NUL")));
}

TEST(ArchiveMetaDamage, TextContents) {
  const std::vector<uint8_t> p = PayloadOf([](std::vector<uint8_t>* o) {
    return EncodeHelpText({kTextOneLine | kTextPmid, 1, "abc"}, o);
  });
  EXPECT_THAT(DecodeMetaRecord(3, With32(p, 4, kTextPmid), kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1008: text type 0x4 lacks a kind")));
  EXPECT_THAT(
      DecodeMetaRecord(3, With32(p, 4, kTextHelp), kAt),
      StatusIs(absl::StatusCode::kDataLoss, HasSubstr("text type 0x2")));
  std::vector<uint8_t> no_nul = p;
  no_nul.back() = 'd';
  EXPECT_THAT(DecodeMetaRecord(3, no_nul, kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1016: text of 4 bytes has no NUL")));
  std::vector<uint8_t> early = p;
  early[13] = 0;
  EXPECT_THAT(DecodeMetaRecord(3, early, kAt),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("offset 1018: 2 unexpected bytes after")));
}

}  // namespace
}  // namespace mmvlog::format

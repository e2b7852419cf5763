// Tests of //format:byte_reader: big-endian reads, the sticky first error
// with its file offset, and Finish's check for leftover bytes.
#include "format/byte_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

using ::mmvlog::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::StrEq;

TEST(ByteReaderTest, ReadsBigEndian) {
  const std::vector<uint8_t> in = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
                                   0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
                                   0x0d, 0x0e, 0x0f, 0x10, 0xff};
  ByteReader r(in);
  EXPECT_EQ(r.ReadBig16(), 0x0102);
  EXPECT_EQ(r.ReadBig32(), 0x03040506u);
  EXPECT_EQ(r.ReadBig64(), 0x0708090a0b0c0d0eull);
  EXPECT_THAT(r.ReadBytes(2), ElementsAre(0x0f, 0x10));
  EXPECT_EQ(r.ReadU8(), 0xff);
  EXPECT_EQ(r.remaining(), 0);
  EXPECT_EQ(r.position(), in.size());
  EXPECT_OK(r.Finish());
}

TEST(ByteReaderTest, SignedReads) {
  const std::vector<uint8_t> in = {0xff, 0xff, 0xff, 0xfe, 0x80, 0,
                                   0,    0,    0,    0,    0,    0};
  ByteReader r(in);
  EXPECT_EQ(r.ReadBigI32(), -2);
  EXPECT_EQ(r.ReadBigI64(), INT64_MIN);
  EXPECT_OK(r.Finish());
}

TEST(ByteReaderTest, ReadPastEndIsOutOfRangeAtFileOffset) {
  const std::vector<uint8_t> in = {1, 2, 3, 4, 5, 6};
  ByteReader r(in, 1000);
  EXPECT_EQ(r.ReadBig32(), 0x01020304u);
  EXPECT_EQ(r.offset(), 1004);
  EXPECT_EQ(r.ReadBig32(), 0u);  // only 2 left: zero, and an error
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.status(),
              StatusIs(absl::StatusCode::kOutOfRange,
                       StrEq("offset 1004: need 4 bytes, only 2 left")));
  EXPECT_EQ(r.position(), 4);  // the failed read consumed nothing
}

TEST(ByteReaderTest, FirstErrorSticks) {
  const std::vector<uint8_t> in = {1, 2, 3};
  ByteReader r(in, 10);
  EXPECT_EQ(r.ReadBig64(), 0u);
  // Later reads fail too, even ones that would fit, and keep the first error.
  EXPECT_EQ(r.ReadU8(), 0);
  EXPECT_EQ(r.ReadBig16(), 0);
  EXPECT_TRUE(r.ReadBytes(1).empty());
  r.Skip(1);
  r.Fail("something else");
  EXPECT_EQ(r.position(), 0);
  EXPECT_THAT(r.Finish(),
              StatusIs(absl::StatusCode::kOutOfRange,
                       StrEq("offset 10: need 8 bytes, only 3 left")));
}

TEST(ByteReaderTest, FailIsDataLossAtTheCurrentOffsetAndSticks) {
  const std::vector<uint8_t> in = {1, 2, 3, 4};
  ByteReader r(in, 64);
  r.Skip(3);
  r.Fail("bad tag 7");
  r.Fail("second complaint");
  EXPECT_EQ(r.ReadU8(), 0);  // nothing more is read after a failure
  EXPECT_THAT(r.status(), StatusIs(absl::StatusCode::kDataLoss,
                                   StrEq("offset 67: bad tag 7")));
  EXPECT_THAT(r.Finish(), StatusIs(absl::StatusCode::kDataLoss,
                                   StrEq("offset 67: bad tag 7")));
}

TEST(ByteReaderTest, FinishReportsLeftoverBytes) {
  const std::vector<uint8_t> in = {1, 2, 3, 4, 5};
  ByteReader r(in, 200);
  r.ReadBig16();
  EXPECT_THAT(r.Finish(),
              StatusIs(absl::StatusCode::kDataLoss,
                       StrEq("offset 202: 3 unexpected bytes left")));
  r.Skip(3);
  EXPECT_OK(r.Finish());
}

TEST(ByteReaderTest, ZeroLengthReadsAtTheEnd) {
  const std::vector<uint8_t> in = {9};
  ByteReader r(in);
  EXPECT_TRUE(r.ReadBytes(0).empty());
  r.Skip(1);
  EXPECT_TRUE(r.ReadBytes(0).empty());
  EXPECT_OK(r.Finish());

  ByteReader empty(std::span<const uint8_t>{});
  EXPECT_OK(empty.Finish());
  EXPECT_EQ(empty.ReadU8(), 0);
  EXPECT_THAT(empty.status(),
              StatusIs(absl::StatusCode::kOutOfRange,
                       StrEq("offset 0: need 1 bytes, only 0 left")));
}

TEST(ByteReaderTest, HugeLengthDoesNotOverflow) {
  const std::vector<uint8_t> in = {1, 2};
  ByteReader r(in);
  r.ReadU8();
  EXPECT_TRUE(r.ReadBytes(SIZE_MAX).empty());
  EXPECT_THAT(r.status(), StatusIs(absl::StatusCode::kOutOfRange,
                                   ::testing::HasSubstr("offset 1: need ")));
}

}  // namespace
}  // namespace mmvlog::format

// Tests of //format/archive:archive_index: golden bytes for both versions, round
// trips, the v2 offset limit, and decoding errors.
#include "format/archive/archive_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/archive/archive_format.h"
#include "tests/format/archive_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

using ::mmvlog::format::testing::Bytes;
using ::mmvlog::format::testing::HexDump;
using ::mmvlog::format::testing::IsDataLossAt;
using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

TEST(EncodeIndexEntry, V2GoldenBytes) {
  // The second entry of a LOGIMPORT 6.0.3 v2 archive (pmdumplog -t:
  // "22:13:22.500000 0 551 820").
  IndexEntry e{{1700000002, 500'000'123}, 0, 551, 820};
  std::vector<uint8_t> out;
  ASSERT_OK(EncodeIndexEntry(2, e, &out));
  Bytes want;
  want.Be32(1700000002)  // seconds
      .Be32(500000)      // microseconds (nanoseconds truncated)
      .Be32(0)           // volume
      .Be32(551)         // .meta offset
      .Be32(820);        // volume offset
  EXPECT_EQ(HexDump(out), HexDump(want));
  EXPECT_EQ(out.size(), kIndexEntryV2);
}

TEST(EncodeIndexEntry, V3GoldenBytes) {
  IndexEntry e{{0x1'0000'0002, 999'999'999}, 3, 0x1'2345'6789, 0xab'cdef'0123};
  std::vector<uint8_t> out = {0xee};
  ASSERT_OK(EncodeIndexEntry(3, e, &out));
  Bytes want;
  want.U8(0xee)           // earlier byte, kept
      .Be32(2).Be32(1)    // seconds: low word first, then high word
      .Be32(999999999)    // nanoseconds
      .Be32(3)            // volume
      .Be64(0x123456789)  // .meta offset, 64 bits
      .Be64(0xabcdef0123);  // volume offset, 64 bits
  EXPECT_EQ(HexDump(out), HexDump(want));
  EXPECT_EQ(out.size(), 1 + kIndexEntryV3);
}

TEST(IndexEntry, RoundTripsBothVersions) {
  std::mt19937_64 rng(20240601);
  for (int i = 0; i < 500; ++i) {
    for (int version : {2, 3}) {
      IndexEntry e;
      if (version == 2) {
        e.timestamp = {static_cast<int32_t>(rng()),
                       static_cast<uint32_t>(rng() % 1'000'000) * 1000};
        e.meta_offset = rng() % (kV2MaxFileSize + 1);
        e.data_offset = rng() % (kV2MaxFileSize + 1);
      } else {
        e.timestamp = {static_cast<int64_t>(rng()),
                       static_cast<uint32_t>(rng() % 1'000'000'000)};
        e.meta_offset = rng();
        e.data_offset = rng();
      }
      e.volume = static_cast<int32_t>(rng());
      std::vector<uint8_t> out;
      ASSERT_OK(EncodeIndexEntry(version, e, &out));
      ASSERT_EQ(out.size(), IndexEntrySize(version));
      absl::StatusOr<IndexEntry> back = DecodeIndexEntry(version, out);
      ASSERT_OK(back);
      EXPECT_EQ(*back, e);
    }
  }
}

TEST(EncodeIndexEntry, V2OffsetsAboveTwoGiBAreInvalidArgument) {
  IndexEntry ok{{1, 0}, 0, kV2MaxFileSize, kV2MaxFileSize};
  std::vector<uint8_t> out;
  ASSERT_OK(EncodeIndexEntry(2, ok, &out));
  for (IndexEntry e : {IndexEntry{{1, 0}, 0, kV2MaxFileSize + 1, 0},
                       IndexEntry{{1, 0}, 0, 0, uint64_t{1} << 32}}) {
    out.clear();
    EXPECT_THAT(EncodeIndexEntry(2, e, &out),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("exceed the v2 limit 2147483647")));
    EXPECT_TRUE(out.empty());
    ASSERT_OK(EncodeIndexEntry(3, e, &out));  // fine in v3
  }
}

TEST(EncodeIndexEntry, RejectsBadInput) {
  std::vector<uint8_t> out;
  EXPECT_THAT(EncodeIndexEntry(4, IndexEntry{}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("version 4")));
  EXPECT_THAT(EncodeIndexEntry(3, IndexEntry{{0, 1'000'000'000}}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("out of range")));
  EXPECT_THAT(EncodeIndexEntry(2, IndexEntry{{int64_t{1} << 31, 0}}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("does not fit v2")));
  EXPECT_TRUE(out.empty());
}

// Tests of the error paths of DecodeIndexEntry follow.

TEST(DecodeIndexEntry, WrongSizeIsDataLoss) {
  std::vector<uint8_t> bytes(40, 0);
  for (int version : {2, 3}) {
    const size_t size = IndexEntrySize(version);
    for (size_t n = 0; n <= bytes.size(); ++n) {
      if (n == size) continue;
      SCOPED_TRACE(n);
      EXPECT_THAT(DecodeIndexEntry(version, std::span<const uint8_t>(bytes).first(n)),
                  IsDataLossAt(0, absl::StrCat("version ", version, " index entry is ",
                                               n, " bytes, expected ", size)));
    }
  }
}

TEST(DecodeIndexEntry, SubSecondOutOfRangeIsDataLoss) {
  Bytes v2;
  v2.Be32(1).Be32(1'000'000).Be32(0).Be32(0).Be32(0);
  EXPECT_THAT(DecodeIndexEntry(2, v2),
              IsDataLossAt(4, "microseconds 1000000 out of range"));
  Bytes v3;
  v3.Be64(1).Be32(1'000'000'000).Be32(0).Be64(0).Be64(0);
  EXPECT_THAT(DecodeIndexEntry(3, v3),
              IsDataLossAt(8, "nanoseconds 1000000000 out of range"));
}

TEST(DecodeIndexEntry, OtherVersionsAreUnimplemented) {
  std::vector<uint8_t> bytes(32, 0);
  EXPECT_THAT(DecodeIndexEntry(1, bytes),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("version 1")));
}

}  // namespace
}  // namespace mmvlog::format

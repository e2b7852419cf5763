// Tests of //format/archive:archive_framing: golden framing bytes, scanning, and the
// torn-tail (OutOfRange) vs damage (DataLoss) distinction.
#include "format/archive/archive_framing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "tests/format/archive_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format {
namespace {

using ::mmvlog::format::testing::Bytes;
using ::mmvlog::format::testing::HexDump;
using ::mmvlog::format::testing::IsDataLossAt;
using ::mmvlog::format::testing::IsErrorAt;
using ::mmvlog::testing::IsOk;

void ScanAll(std::span<const uint8_t> data, uint64_t base,
             std::vector<Frame>* frames) {
  RecordScanner scanner(data, base);
  for (;;) {
    absl::StatusOr<std::optional<Frame>> f = scanner.Next();
    EXPECT_THAT(f, IsOk());
    if (!f.ok() || !f->has_value()) break;
    frames->push_back(**f);
  }
}

TEST(AppendFramed, GoldenBytes) {
  std::vector<uint8_t> out = {0xaa};  // existing content is kept
  const std::vector<uint8_t> payload = {1, 2, 3};
  AppendFramed(payload, &out);
  Bytes want;
  want.U8(0xaa)     // earlier byte
      .Be32(11)     // length: 4 + 3 + 4
      .Raw({1, 2, 3})  // payload, not padded
      .Be32(11);    // length again
  EXPECT_EQ(HexDump(out), HexDump(want));
}

TEST(AppendFramed, EmptyPayloadIsEightBytes) {
  std::vector<uint8_t> out;
  AppendFramed({}, &out);
  EXPECT_EQ(HexDump(out), HexDump(Bytes().Be32(8).Be32(8)));
}

TEST(BeginEndFrame, WritesBothLengthsAroundInPlacePayload) {
  std::vector<uint8_t> out = {9, 9};
  const size_t begin = BeginFrame(&out);
  EXPECT_EQ(begin, 2u);
  out.insert(out.end(), {0x10, 0x20, 0x30, 0x40, 0x50});
  EndFrame(begin, &out);
  Bytes want;
  want.Raw({9, 9})                            // earlier bytes
      .Be32(13)                               // length
      .Raw({0x10, 0x20, 0x30, 0x40, 0x50})    // payload
      .Be32(13);                              // length again
  EXPECT_EQ(HexDump(out), HexDump(want));
}

TEST(RecordScanner, ReadsRecordsWithFileOffsets) {
  std::vector<uint8_t> data;
  AppendFramed(std::vector<uint8_t>{1}, &data);
  AppendFramed(std::vector<uint8_t>{}, &data);
  AppendFramed(std::vector<uint8_t>(100, 7), &data);
  std::vector<Frame> frames;
  ScanAll(data, 1000, &frames);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].offset, 1000u);
  EXPECT_EQ(frames[0].payload.size(), 1u);
  EXPECT_EQ(frames[0].payload[0], 1);
  EXPECT_EQ(frames[1].offset, 1009u);
  EXPECT_EQ(frames[1].payload.size(), 0u);
  EXPECT_EQ(frames[2].offset, 1017u);
  EXPECT_EQ(frames[2].size(), 108u);
  EXPECT_EQ(frames[2].payload.data(), data.data() + 21);
}

TEST(RecordScanner, EmptyDataIsCleanEnd) {
  RecordScanner scanner({}, 808);
  absl::StatusOr<std::optional<Frame>> f = scanner.Next();
  ASSERT_THAT(f, IsOk());
  EXPECT_FALSE(f->has_value());
  EXPECT_EQ(scanner.offset(), 808u);
}

TEST(RecordScanner, OffsetAdvancesPastEachRecord) {
  std::vector<uint8_t> data;
  AppendFramed(std::vector<uint8_t>(4, 0), &data);
  RecordScanner scanner(data, 132);
  EXPECT_EQ(scanner.offset(), 132u);
  ASSERT_THAT(scanner.Next(), IsOk());
  EXPECT_EQ(scanner.offset(), 144u);
}

// Tests of the error paths of RecordScanner::Next follow.

TEST(RecordScanner, TornTailIsOutOfRangeAtEveryTruncation) {
  std::vector<uint8_t> data;
  AppendFramed(std::vector<uint8_t>{1, 2, 3, 4}, &data);  // 12 bytes at 500
  const size_t first = data.size();
  AppendFramed(std::vector<uint8_t>(20, 5), &data);       // 28 bytes at 512
  for (size_t n = first + 1; n < data.size(); ++n) {
    SCOPED_TRACE(n);
    RecordScanner scanner(std::span<const uint8_t>(data).first(n), 500);
    ASSERT_THAT(scanner.Next(), IsOk());
    EXPECT_THAT(scanner.Next(),
                IsErrorAt(absl::StatusCode::kOutOfRange, 512, "torn record"));
    EXPECT_EQ(scanner.offset(), 512u);
  }
}

TEST(RecordScanner, HeaderTrailerMismatchIsDataLoss) {
  std::vector<uint8_t> data;
  AppendFramed(std::vector<uint8_t>(8, 0), &data);
  AppendFramed(std::vector<uint8_t>(8, 0), &data);
  data.back() = 17;  // second record's trailer: 16 -> 17
  RecordScanner scanner(data, 0);
  ASSERT_THAT(scanner.Next(), IsOk());
  EXPECT_THAT(scanner.Next(),
              IsDataLossAt(16, "header length 16 != trailer length 17"));
}

TEST(RecordScanner, LengthBelowEightIsDataLoss) {
  for (uint32_t length : {0u, 1u, 4u, 7u}) {
    SCOPED_TRACE(length);
    Bytes data;
    data.Be32(length).Be32(length).Be32(0);
    RecordScanner scanner(data, 40);
    EXPECT_THAT(scanner.Next(),
                IsDataLossAt(40, absl::StrCat("record length ", length, " < 8")));
  }
}

TEST(RecordScanner, HugeLengthIsTornTail) {
  Bytes data;
  data.Be32(0xffffffff).Be32(0);
  RecordScanner scanner(data, 0);
  EXPECT_THAT(scanner.Next(),
              IsErrorAt(absl::StatusCode::kOutOfRange, 0, "length 4294967295"));
}

TEST(RecordScanner, ErrorsAreSticky) {
  Bytes data;
  data.Be32(12).Be32(0).Be32(13);  // mismatch
  RecordScanner scanner(data, 0);
  EXPECT_THAT(scanner.Next(), IsDataLossAt(0, "!= trailer length 13"));
  EXPECT_THAT(scanner.Next(), IsDataLossAt(0, "!= trailer length 13"));
  EXPECT_EQ(scanner.offset(), 0u);
}

}  // namespace
}  // namespace mmvlog::format

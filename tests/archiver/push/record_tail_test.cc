// Tests of //archiver/push:record_tail: a file followed while it is written
// (a record appears only once complete), seeks back and forth, index
// entries, a compressed file, and damage named by file and offset.
#include "archiver/push/record_tail.h"

#include <zstd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "format/archive/archive_framing.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

std::string Path(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

// A framed record of `n` payload bytes, each `fill`.
std::vector<uint8_t> Record(size_t n, uint8_t fill) {
  std::vector<uint8_t> payload(n, fill), out;
  format::AppendFramed(payload, &out);
  return out;
}

void Append(const std::string& path, const std::vector<uint8_t>& bytes, size_t from = 0,
            size_t n = std::string::npos) {
  std::ofstream f(path, std::ios::binary | std::ios::app);
  n = std::min(n, bytes.size() - from);
  f.write(reinterpret_cast<const char*>(bytes.data() + from), n);
}

std::vector<uint8_t> Next(RecordTail& t) {
  absl::StatusOr<std::optional<std::span<const uint8_t>>> r = t.Next();
  EXPECT_OK(r.status());
  if (!r.ok() || !r->has_value()) return {};
  return std::vector<uint8_t>((*r)->begin(), (*r)->end());
}

bool NoneNow(RecordTail& t) {
  absl::StatusOr<std::optional<std::span<const uint8_t>>> r = t.Next();
  return r.ok() && !r->has_value();
}

TEST(RecordTail, RecordsAppearOnlyWhenComplete) {
  const std::string path = Path("growing");
  const std::vector<uint8_t> label = Record(100, 0xaa), a = Record(20, 1), b = Record(300, 2);
  Append(path, label);
  absl::StatusOr<std::unique_ptr<RecordTail>> t = RecordTail::Open(path, label.size());
  ASSERT_OK(t.status());
  EXPECT_TRUE(NoneNow(**t));
  // Byte by byte: nothing until the last byte of each record is there.
  for (const std::vector<uint8_t>* r : {&a, &b}) {
    for (size_t i = 0; i + 1 < r->size(); ++i) {
      Append(path, *r, i, 1);
      ASSERT_TRUE(NoneNow(**t)) << i;
    }
    Append(path, *r, r->size() - 1, 1);
    EXPECT_EQ(Next(**t), *r);
  }
  EXPECT_EQ((*t)->offset(), label.size() + a.size() + b.size());
  EXPECT_TRUE(NoneNow(**t));
}

TEST(RecordTail, SeekBackAfterReleaseAndBeyondIt) {
  const std::string path = Path("seek");
  std::vector<std::vector<uint8_t>> recs;
  std::vector<uint64_t> at;
  uint64_t off = 0;
  for (int i = 0; i < 50; ++i) {
    recs.push_back(Record(10'000 + i, static_cast<uint8_t>(i)));
    at.push_back(off);
    off += recs.back().size();
    Append(path, recs.back());
  }
  absl::StatusOr<std::unique_ptr<RecordTail>> t = RecordTail::Open(path, 0);
  ASSERT_OK(t.status());
  for (int i = 0; i < 40; ++i) ASSERT_EQ(Next(**t), recs[i]);
  (*t)->Release(at[30]);
  ASSERT_OK((*t)->Seek(at[31]));  // kept: no read
  EXPECT_EQ(Next(**t), recs[31]);
  ASSERT_OK((*t)->Seek(at[2]));  // released: read again
  EXPECT_EQ(Next(**t), recs[2]);
  ASSERT_OK((*t)->Seek(at[45]));  // ahead
  EXPECT_EQ(Next(**t), recs[45]);
  EXPECT_EQ((*t)->offset(), at[46]);
}

TEST(RecordTail, IndexEntries) {
  const std::string path = Path("index");
  const std::vector<uint8_t> label = Record(100, 0xaa);
  std::vector<uint8_t> entries(32 * 3);
  for (size_t i = 0; i < entries.size(); ++i) entries[i] = static_cast<uint8_t>(i);
  Append(path, label);
  Append(path, entries, 0, 50);  // one and a half
  absl::StatusOr<std::unique_ptr<RecordTail>> t = RecordTail::Open(path, label.size(), 32);
  ASSERT_OK(t.status());
  EXPECT_EQ(Next(**t), std::vector<uint8_t>(entries.begin(), entries.begin() + 32));
  EXPECT_TRUE(NoneNow(**t));
  Append(path, entries, 50);
  EXPECT_EQ(Next(**t), std::vector<uint8_t>(entries.begin() + 32, entries.begin() + 64));
  EXPECT_EQ(Next(**t), std::vector<uint8_t>(entries.begin() + 64, entries.end()));
}

TEST(RecordTail, CompressedFile) {
  std::vector<uint8_t> plain;
  std::vector<uint64_t> at;
  for (int i = 0; i < 20; ++i) {
    at.push_back(plain.size());
    const std::vector<uint8_t> r = Record(5000 + i, static_cast<uint8_t>(i));
    plain.insert(plain.end(), r.begin(), r.end());
  }
  std::vector<uint8_t> z(ZSTD_compressBound(plain.size()));
  z.resize(ZSTD_compress(z.data(), z.size(), plain.data(), plain.size(), 3));
  const std::string path = Path("vol.0.zst");
  Append(path, z);
  absl::StatusOr<std::unique_ptr<RecordTail>> t = RecordTail::Open(path, at[5]);
  ASSERT_OK(t.status());
  EXPECT_TRUE((*t)->compressed());
  for (int i = 5; i < 20; ++i) {
    const std::vector<uint8_t> want(plain.begin() + at[i],
                                    i + 1 < 20 ? plain.begin() + at[i + 1] : plain.end());
    ASSERT_EQ(Next(**t), want) << i;
  }
  EXPECT_TRUE(NoneNow(**t));
  (*t)->Release((*t)->offset());
  ASSERT_OK((*t)->Seek(at[1]));  // back: the stream again from its start
  EXPECT_EQ(Next(**t), std::vector<uint8_t>(plain.begin() + at[1], plain.begin() + at[2]));
}

// Tests of the error paths follow.

TEST(RecordTail, TrailerMismatchIsDataLossAtTheRecord) {
  const std::string path = Path("bad_trailer");
  const std::vector<uint8_t> a = Record(20, 1);
  std::vector<uint8_t> b = Record(30, 2);
  b.back() ^= 1;
  Append(path, a);
  Append(path, b);
  absl::StatusOr<std::unique_ptr<RecordTail>> t = RecordTail::Open(path, 0);
  ASSERT_OK(t.status());
  EXPECT_EQ(Next(**t), a);
  EXPECT_THAT((*t)->Next(), StatusIs(absl::StatusCode::kDataLoss,
                                     HasSubstr(path + ": record at offset 28: header length 38 "
                                                      "!= trailer length 39")));
}

TEST(RecordTail, ImpossibleLengthIsDataLoss) {
  const std::string path = Path("bad_length");
  Append(path, std::vector<uint8_t>{0, 0, 0, 4, 0, 0, 0, 4});
  absl::StatusOr<std::unique_ptr<RecordTail>> t = RecordTail::Open(path, 0);
  ASSERT_OK(t.status());
  EXPECT_THAT((*t)->Next(), StatusIs(absl::StatusCode::kDataLoss,
                                     HasSubstr("record at offset 0: impossible length 4")));
  EXPECT_THAT(RecordTail::Open(Path("missing"), 0), StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace mmvlog::archiver

// Tests of //archiver/store:prefetch_stream: the bytes of the stream read
// ahead on a thread come out as the stream gives them, whatever the sizes
// of the reads on either side; an error comes after every byte before it
// (also when the stream returns it on the call after a short read, as the
// decompressors do); SkipTo within what was read ahead and beyond it.
#include "archiver/store/prefetch_stream.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::testing::HasSubstr;
using ::mmvlog::testing::IsOk;
using ::mmvlog::testing::StatusIs;

// A stream of `size` bytes (byte i is i * 7 mod 251), read as ReadStream
// says (as much as asked, less only at the end), then, if `fail`, a
// DataLoss on the call after the last bytes (a short read, then the error,
// as the decompressors give damage). Counts skips it is asked for; `step`
// is kept for the table below (how the reads were cut) and unused.
class FakeStream : public ReadStream {
 public:
  FakeStream(size_t size, size_t step, bool fail)
      : ReadStream("fake"), size_(size), step_(step), fail_(fail) {}
  absl::StatusOr<size_t> Read(std::span<uint8_t> out) override {
    if (position_ == size_) {
      if (fail_ && !failed_) {
        failed_ = true;
        return absl::DataLossError("fake: offset 123: damaged");
      }
      return 0;
    }
    const size_t n = std::min(out.size(), static_cast<size_t>(size_ - position_));
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>((position_ + i) * 7 % 251);
    position_ += n;
    return n;
  }
  absl::Status SkipTo(uint64_t offset) override {
    ++skips;
    position_ = std::min<uint64_t>(offset, size_);
    return absl::OkStatus();
  }
  int skips = 0;

 private:
  size_t size_;
  [[maybe_unused]] size_t step_;
  bool fail_, failed_ = false;
};

uint8_t ByteAt(uint64_t i) { return static_cast<uint8_t>(i * 7 % 251); }

// Everything read, in reads of `read` bytes, until the end or an error.
absl::Status ReadAll(ReadStream& s, size_t read, std::vector<uint8_t>* got) {
  std::vector<uint8_t> buf(read);
  for (;;) {
    absl::StatusOr<size_t> n = s.Read(buf);
    if (!n.ok()) return n.status();
    got->insert(got->end(), buf.begin(), buf.begin() + *n);
    if (*n == 0) return absl::OkStatus();
  }
}

TEST(PrefetchStream, GivesTheStreamsBytesWhateverTheReadSizes) {
  for (size_t chunk : {1000u, 65536u, 3u << 20}) {
    for (size_t read : {1u, 4096u, 1u << 20, 5u << 20}) {
      PrefetchStream s(std::make_unique<FakeStream>(3'000'001, 0, false), chunk, 3);
      std::vector<uint8_t> got;
      ASSERT_THAT(ReadAll(s, read, &got), IsOk());
      ASSERT_EQ(got.size(), 3'000'001u) << chunk << " " << read;
      for (size_t i = 0; i < got.size(); i += 997) ASSERT_EQ(got[i], ByteAt(i)) << i;
      EXPECT_EQ(s.position(), 3'000'001u);
    }
  }
}

TEST(PrefetchStream, AnErrorComesAfterEveryByteBeforeIt) {
  // The stream gives its last bytes in a short read and the error on the
  // next call: both must reach the reader, in that order.
  PrefetchStream s(std::make_unique<FakeStream>(200'000, 7'000, true), 1 << 16, 2);
  std::vector<uint8_t> got;
  EXPECT_THAT(ReadAll(s, 50'000, &got),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("offset 123")));
  EXPECT_EQ(got.size(), 200'000u);
}

TEST(PrefetchStream, SkipsWithinWhatWasReadAheadAndBeyondIt) {
  auto inner = std::make_unique<FakeStream>(10'000'000, 1 << 16, false);
  FakeStream* fake = inner.get();
  PrefetchStream s(std::move(inner), 1 << 16, 4);
  std::vector<uint8_t> buf(100);
  ASSERT_THAT(s.Read(buf).status(), IsOk());  // the first read: no thread yet
  ASSERT_THAT(s.Read(buf).status(), IsOk());  // the thread reads ahead
  // Near: from what was read ahead (no skip of the stream needed, though
  // the thread may be stopped when it has read past it).
  ASSERT_THAT(s.SkipTo(5000), IsOk());
  EXPECT_EQ(s.position(), 5000u);
  absl::StatusOr<size_t> n = s.Read(buf);
  ASSERT_THAT(n.status(), IsOk());
  EXPECT_EQ(buf[0], ByteAt(5000));
  // Far: the stream is asked to skip.
  const int skips = fake->skips;
  ASSERT_THAT(s.SkipTo(8'000'000), IsOk());
  EXPECT_EQ(fake->skips, skips + 1);
  n = s.Read(buf);
  ASSERT_THAT(n.status(), IsOk());
  EXPECT_EQ(buf[0], ByteAt(8'000'000));
  std::vector<uint8_t> rest;
  ASSERT_THAT(ReadAll(s, 1 << 20, &rest), IsOk());
  EXPECT_EQ(8'000'100 + rest.size(), 10'000'000u);
}

TEST(PrefetchStream, StopsItsThreadWhenDestroyedMidStream) {
  for (int i = 0; i < 20; ++i) {
    PrefetchStream s(std::make_unique<FakeStream>(50'000'000, 1 << 16, false), 1 << 16, 4);
    std::vector<uint8_t> buf(1000);
    ASSERT_THAT(s.Read(buf).status(), IsOk());
    ASSERT_THAT(s.Read(buf).status(), IsOk());
  }  // (ASan/TSan-clean destruction with the thread blocked on a full queue)
}

}  // namespace
}  // namespace mmvlog::archiver

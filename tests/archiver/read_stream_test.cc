// ReadStream::SkipTo on every codec: after a skip the stream goes on with
// exactly the bytes from there; an .xz file written in blocks (as
// pmlogcompress writes it) is entered at the block holding the offset, so
// damage in an earlier block is never met.
#include "archiver/store/read_stream.h"

#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace mmvlog::archiver {
namespace {

std::vector<uint8_t> Payload() {
  std::vector<uint8_t> out;
  uint32_t x = 12345;
  for (int i = 0; i < 300000; ++i) {
    x = x * 1103515245 + 12345;
    out.push_back(static_cast<uint8_t>(i % 251 == 0 ? x >> 24 : 'a' + (i / 997) % 26));
  }
  return out;
}

// .xz with a new block every `block` bytes (LZMA_FULL_FLUSH ends one).
std::vector<uint8_t> Xz(const std::vector<uint8_t>& in, size_t block) {
  lzma_stream s = LZMA_STREAM_INIT;
  EXPECT_EQ(lzma_easy_encoder(&s, 2, LZMA_CHECK_CRC64), LZMA_OK);
  std::vector<uint8_t> out(in.size() + 65536);
  s.next_out = out.data();
  s.avail_out = out.size();
  for (size_t at = 0; at < in.size(); at += block) {
    s.next_in = in.data() + at;
    s.avail_in = std::min(block, in.size() - at);
    const lzma_action action = at + block >= in.size() ? LZMA_FINISH : LZMA_FULL_FLUSH;
    lzma_ret r;
    do r = lzma_code(&s, action);
    while (r == LZMA_OK);
    EXPECT_EQ(r, LZMA_STREAM_END) << at;  // the block (or the stream) is complete
  }
  out.resize(out.size() - s.avail_out);
  lzma_end(&s);
  return out;
}

std::vector<uint8_t> Gzip(const std::vector<uint8_t>& in) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::vector<uint8_t> out(deflateBound(&z, in.size()));
  z.next_in = const_cast<uint8_t*>(in.data());
  z.avail_in = in.size();
  z.next_out = out.data();
  z.avail_out = out.size();
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::vector<uint8_t> Bzip2(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out(in.size() + in.size() / 100 + 600);
  unsigned len = out.size();
  EXPECT_EQ(BZ2_bzBuffToBuffCompress(reinterpret_cast<char*>(out.data()), &len,
                                     const_cast<char*>(reinterpret_cast<const char*>(in.data())),
                                     in.size(), 9, 0, 0),
            BZ_OK);
  out.resize(len);
  return out;
}

std::vector<uint8_t> Zstd(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out(ZSTD_compressBound(in.size()));
  out.resize(ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3));
  return out;
}

std::string WriteFile(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return path;
}

// The rest of the stream, read in odd-sized pieces.
absl::StatusOr<std::vector<uint8_t>> Rest(ReadStream& in) {
  std::vector<uint8_t> out;
  uint8_t buf[7001];
  for (;;) {
    absl::StatusOr<size_t> n = in.Read(buf);
    if (!n.ok()) return n.status();
    if (*n == 0) return out;
    out.insert(out.end(), buf, buf + *n);
  }
}

TEST(ReadStreamSkipTo, EveryCodecGoesOnFromTheOffset) {
  const std::vector<uint8_t> payload = Payload();
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> files = {
      {"p.plain", payload},          {"p.xz", Xz(payload, 65536)}, {"p1.xz", Xz(payload, 1 << 20)},
      {"p.gz", Gzip(payload)},       {"p.bz2", Bzip2(payload)},    {"p.zst", Zstd(payload)}};
  for (const auto& [name, bytes] : files) {
    const std::string path = WriteFile(name, bytes);
    for (uint64_t to : {0ul, 1ul, 4096ul, 65535ul, 65536ul, 65537ul, 200000ul, 299999ul}) {
      SCOPED_TRACE(name + " to " + std::to_string(to));
      absl::StatusOr<std::unique_ptr<ReadStream>> in = OpenReadStream(path);
      ASSERT_TRUE(in.ok()) << in.status();
      // A first read, then the skip (as the archive reader reads a label).
      uint8_t label[100];
      ASSERT_EQ(*(*in)->Read(label), sizeof label);
      ASSERT_TRUE((*in)->SkipTo(to).ok());
      const uint64_t from = std::max<uint64_t>(to, sizeof label);
      EXPECT_EQ((*in)->position(), from);
      absl::StatusOr<std::vector<uint8_t>> rest = Rest(**in);
      ASSERT_TRUE(rest.ok()) << rest.status();
      EXPECT_TRUE(*rest == std::vector<uint8_t>(payload.begin() + from, payload.end()));
      EXPECT_EQ((*in)->position(), payload.size());
    }
    // Past the end: the position stops at the end, nothing more is read.
    absl::StatusOr<std::unique_ptr<ReadStream>> in = OpenReadStream(path);
    ASSERT_TRUE(in.ok());
    ASSERT_TRUE((*in)->SkipTo(payload.size() + 10).ok()) << name;
    if (name != "p.plain") EXPECT_EQ((*in)->position(), payload.size()) << name;
    uint8_t b[1];
    if (name != "p.plain") EXPECT_EQ(*(*in)->Read(b), 0u) << name;
  }
}

TEST(ReadStreamSkipTo, XzBlocksBeforeTheOffsetAreNotDecoded) {
  const std::vector<uint8_t> payload = Payload();
  std::vector<uint8_t> xz = Xz(payload, 65536);
  xz[xz.size() / 5] ^= 0x55;  // in the second or third block of five
  const std::string path = WriteFile("damaged.xz", xz);
  absl::StatusOr<std::unique_ptr<ReadStream>> whole = OpenReadStream(path);
  ASSERT_TRUE(whole.ok());
  absl::StatusOr<std::vector<uint8_t>> all = Rest(**whole);
  EXPECT_EQ(all.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(all.status().message().find("damaged.xz: offset "), std::string::npos) << all.status();

  absl::StatusOr<std::unique_ptr<ReadStream>> in = OpenReadStream(path);
  ASSERT_TRUE(in.ok());
  ASSERT_TRUE((*in)->SkipTo(4 * 65536 + 5).ok());
  absl::StatusOr<std::vector<uint8_t>> rest = Rest(**in);
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_TRUE(*rest == std::vector<uint8_t>(payload.begin() + 4 * 65536 + 5, payload.end()));
}

}  // namespace
}  // namespace mmvlog::archiver

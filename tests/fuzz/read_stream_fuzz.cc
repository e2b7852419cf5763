// libFuzzer target: every decompression path of archiver/read_stream (xz,
// lzma, bzip2, gzip, zstd), on the bytes after a selector byte, written to a
// file with the codec's suffix and read to the end in small pieces, after
// a SkipTo when the selector says (an .xz file's index and blocks). What
// is checked: no crash, no hang, bounded memory (a decompression bomb stops
// at 64 MiB of output here), and an error is an error, never a short read.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "archiver/store/read_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* kSuffixes[] = {".xz", ".lzma", ".bz2", ".gz", ".zst", ""};
  if (size == 0) return 0;
  const char* suffix = kSuffixes[data[0] % 6];
  static const std::string dir = [] {
    const char* t = std::getenv("TEST_TMPDIR");
    return std::string(t ? t : "/tmp");
  }();
  const std::string path = dir + "/read_stream_fuzz." + std::to_string(::getpid()) + suffix;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data + 1, 1, size - 1, f);
  std::fclose(f);
  absl::StatusOr<std::unique_ptr<mmvlog::archiver::ReadStream>> in =
      mmvlog::archiver::OpenReadStream(path);
  if (in.ok()) {
    uint8_t buf[4096];
    uint64_t total = 0;
    bool readable = true;
    if ((data[0] / 6) & 1) {
      const uint64_t to = static_cast<uint64_t>(data[0] / 12) * 4099;
      readable = (*in)->SkipTo(to).ok();
      // At `to`, or short of it when the stream ends first.
      if (readable && (*in)->position() > to) std::abort();
      total = (*in)->position();
    }
    while (readable && total < (64u << 20)) {
      absl::StatusOr<size_t> n = (*in)->Read(buf);
      if (!n.ok() || *n == 0) break;
      total += *n;
      if ((*in)->position() != total) std::abort();
    }
  }
  ::unlink(path.c_str());
  return 0;
}

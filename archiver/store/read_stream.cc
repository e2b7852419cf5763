#include "archiver/store/read_stream.h"

#include <bzlib.h>
#include <fcntl.h>
#include <lzma.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "archiver/file/posix_file.h"

extern char** environ;

namespace mmvlog::archiver {
namespace {

constexpr size_t kInputChunk = 64 << 10;
constexpr uint64_t kXzMemLimit = 256 << 20;

class PlainStream : public ReadStream {
 public:
  PlainStream(std::string path, FileDescriptor fd) : ReadStream(std::move(path)), fd_(std::move(fd)) {}
  absl::StatusOr<size_t> Read(std::span<uint8_t> out) override {
    absl::StatusOr<size_t> n = ReadAt(fd_.get(), position_, out, path_);
    if (n.ok()) position_ += *n;
    return n;
  }
  absl::Status SkipTo(uint64_t offset) override {
    position_ = std::max(position_, offset);
    return absl::OkStatus();
  }

 private:
  FileDescriptor fd_;
};

// The input side every decoder shares: the compressed file in chunks.
class CompressedStream : public ReadStream {
 protected:
  CompressedStream(std::string path, FileDescriptor fd, const char* codec)
      : ReadStream(std::move(path)), fd_(std::move(fd)), codec_(codec), in_(kInputChunk) {}

  // Refills in_ when it is used up; false at the end of the file.
  absl::StatusOr<bool> Fill() {
    if (in_pos_ < in_len_) return true;
    if (eof_) return false;
    absl::StatusOr<size_t> n = ReadAt(fd_.get(), file_pos_, in_, path_);
    if (!n.ok()) return n.status();
    file_pos_ += *n;
    in_pos_ = 0;
    in_len_ = *n;
    if (*n < in_.size()) eof_ = true;
    return in_len_ > 0;
  }
  bool input_left() const { return in_pos_ < in_len_ || !eof_; }

  absl::Status Damage(uint64_t at, absl::string_view what) const {
    return absl::DataLossError(absl::StrCat(path_, ": offset ", at, " in the decompressed stream: ",
                                            codec_, ": ", what));
  }
  // Damage met after `produced` bytes of this Read: those are returned now,
  // the error by the next Read (so every byte before the damage is read).
  absl::StatusOr<size_t> Fail(size_t produced, absl::Status error) {
    done_ = true;
    if (produced == 0) return error;
    pending_ = std::move(error);
    position_ += produced;
    return produced;
  }
  absl::Status pending_;

  FileDescriptor fd_;
  const char* codec_;
  std::vector<uint8_t> in_;
  size_t in_pos_ = 0;
  size_t in_len_ = 0;
  uint64_t file_pos_ = 0;
  bool eof_ = false;
  bool done_ = false;  // the last stream ended and nothing follows
};

std::string XzError(lzma_ret ret) {
  switch (ret) {
    case LZMA_FORMAT_ERROR: return "not in the .xz or .lzma format";
    case LZMA_DATA_ERROR: return "compressed data is corrupt";
    case LZMA_BUF_ERROR: return "compressed data is truncated";
    case LZMA_MEM_ERROR: return "out of memory";
    case LZMA_MEMLIMIT_ERROR:
      return absl::StrCat("needs more than ", kXzMemLimit >> 20, " MiB of memory to decompress");
    default: return absl::StrCat("unsupported options (lzma error ", static_cast<int>(ret), ")");
  }
}

class XzStream : public CompressedStream {
 public:
  XzStream(std::string path, FileDescriptor fd) : CompressedStream(std::move(path), std::move(fd), "xz") {}
  ~XzStream() override {
    lzma_end(&strm_);
    FreeFilters();
    if (index_ != nullptr) lzma_index_end(index_, nullptr);
  }
  absl::Status Init() {
    // xz (concatenated streams, as xz -d) and legacy .lzma alike. A header
    // may claim a dictionary of gigabytes: xz -9 needs 65 MiB, so more than
    // kXzMemLimit is refused rather than allocated (found by fuzzing).
    lzma_ret ret;
    if (absl::EndsWith(path_, ".xz")) {
      // liblzma's threaded decoder: the blocks of a multi-block file (xz
      // -T, pmlogcompress's 10 MiB blocks) decoded side by side; a file of
      // one block is decoded as by the plain decoder.
      lzma_mt mt = {};
      mt.flags = LZMA_CONCATENATED;
      mt.threads = std::max(1u, std::thread::hardware_concurrency());
      mt.memlimit_threading = kXzMemLimit;
      mt.memlimit_stop = kXzMemLimit;
      ret = lzma_stream_decoder_mt(&strm_, &mt);
    } else {
      ret = lzma_auto_decoder(&strm_, kXzMemLimit, LZMA_CONCATENATED);
    }
    if (ret != LZMA_OK) {
      return absl::ResourceExhaustedError(absl::StrCat(path_, ": xz: cannot start a decoder"));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<size_t> Read(std::span<uint8_t> out) override {
    if (!pending_.ok()) return std::exchange(pending_, absl::OkStatus());
    if (done_ || out.empty()) return 0;
    strm_.next_out = out.data();
    strm_.avail_out = out.size();
    while (strm_.avail_out > 0) {
      absl::StatusOr<bool> more = Fill();
      if (!more.ok()) return more.status();
      strm_.next_in = in_.data() + in_pos_;
      strm_.avail_in = in_len_ - in_pos_;
      const size_t before_out = strm_.avail_out, before_in = strm_.avail_in;
      const lzma_ret ret = lzma_code(&strm_, *more ? LZMA_RUN : LZMA_FINISH);
      in_pos_ = in_len_ - strm_.avail_in;
      const uint64_t at = position_ + (out.size() - strm_.avail_out);
      if (ret == LZMA_STREAM_END) {
        // By blocks (after SkipTo): the index names the next one, if any.
        if (by_blocks_ && !lzma_index_iter_next(&iter_, LZMA_INDEX_ITER_BLOCK)) {
          if (absl::Status st = StartBlock(); !st.ok()) return Fail(out.size() - strm_.avail_out, st);
          continue;
        }
        done_ = true;
        break;
      }
      if (ret != LZMA_OK) {
        return Fail(out.size() - strm_.avail_out, Damage(at, XzError(ret)));
      }
      if (!*more && before_out == strm_.avail_out && before_in == strm_.avail_in) {
        return Fail(out.size() - strm_.avail_out, Damage(at, "compressed data is truncated"));
      }
    }
    const size_t n = out.size() - strm_.avail_out;
    position_ += n;
    return n;
  }

  absl::Status SkipTo(uint64_t offset) override {
    // Forward only, and only where the file's index can be read; anything
    // else (legacy .lzma, a damaged index, a nearby offset) decompresses its
    // way there.
    if (offset > position_ && !index_tried_) {
      index_tried_ = true;
      ReadIndex();
    }
    if (offset > position_ && index_ != nullptr) {
      lzma_index_iter_init(&iter_, index_);
      if (offset >= lzma_index_uncompressed_size(index_)) {
        // At or past the end: nothing is left to decompress.
        position_ = lzma_index_uncompressed_size(index_);
        done_ = true;
        return absl::OkStatus();
      }
      if (!lzma_index_iter_locate(&iter_, offset) && iter_.block.uncompressed_file_offset > position_) {
        if (absl::Status st = StartBlock(); !st.ok()) return st;
        by_blocks_ = true;
        position_ = iter_.block.uncompressed_file_offset;
      }
    }
    return ReadStream::SkipTo(offset);
  }

 private:
  // The index of every stream in the file into index_
  // (lzma_file_info_decoder reads the footers and indexes, seeking back
  // from the end); none when it cannot be read.
  void ReadIndex() {
    absl::StatusOr<struct stat> st = StatFd(fd_.get(), path_);
    if (!st.ok()) return;
    lzma_stream info = LZMA_STREAM_INIT;
    lzma_index* index = nullptr;
    if (lzma_file_info_decoder(&info, &index, kXzMemLimit, static_cast<uint64_t>(st->st_size)) != LZMA_OK) {
      lzma_end(&info);
      return;
    }
    std::vector<uint8_t> buf(kInputChunk);
    uint64_t at = 0;
    lzma_ret ret = LZMA_OK;
    while (ret == LZMA_OK) {
      if (info.avail_in == 0) {
        absl::StatusOr<size_t> n = ReadAt(fd_.get(), at, buf, path_);
        if (!n.ok() || *n == 0) break;
        at += *n;
        info.next_in = buf.data();
        info.avail_in = *n;
      }
      ret = lzma_code(&info, LZMA_RUN);
      if (ret == LZMA_SEEK_NEEDED) {
        at = info.seek_pos;
        info.avail_in = 0;
        ret = LZMA_OK;
      }
    }
    lzma_end(&info);
    if (ret != LZMA_STREAM_END) {
      if (index != nullptr) lzma_index_end(index, nullptr);
      return;
    }
    index_ = index;
  }

  // Starts a block decoder on the block iter_ names: its header is read
  // from the file, the compressed data follows it.
  absl::Status StartBlock() {
    const uint64_t at = iter_.block.compressed_file_offset;
    uint8_t header[LZMA_BLOCK_HEADER_SIZE_MAX];
    absl::StatusOr<size_t> n = ReadAt(fd_.get(), at, std::span<uint8_t>(header, 1), path_);
    if (!n.ok()) return n.status();
    const uint32_t size = lzma_block_header_size_decode(header[0]);
    if (*n != 1 || header[0] == 0 || size > sizeof header) {
      return Damage(iter_.block.uncompressed_file_offset, "bad block header");
    }
    n = ReadAt(fd_.get(), at + 1, std::span<uint8_t>(header + 1, size - 1), path_);
    if (!n.ok()) return n.status();
    if (*n != size - 1) return Damage(iter_.block.uncompressed_file_offset, "compressed data is truncated");
    FreeFilters();
    block_ = {};
    block_.version = 1;
    block_.check = iter_.stream.flags->check;
    block_.header_size = size;
    block_.filters = filters_;
    if (lzma_block_header_decode(&block_, nullptr, header) != LZMA_OK ||
        lzma_block_decoder(&strm_, &block_) != LZMA_OK) {
      return Damage(iter_.block.uncompressed_file_offset, "bad block header");
    }
    // The input restarts at the block's data.
    file_pos_ = at + size;
    in_pos_ = in_len_ = 0;
    eof_ = false;
    return absl::OkStatus();
  }

  void FreeFilters() {
    for (lzma_filter& f : filters_) {
      if (f.id == LZMA_VLI_UNKNOWN) break;
      free(f.options);
      f.options = nullptr;
    }
    filters_[0].id = LZMA_VLI_UNKNOWN;
  }

  lzma_stream strm_ = LZMA_STREAM_INIT;
  lzma_index* index_ = nullptr;  // the file's index, once SkipTo has read it
  bool index_tried_ = false;
  bool by_blocks_ = false;  // decoding block by block from iter_ on
  lzma_index_iter iter_{};
  lzma_block block_{};
  lzma_filter filters_[LZMA_FILTERS_MAX + 1] = {{LZMA_VLI_UNKNOWN, nullptr}};
};

class GzipStream : public CompressedStream {
 public:
  GzipStream(std::string path, FileDescriptor fd) : CompressedStream(std::move(path), std::move(fd), "gzip") {}
  ~GzipStream() override {
    if (started_) inflateEnd(&z_);
  }
  absl::Status Init() {
    z_ = {};
    if (inflateInit2(&z_, 15 + 32) != Z_OK) {  // gzip or zlib header
      return absl::ResourceExhaustedError(absl::StrCat(path_, ": gzip: cannot start a decoder"));
    }
    started_ = true;
    return absl::OkStatus();
  }
  absl::StatusOr<size_t> Read(std::span<uint8_t> out) override {
    if (!pending_.ok()) return std::exchange(pending_, absl::OkStatus());
    if (done_ || out.empty()) return 0;
    z_.next_out = out.data();
    z_.avail_out = static_cast<uInt>(std::min<size_t>(out.size(), 1u << 30));
    const size_t want = z_.avail_out;
    while (z_.avail_out > 0) {
      absl::StatusOr<bool> more = Fill();
      if (!more.ok()) return more.status();
      const uint64_t at = position_ + (want - z_.avail_out);
      if (!*more) {
        if (member_started_) return Fail(want - z_.avail_out, Damage(at, "compressed data is truncated"));
        done_ = true;  // the end, between members
        break;
      }
      z_.next_in = in_.data() + in_pos_;
      z_.avail_in = static_cast<uInt>(in_len_ - in_pos_);
      member_started_ = true;
      const int ret = inflate(&z_, Z_NO_FLUSH);
      in_pos_ = in_len_ - z_.avail_in;
      if (ret == Z_STREAM_END) {
        // Another member may follow (gzip -d reads them all).
        member_started_ = false;
        inflateReset(&z_);
        continue;
      }
      if (ret != Z_OK && ret != Z_BUF_ERROR) {
        const uint64_t bad = position_ + (want - z_.avail_out);
        return Fail(want - z_.avail_out,
                    Damage(bad, ret == Z_DATA_ERROR
                                    ? absl::StrCat("corrupt data (", z_.msg ? z_.msg : "?", ")")
                                    : "out of memory"));
      }
    }
    const size_t n = want - z_.avail_out;
    position_ += n;
    return n;
  }

 private:
  z_stream z_{};
  bool started_ = false;
  bool member_started_ = false;
};

class Bzip2Stream : public CompressedStream {
 public:
  Bzip2Stream(std::string path, FileDescriptor fd) : CompressedStream(std::move(path), std::move(fd), "bzip2") {}
  ~Bzip2Stream() override {
    if (started_) BZ2_bzDecompressEnd(&b_);
  }
  absl::Status Init() {
    b_ = {};
    if (BZ2_bzDecompressInit(&b_, 0, 0) != BZ_OK) {
      return absl::ResourceExhaustedError(absl::StrCat(path_, ": bzip2: cannot start a decoder"));
    }
    started_ = true;
    return absl::OkStatus();
  }
  absl::StatusOr<size_t> Read(std::span<uint8_t> out) override {
    if (!pending_.ok()) return std::exchange(pending_, absl::OkStatus());
    if (done_ || out.empty()) return 0;
    b_.next_out = reinterpret_cast<char*>(out.data());
    b_.avail_out = static_cast<unsigned>(std::min<size_t>(out.size(), 1u << 30));
    const size_t want = b_.avail_out;
    while (b_.avail_out > 0) {
      absl::StatusOr<bool> more = Fill();
      if (!more.ok()) return more.status();
      const uint64_t at = position_ + (want - b_.avail_out);
      if (!*more) {
        if (stream_started_) return Fail(want - b_.avail_out, Damage(at, "compressed data is truncated"));
        done_ = true;
        break;
      }
      b_.next_in = reinterpret_cast<char*>(in_.data() + in_pos_);
      b_.avail_in = static_cast<unsigned>(in_len_ - in_pos_);
      stream_started_ = true;
      const int ret = BZ2_bzDecompress(&b_);
      in_pos_ = in_len_ - b_.avail_in;
      if (ret == BZ_STREAM_END) {
        // Concatenated streams (pbzip2, bzip2 of appended files): a fresh
        // decoder goes on into the same output.
        const size_t produced = want - b_.avail_out;
        BZ2_bzDecompressEnd(&b_);
        started_ = false;
        stream_started_ = false;
        if (absl::Status st = Init(); !st.ok()) return st;
        b_.next_out = reinterpret_cast<char*>(out.data() + produced);
        b_.avail_out = static_cast<unsigned>(want - produced);
        continue;
      }
      if (ret != BZ_OK) {
        const uint64_t bad = position_ + (want - b_.avail_out);
        return Fail(want - b_.avail_out,
                    Damage(bad, ret == BZ_DATA_ERROR         ? "data integrity (CRC) error"
                                : ret == BZ_DATA_ERROR_MAGIC ? "not bzip2 data"
                                                             : "out of memory"));
      }
    }
    const size_t n = want - b_.avail_out;
    position_ += n;
    return n;
  }

 private:
  bz_stream b_{};
  bool started_ = false;
  bool stream_started_ = false;
};

class ZstdStream : public CompressedStream {
 public:
  ZstdStream(std::string path, FileDescriptor fd) : CompressedStream(std::move(path), std::move(fd), "zstd") {}
  ~ZstdStream() override { ZSTD_freeDCtx(ctx_); }
  absl::Status Init() {
    ctx_ = ZSTD_createDCtx();
    if (ctx_ == nullptr) return absl::ResourceExhaustedError(absl::StrCat(path_, ": zstd: cannot start a decoder"));
    return absl::OkStatus();
  }
  absl::StatusOr<size_t> Read(std::span<uint8_t> out) override {
    if (!pending_.ok()) return std::exchange(pending_, absl::OkStatus());
    if (done_ || out.empty()) return 0;
    ZSTD_outBuffer o{out.data(), out.size(), 0};
    while (o.pos < o.size) {
      absl::StatusOr<bool> more = Fill();
      if (!more.ok()) return more.status();
      const uint64_t at = position_ + o.pos;
      if (!*more) {
        if (frame_open_) return Fail(o.pos, Damage(at, "compressed data is truncated"));
        done_ = true;
        break;
      }
      ZSTD_inBuffer i{in_.data(), in_len_, in_pos_};
      const size_t before = o.pos;
      const size_t ret = ZSTD_decompressStream(ctx_, &o, &i);
      in_pos_ = i.pos;
      if (ZSTD_isError(ret)) return Fail(o.pos, Damage(position_ + o.pos, ZSTD_getErrorName(ret)));
      // 0: a frame is complete (another may follow); otherwise more to come.
      frame_open_ = ret != 0;
      if (o.pos == before && i.pos == in_len_ && !frame_open_) continue;
    }
    position_ += o.pos;
    return o.pos;
  }

 private:
  ZSTD_DCtx* ctx_ = nullptr;
  bool frame_open_ = false;
};

// .Z: `gzip -dc FILE`, read from a pipe, as libpcp does.
class PipeStream : public ReadStream {
 public:
  explicit PipeStream(std::string path) : ReadStream(std::move(path)) {}
  ~PipeStream() override {
    if (fd_ >= 0) ::close(fd_);
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  absl::Status Start() {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::string arg_path = path_;
    char* argv[] = {const_cast<char*>("gzip"), const_cast<char*>("-dc"), const_cast<char*>("--"),
                    arg_path.data(), nullptr};
    // gzip gets SIGPIPE's default back (mmvlog ignores it).
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &pipe_set);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    const int err = posix_spawnp(&pid_, "gzip", &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    ::close(p[1]);
    if (err != 0) {
      ::close(p[0]);
      pid_ = -1;
      return absl::ErrnoToStatus(err, absl::StrCat(path_, ": cannot run gzip -dc"));
    }
    fd_ = p[0];
    return absl::OkStatus();
  }
  absl::StatusOr<size_t> Read(std::span<uint8_t> out) override {
    size_t done = 0;
    while (done < out.size() && fd_ >= 0) {
      const ssize_t n = ::read(fd_, out.data() + done, out.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return absl::ErrnoToStatus(errno, absl::StrCat("read gzip -dc ", path_));
      if (n == 0) {
        ::close(fd_);
        fd_ = -1;
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
          return absl::DataLossError(absl::StrCat(
              path_, ": offset ", position_ + done, " in the decompressed stream: gzip -dc failed (",
              WIFEXITED(status) ? absl::StrCat("exit ", WEXITSTATUS(status)) : "killed", ")"));
        }
        break;
      }
      done += static_cast<size_t>(n);
    }
    position_ += done;
    return done;
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
};

template <typename T>
absl::StatusOr<std::unique_ptr<ReadStream>> Make(const std::string& path, FileDescriptor fd) {
  auto s = std::make_unique<T>(path, std::move(fd));
  if (absl::Status st = s->Init(); !st.ok()) return st;
  return std::unique_ptr<ReadStream>(std::move(s));
}

}  // namespace

absl::string_view CompressionSuffix(absl::string_view name) {
  for (absl::string_view s : {".xz", ".lzma", ".bz2", ".bz", ".gz", ".z", ".Z", ".zst"}) {
    if (absl::EndsWith(name, s)) return name.substr(name.size() - s.size());
  }
  return {};
}

absl::StatusOr<std::unique_ptr<ReadStream>> OpenReadStream(const std::string& path) {
  const absl::string_view suffix = CompressionSuffix(path);
  if (suffix == ".Z") {
    if (::access(path.c_str(), R_OK) != 0) return absl::ErrnoToStatus(errno, path);
    auto s = std::make_unique<PipeStream>(path);
    if (absl::Status st = s->Start(); !st.ok()) return st;
    return std::unique_ptr<ReadStream>(std::move(s));
  }
  absl::StatusOr<FileDescriptor> fd = OpenForRead(path);
  if (!fd.ok()) return fd.status();
  if (suffix == ".xz" || suffix == ".lzma") return Make<XzStream>(path, std::move(*fd));
  if (suffix == ".gz" || suffix == ".z") return Make<GzipStream>(path, std::move(*fd));
  if (suffix == ".bz2" || suffix == ".bz") return Make<Bzip2Stream>(path, std::move(*fd));
  if (suffix == ".zst") return Make<ZstdStream>(path, std::move(*fd));
  return std::unique_ptr<ReadStream>(std::make_unique<PlainStream>(path, std::move(*fd)));
}

absl::Status ReadStream::SkipTo(uint64_t offset) {
  std::vector<uint8_t> scratch;
  while (position_ < offset) {
    scratch.resize(std::min<uint64_t>(offset - position_, kInputChunk * 4));
    absl::StatusOr<size_t> n = Read(scratch);
    if (!n.ok()) return n.status();
    if (*n == 0) break;  // the end comes first: reads return nothing
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint8_t>> ReadWholeStream(ReadStream& in) {
  std::vector<uint8_t> out;
  size_t done = 0;
  for (;;) {
    out.resize(done + (1 << 20));
    absl::StatusOr<size_t> n = in.Read(std::span<uint8_t>(out).subspan(done));
    if (!n.ok()) return n.status();
    done += *n;
    if (*n == 0) break;
  }
  out.resize(done);
  return out;
}

}  // namespace mmvlog::archiver

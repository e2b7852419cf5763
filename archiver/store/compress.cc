#include "archiver/store/compress.h"

#include <lzma.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "archiver/file/posix_file.h"
#include "archiver/file/writable_file.h"

namespace mmvlog::archiver {

namespace {

// Moves `tmp_path` (written, synced, closed) over `out_path` and removes the
// uncompressed `path`.
absl::Status Publish(const std::string& path, const std::string& tmp_path,
                     const std::string& out_path) {
  if (::rename(tmp_path.c_str(), out_path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp_path.c_str());
    return absl::ErrnoToStatus(err, absl::StrCat("rename ", tmp_path));
  }
  if (::unlink(path.c_str()) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("remove ", path));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CompressFile(const std::string& path, int level) {
  absl::StatusOr<FileDescriptor> in = OpenForRead(path);
  if (!in.ok()) return in.status();
  const std::string out_path = absl::StrCat(path, ".zst");
  const std::string tmp_path = absl::StrCat(out_path, ".tmp");
  ::unlink(tmp_path.c_str());
  absl::StatusOr<std::unique_ptr<WritableFile>> out = OpenWritableFile(tmp_path);
  if (!out.ok()) return out.status();
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
  std::vector<uint8_t> ibuf(ZSTD_CStreamInSize()), obuf(ZSTD_CStreamOutSize());
  uint64_t offset = 0;
  auto fail = [&](absl::Status s) {
    (void)(*out)->Close();
    ::unlink(tmp_path.c_str());
    return s;
  };
  for (;;) {
    absl::StatusOr<size_t> n = ReadAt(in->get(), offset, ibuf, path);
    if (!n.ok()) return fail(n.status());
    offset += *n;
    const bool last = *n < ibuf.size();
    ZSTD_inBuffer input{ibuf.data(), *n, 0};
    bool finished = false;
    while (!finished) {
      ZSTD_outBuffer output{obuf.data(), obuf.size(), 0};
      size_t remaining = ZSTD_compressStream2(cctx.get(), &output, &input,
                                              last ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(remaining)) {
        return fail(absl::InternalError(absl::StrCat(
            "zstd compress ", path, ": ", ZSTD_getErrorName(remaining))));
      }
      if (absl::Status s = (*out)->Append({obuf.data(), output.pos}); !s.ok()) {
        return fail(s);
      }
      finished = last ? remaining == 0 : input.pos == input.size;
    }
    if (last) break;
  }
  if (absl::Status s = (*out)->Sync(); !s.ok()) return fail(s);
  if (absl::Status s = (*out)->Close(); !s.ok()) return fail(s);
  return Publish(path, tmp_path, out_path);
}


absl::Status CompressFileXz(const std::string& path, int level) {
  absl::StatusOr<FileDescriptor> in = OpenForRead(path);
  if (!in.ok()) return in.status();
  const std::string out_path = absl::StrCat(path, ".xz");
  const std::string tmp_path = absl::StrCat(out_path, ".tmp");
  ::unlink(tmp_path.c_str());
  absl::StatusOr<std::unique_ptr<WritableFile>> out = OpenWritableFile(tmp_path);
  if (!out.ok()) return out.status();
  lzma_stream strm = LZMA_STREAM_INIT;
  std::unique_ptr<lzma_stream, void (*)(lzma_stream*)> guard(&strm, lzma_end);
  auto fail = [&](absl::Status s) {
    (void)(*out)->Close();
    ::unlink(tmp_path.c_str());
    return s;
  };
  if (lzma_easy_encoder(&strm, static_cast<uint32_t>(level), LZMA_CHECK_CRC64) != LZMA_OK) {
    return fail(absl::InternalError(absl::StrCat("xz compress ", path, ": no encoder")));
  }
  std::vector<uint8_t> ibuf(1 << 20), obuf(1 << 20);
  uint64_t offset = 0, in_block = 0;
  for (;;) {
    absl::StatusOr<size_t> n = ReadAt(in->get(), offset, ibuf, path);
    if (!n.ok()) return fail(n.status());
    offset += *n;
    in_block += *n;
    const bool last = *n < ibuf.size();
    // A block ends every kXzBlockBytes of input (LZMA_FULL_FLUSH), as
    // xz --block-size does.
    const lzma_action action = last ? LZMA_FINISH
                               : in_block >= kXzBlockBytes ? LZMA_FULL_FLUSH
                                                           : LZMA_RUN;
    if (action == LZMA_FULL_FLUSH) in_block = 0;
    strm.next_in = ibuf.data();
    strm.avail_in = *n;
    for (;;) {
      strm.next_out = obuf.data();
      strm.avail_out = obuf.size();
      const lzma_ret ret = lzma_code(&strm, action);
      if (ret != LZMA_OK && ret != LZMA_STREAM_END) {
        return fail(absl::InternalError(absl::StrCat("xz compress ", path, ": error ", ret)));
      }
      if (absl::Status s = (*out)->Append({obuf.data(), obuf.size() - strm.avail_out}); !s.ok()) {
        return fail(s);
      }
      // A flush or the finish is done at LZMA_STREAM_END; a run once its
      // input is taken.
      if (ret == LZMA_STREAM_END) break;
      if (action == LZMA_RUN && strm.avail_in == 0 && strm.avail_out != 0) break;
    }
    if (last) break;
  }
  if (absl::Status s = (*out)->Sync(); !s.ok()) return fail(s);
  if (absl::Status s = (*out)->Close(); !s.ok()) return fail(s);
  return Publish(path, tmp_path, out_path);
}

const char* CodecSuffix(Codec codec) {
  switch (codec) {
    case Codec::kXz: return ".xz";
    case Codec::kZstd: return ".zst";
    case Codec::kNone: break;
  }
  return "";
}

Codec CodecPcpReads(const std::string& version) {
  // libpcp reads .zst from 6.3.2 on (io.c, through zstd -dcq).
  std::vector<std::string> parts = absl::StrSplit(version, '.');
  int v[3] = {0, 0, 0};
  for (size_t i = 0; i < 3; ++i) {
    if (i >= parts.size() || !absl::SimpleAtoi(parts[i], &v[i])) return Codec::kXz;
  }
  const bool zstd = v[0] > 6 || (v[0] == 6 && (v[1] > 3 || (v[1] == 3 && v[2] >= 2)));
  return zstd ? Codec::kZstd : Codec::kXz;
}

absl::Status CompressVolume(const std::string& path, Codec codec, int level) {
  switch (codec) {
    case Codec::kXz: return CompressFileXz(path, level > 0 ? level : kDefaultXzLevel);
    case Codec::kZstd: return CompressFile(path, level > 0 ? level : kDefaultCompressionLevel);
    case Codec::kNone: break;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint8_t>> ReadZstdFile(const std::string& path) {
  absl::StatusOr<std::string> compressed = ReadWholeFile(path);
  if (!compressed.ok()) return compressed.status();
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  // Decoded straight into `out`, grown geometrically: no copy through a
  // staging buffer (that copy held decoding to a third of the zstd tool's
  // speed). The frame's own content size is not used to size it: our frames
  // are streamed without one, and a damaged header must not decide how much
  // is allocated; nor does the compressed size beyond a first guess (volumes
  // compress about 8x).
  std::vector<uint8_t> out(std::clamp<size_t>(compressed->size() * 8, ZSTD_DStreamOutSize(),
                                              size_t{256} << 20));
  size_t filled = 0;
  ZSTD_inBuffer input{compressed->data(), compressed->size(), 0};
  for (;;) {
    if (out.size() - filled < ZSTD_DStreamOutSize()) out.resize(out.size() * 2);
    ZSTD_outBuffer output{out.data() + filled, out.size() - filled, 0};
    const size_t ret = ZSTD_decompressStream(dctx.get(), &output, &input);
    if (ZSTD_isError(ret)) {
      return absl::DataLossError(absl::StrCat(path, ": zstd: ", ZSTD_getErrorName(ret),
                                              " near compressed offset ", input.pos));
    }
    filled += output.pos;
    // ret == 0: a frame ended and is fully flushed. With no input left that
    // is the clean end (even when it filled `output` exactly: calling again
    // would ask for a next frame's header).
    if (input.pos == input.size) {
      if (ret == 0) break;
      if (output.pos < output.size) {
        return absl::DataLossError(absl::StrCat(path, ": zstd stream is truncated (",
                                                compressed->size(), " bytes)"));
      }
    }
  }
  out.resize(filled);
  return out;
}

}  // namespace mmvlog::archiver

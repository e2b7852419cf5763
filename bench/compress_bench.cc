// Compression of a finished archive volume: mmvlog's zstd (archiver/compress)
// side by side with xz -6 and xz -0 (liblzma presets 6 and 0, CRC64 check,
// as the xz command writes them), which is what PCP's own tools use to
// compress archive volumes. Results and the command: bench/README.md.
//
// One volume is made once per run, by the product's own code: an MMV file
// written with format/mmv_writer, changed between samples as a busy service
// changes its counters, recorded by archiver::Recorder into a v3 archive
// (the product default) with one sample every 10 s. The MMV file "app" has
// one instance domain of 100 instances and 100 metrics, so 10,000 values per
// sample:
//   60 U64 counters   per instance a rate drawn log-uniformly from 1 to 1e6
//                     per sample, each sample's increment the rate x
//                     U(0.5, 1.5), a 10x burst with probability 1/100; a
//                     fifth of the instances are idle (+1 with probability
//                     1/50); start values uniform in [0, 2^40).
//   10 U32 counters   small event counts: +0..3 per sample.
//   10 double gauges  utilisation-like: a level in [0, 100) per instance
//                     plus Gaussian noise (sd 5% of the level) each sample.
//   10 I64 gauges     memory-like byte counts: unchanged half the time,
//                     else a step of +-4 KiB x 0..255.
//   10 U32 constants  discrete, set once (configuration-like).
// kSamples samples give a volume of about 35 MB.
//
//   BM_ZstdCompressFile/L   archiver::CompressFile(path, L): the product's
//                           path (stream the file, write <path>.zst via a
//                           temporary, fsync, rename, unlink the input).
//                           The input is restored by a hard link and the
//                           .zst removed outside the timing.
//   BM_XzCompressFile/P     liblzma lzma_easy_encoder(P, LZMA_CHECK_CRC64)
//                           with the same file I/O as CompressFile (128 KiB
//                           reads, WritableFile, fsync). After the timing
//                           the xz command (`xz -P -c`) compresses the same
//                           volume; counter cli_identical is 1 when its
//                           output is byte-identical to liblzma's.
//   BM_ZstdDecompress/L     archiver::ReadZstdFile of the .zst written at
//                           level L (whole file into memory).
//   BM_XzDecompress/P       liblzma's stream decoder on the .xz from preset
//                           P, read whole, decoded into memory.
//
// bytes/s is volume bytes per CPU second (input for compression, output for
// decompression). Counters: volume = the volume's bytes, compressed = the
// compressed file's bytes, ratio = volume / compressed. The zstd -d check:
// at the first BM_ZstdDecompress of each level, `zstd -d -c` of the .zst
// must give the volume byte for byte (counter cli_identical).
//
// Files live in a new directory under $TEST_TMPDIR, else $TMPDIR, else /tmp
// (use TMPDIR=/dev/shm to keep disk latency out), removed at exit.
// COMPRESS_BENCH_SAVE=PATH copies the volume to PATH for other tools.
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "archiver/store/compress.h"
#include "archiver/file/posix_file.h"
#include "archiver/record/recorder.h"
#include "archiver/file/writable_file.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_writer.h"

namespace mmvlog {
namespace {

constexpr int kInstances = 100;
constexpr int kSamples = 200;
constexpr int64_t kIntervalSec = 10;
constexpr int64_t kStartSec = 1'700'000'000;
constexpr size_t kIoBuffer = 128 * 1024;  // = ZSTD_CStreamInSize(), as CompressFile reads

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "compress_bench: %s\n", what.c_str());
  std::abort();
}

void Check(const absl::Status& s, const std::string& what) {
  if (!s.ok()) Die(absl::StrCat(what, ": ", s.ToString()));
}

uint64_t FileSize(const std::string& path) {
  absl::StatusOr<struct stat> st = archiver::StatPath(path);
  Check(st.status(), path);
  return static_cast<uint64_t>(st->st_size);
}

bool SameBytes(const std::string& a, const std::string& b) {
  absl::StatusOr<std::string> x = archiver::ReadWholeFile(a);
  absl::StatusOr<std::string> y = archiver::ReadWholeFile(b);
  return x.ok() && y.ok() && *x == *y;
}

// Runs `sh -c command`; true if it exited 0.
bool Run(const std::string& command) { return std::system(command.c_str()) == 0; }

// --- the volume ----------------------------------------------------------------

enum class Kind { kCounter, kSmallCounter, kDoubleGauge, kBytesGauge, kConstant };

struct MetricModel {
  Kind kind;
  uint32_t item;
};

// Simulated values, one per (metric, instance), with the per-instance
// parameters that drive them.
class Simulation {
 public:
  explicit Simulation(const std::vector<MetricModel>& metrics) : metrics_(metrics), rng_(20261122) {
    std::uniform_real_distribution<double> u(0, 1);
    for (const MetricModel& m : metrics_) {
      for (int i = 0; i < kInstances; ++i) {
        Cell c;
        switch (m.kind) {
          case Kind::kCounter:
            c.rate = u(rng_) < 0.2 ? 0 : std::exp(u(rng_) * std::log(1e6));
            c.u64 = static_cast<uint64_t>(u(rng_) * std::ldexp(1.0, 40));
            break;
          case Kind::kSmallCounter:
            c.u64 = static_cast<uint64_t>(u(rng_) * 1e6);
            break;
          case Kind::kDoubleGauge:
            c.rate = u(rng_) * 100;
            c.d = c.rate;
            break;
          case Kind::kBytesGauge:
            c.i64 = static_cast<int64_t>(u(rng_) * 1e9) & ~int64_t{4095};
            break;
          case Kind::kConstant:
            c.u64 = static_cast<uint64_t>(1) << static_cast<int>(u(rng_) * 20);
            break;
        }
        cells_.push_back(c);
      }
    }
  }

  // Advances every value by one sample and stores it into `image`.
  void Step(format::MmvImage& image) {
    std::uniform_real_distribution<double> u(0, 1);
    std::normal_distribution<double> noise(0, 1);
    std::span<uint8_t> bytes(image.bytes);
    size_t k = 0;
    for (const MetricModel& m : metrics_) {
      for (int i = 0; i < kInstances; ++i, ++k) {
        Cell& c = cells_[k];
        const format::MmvValueSlot& slot = image.slot(m.item, i);
        switch (m.kind) {
          case Kind::kCounter:
            if (c.rate == 0) {
              c.u64 += u(rng_) < 0.02 ? 1 : 0;
            } else {
              double inc = c.rate * (0.5 + u(rng_));
              if (u(rng_) < 0.01) inc *= 10;
              c.u64 += static_cast<uint64_t>(inc);
            }
            format::SetMmvU64(bytes, slot, c.u64);
            break;
          case Kind::kSmallCounter:
            c.u64 += static_cast<uint64_t>(u(rng_) * 4);
            format::SetMmvU32(bytes, slot, static_cast<uint32_t>(c.u64));
            break;
          case Kind::kDoubleGauge:
            c.d = std::max(0.0, c.rate + noise(rng_) * 0.05 * c.rate);
            format::SetMmvDouble(bytes, slot, c.d);
            break;
          case Kind::kBytesGauge:
            if (u(rng_) < 0.5) {
              const int64_t step = static_cast<int64_t>(u(rng_) * 256) * 4096;
              c.i64 = std::max<int64_t>(0, c.i64 + (u(rng_) < 0.5 ? -step : step));
            }
            format::SetMmvI64(bytes, slot, c.i64);
            break;
          case Kind::kConstant:
            format::SetMmvU32(bytes, slot, static_cast<uint32_t>(c.u64));
            break;
        }
      }
    }
  }

 private:
  struct Cell {
    double rate = 0;
    uint64_t u64 = 0;
    int64_t i64 = 0;
    double d = 0;
  };
  std::vector<MetricModel> metrics_;
  std::vector<Cell> cells_;
  std::mt19937_64 rng_;
};

// The recorded volume and the directory holding it and its compressed forms.
class Volume {
 public:
  Volume() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    if (tmp == nullptr || *tmp == '\0') tmp = std::getenv("TMPDIR");
    if (tmp == nullptr || *tmp == '\0') tmp = "/tmp";
    dir_ = absl::StrCat(tmp, "/compress_bench.XXXXXX");
    if (::mkdtemp(dir_.data()) == nullptr) Die(absl::StrCat("mkdtemp in ", tmp));
    Record();
    bytes_ = FileSize(path_);
    if (const char* save = std::getenv("COMPRESS_BENCH_SAVE"); save != nullptr && *save != '\0') {
      std::error_code ec;
      std::filesystem::copy_file(path_, save, std::filesystem::copy_options::overwrite_existing, ec);
      if (ec) Die(absl::StrCat("copy to ", save, ": ", ec.message()));
    }
    std::fprintf(stderr, "volume: %s, %llu bytes, %d samples of %d values\n", path_.c_str(),
                 static_cast<unsigned long long>(bytes_), kSamples, values_);
  }
  ~Volume() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  const std::string& dir() const { return dir_; }
  const std::string& path() const { return path_; }
  uint64_t bytes() const { return bytes_; }

  // <dir>/work.0 as a hard link to the volume: a name CompressFile may
  // consume (it unlinks its input) without touching the volume.
  std::string FreshInput() const {
    const std::string in = dir_ + "/work.0";
    ::unlink(in.c_str());
    ::unlink((in + ".zst").c_str());
    if (::link(path_.c_str(), in.c_str()) != 0) Die(absl::StrCat("link ", in));
    return in;
  }

 private:
  void Record() {
    const std::string mmv_dir = dir_ + "/mmv";
    if (::mkdir(mmv_dir.c_str(), 0755) != 0) Die("mkdir " + mmv_dir);
    format::MmvSpec spec;
    spec.indoms.push_back({1, {}, "", ""});
    for (int i = 0; i < kInstances; ++i) spec.indoms[0].instances.push_back({i, absl::StrCat("worker", i)});
    std::vector<MetricModel> models;
    auto add = [&](Kind kind, int n, const char* prefix, format::MmvType type, int32_t sem) {
      for (int j = 0; j < n; ++j) {
        const uint32_t item = static_cast<uint32_t>(models.size() + 1);
        spec.metrics.push_back({absl::StrCat(prefix, j), item, type, sem, 0, 1, "", ""});
        models.push_back({kind, item});
      }
    };
    add(Kind::kCounter, 60, "requests.c", format::MmvType::kU64, format::kMmvSemCounter);
    add(Kind::kSmallCounter, 10, "events.c", format::MmvType::kU32, format::kMmvSemCounter);
    add(Kind::kDoubleGauge, 10, "util.g", format::MmvType::kDouble, format::kMmvSemInstant);
    add(Kind::kBytesGauge, 10, "memory.g", format::MmvType::kI64, format::kMmvSemInstant);
    add(Kind::kConstant, 10, "config.k", format::MmvType::kU32, format::kMmvSemDiscrete);
    values_ = static_cast<int>(models.size()) * kInstances;
    absl::StatusOr<format::MmvImage> image = format::BuildMmv(spec);
    Check(image.status(), "BuildMmv");
    Simulation sim(models);
    sim.Step(*image);
    const std::string mmv_path = mmv_dir + "/app";
    Check(archiver::WriteFileAtomically(mmv_path, image->bytes), mmv_path);
    // Later samples overwrite the values in place, as an application's
    // mapping does: same inode, size and generation.
    const int fd = ::open(mmv_path.c_str(), O_WRONLY);
    if (fd < 0) Die("open " + mmv_path);

    archiver::RecorderOptions o;
    o.mmv_dir = mmv_dir;
    o.archive_base = dir_ + "/archive";
    o.host.hostname = "bench";
    archiver::Recorder recorder(o, [](archiver::LogLevel, const std::string& line) {
      std::fprintf(stderr, "recorder: %s\n", line.c_str());
    });
    for (int s = 0; s < kSamples; ++s) {
      if (s > 0) {
        sim.Step(*image);
        if (::pwrite(fd, image->bytes.data(), image->bytes.size(), 0) !=
            static_cast<ssize_t>(image->bytes.size())) {
          Die("pwrite " + mmv_path);
        }
      }
      Check(recorder.Sample(absl::FromUnixSeconds(kStartSec + s * kIntervalSec)), "Sample");
    }
    Check(recorder.Close(), "Close");
    ::close(fd);
    if (recorder.stats().samples != kSamples) Die("samples missing");
    path_ = o.archive_base + ".0";
  }

  std::string dir_;
  std::string path_;
  uint64_t bytes_ = 0;
  int values_ = 0;
};

const Volume& TheVolume() {
  static const Volume* v = [] {
    static Volume volume;
    return &volume;
  }();
  return *v;
}

void SetCounters(benchmark::State& state, uint64_t compressed) {
  const double volume = static_cast<double>(TheVolume().bytes());
  state.counters["volume"] = volume;
  state.counters["compressed"] = static_cast<double>(compressed);
  state.counters["ratio"] = volume / static_cast<double>(compressed);
}

// --- zstd: the product's code ----------------------------------------------------

// <dir>/zstd<level>.0.zst: the last output of BM_ZstdCompressFile/<level>,
// or made here if that did not run.
std::map<int, std::string>& ZstFiles() {
  static std::map<int, std::string> files;
  return files;
}

const std::string& ZstFile(int level) {
  auto it = ZstFiles().find(level);
  if (it != ZstFiles().end()) return it->second;
  const std::string in = absl::StrCat(TheVolume().dir(), "/zstd", level, ".0");
  if (::link(TheVolume().path().c_str(), in.c_str()) != 0) Die("link " + in);
  Check(archiver::CompressFile(in, level), in);
  return ZstFiles()[level] = in + ".zst";
}

void BM_ZstdCompressFile(benchmark::State& state) {
  const int level = static_cast<int>(state.range(0));
  const Volume& volume = TheVolume();
  std::string out;
  for (auto _ : state) {
    state.PauseTiming();
    const std::string in = volume.FreshInput();
    state.ResumeTiming();
    Check(archiver::CompressFile(in, level), in);
    out = in + ".zst";
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * volume.bytes()));
  SetCounters(state, FileSize(out));
  const std::string keep = absl::StrCat(volume.dir(), "/zstd", level, ".0.zst");
  if (::rename(out.c_str(), keep.c_str()) != 0) Die("rename " + out);
  ZstFiles()[level] = keep;
}

void BM_ZstdDecompress(benchmark::State& state) {
  const int level = static_cast<int>(state.range(0));
  const Volume& volume = TheVolume();
  const std::string& zst = ZstFile(level);
  for (auto _ : state) {
    absl::StatusOr<std::vector<uint8_t>> out = archiver::ReadZstdFile(zst);
    Check(out.status(), zst);
    if (out->size() != volume.bytes()) Die("zstd: wrong size back");
    benchmark::DoNotOptimize(out->data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * volume.bytes()));
  SetCounters(state, FileSize(zst));
  // The standard tool gives the volume back byte for byte.
  const std::string back = zst + ".cli";
  const bool same = Run(absl::StrCat("zstd -q -d -c ", zst, " > ", back)) && SameBytes(back, volume.path());
  ::unlink(back.c_str());
  state.counters["cli_identical"] = same ? 1 : 0;
}

// --- xz through liblzma ----------------------------------------------------------------

// Streams `in` to `out` through `strm` (an encoder or decoder already set
// up) with CompressFile's I/O: 128 KiB reads, WritableFile appends, fsync.
absl::Status Code(lzma_stream& strm, const std::string& in, const std::string& out) {
  absl::StatusOr<archiver::FileDescriptor> fd = archiver::OpenForRead(in);
  if (!fd.ok()) return fd.status();
  ::unlink(out.c_str());
  absl::StatusOr<std::unique_ptr<archiver::WritableFile>> file = archiver::OpenWritableFile(out);
  if (!file.ok()) return file.status();
  std::vector<uint8_t> ibuf(kIoBuffer), obuf(kIoBuffer);
  uint64_t offset = 0;
  bool eof = false;
  strm.next_out = obuf.data();
  strm.avail_out = obuf.size();
  for (;;) {
    if (strm.avail_in == 0 && !eof) {
      absl::StatusOr<size_t> n = archiver::ReadAt(fd->get(), offset, ibuf, in);
      if (!n.ok()) return n.status();
      offset += *n;
      eof = *n == 0;
      strm.next_in = ibuf.data();
      strm.avail_in = *n;
    }
    const lzma_ret r = lzma_code(&strm, eof ? LZMA_FINISH : LZMA_RUN);
    if (strm.avail_out == 0 || r == LZMA_STREAM_END) {
      if (absl::Status s = (*file)->Append({obuf.data(), obuf.size() - strm.avail_out}); !s.ok()) return s;
      strm.next_out = obuf.data();
      strm.avail_out = obuf.size();
    }
    if (r == LZMA_STREAM_END) break;
    if (r != LZMA_OK) return absl::InternalError(absl::StrCat("lzma_code: error ", static_cast<int>(r)));
  }
  if (absl::Status s = (*file)->Sync(); !s.ok()) return s;
  return (*file)->Close();
}

absl::Status XzCompressFile(const std::string& in, const std::string& out, uint32_t preset) {
  lzma_stream strm = LZMA_STREAM_INIT;
  if (lzma_easy_encoder(&strm, preset, LZMA_CHECK_CRC64) != LZMA_OK) {
    return absl::InternalError("lzma_easy_encoder");
  }
  absl::Status s = Code(strm, in, out);
  lzma_end(&strm);
  return s;
}

// Decodes a whole .xz file into memory, as ReadZstdFile does for .zst.
absl::StatusOr<std::vector<uint8_t>> ReadXzFile(const std::string& path) {
  absl::StatusOr<std::string> compressed = archiver::ReadWholeFile(path);
  if (!compressed.ok()) return compressed.status();
  lzma_stream strm = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&strm, UINT64_MAX, 0) != LZMA_OK) return absl::InternalError("lzma_stream_decoder");
  std::vector<uint8_t> out, obuf(kIoBuffer);
  strm.next_in = reinterpret_cast<const uint8_t*>(compressed->data());
  strm.avail_in = compressed->size();
  lzma_ret r;
  do {
    strm.next_out = obuf.data();
    strm.avail_out = obuf.size();
    r = lzma_code(&strm, LZMA_FINISH);
    out.insert(out.end(), obuf.begin(), obuf.end() - strm.avail_out);
  } while (r == LZMA_OK);
  lzma_end(&strm);
  if (r != LZMA_STREAM_END) return absl::DataLossError(absl::StrCat(path, ": lzma error ", static_cast<int>(r)));
  return out;
}

std::string XzPath(int preset) { return absl::StrCat(TheVolume().dir(), "/xz", preset, ".0.xz"); }

void BM_XzCompressFile(benchmark::State& state) {
  const int preset = static_cast<int>(state.range(0));
  const Volume& volume = TheVolume();
  const std::string out = XzPath(preset);
  for (auto _ : state) {
    Check(XzCompressFile(volume.path(), out, static_cast<uint32_t>(preset)), out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * volume.bytes()));
  SetCounters(state, FileSize(out));
  // What the xz command itself writes for the same volume and preset.
  const std::string cli = out + ".cli";
  const bool ran = Run(absl::StrCat("xz -", preset, " -c ", volume.path(), " > ", cli));
  state.counters["cli_compressed"] = ran ? static_cast<double>(FileSize(cli)) : -1;
  state.counters["cli_identical"] = ran && SameBytes(cli, out) ? 1 : 0;
  ::unlink(cli.c_str());
}

void BM_XzDecompress(benchmark::State& state) {
  const int preset = static_cast<int>(state.range(0));
  const Volume& volume = TheVolume();
  const std::string xz = XzPath(preset);
  if (::access(xz.c_str(), F_OK) != 0) {
    Check(XzCompressFile(volume.path(), xz, static_cast<uint32_t>(preset)), xz);
  }
  for (auto _ : state) {
    absl::StatusOr<std::vector<uint8_t>> back = ReadXzFile(xz);
    Check(back.status(), xz);
    if (back->size() != volume.bytes()) Die("xz: wrong size back");
    benchmark::DoNotOptimize(back->data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * volume.bytes()));
  SetCounters(state, FileSize(xz));
}

// The product's level first, then 1, 3 (zstd's own default) and 19 (its
// highest without --ultra) for context.
void ZstdLevels(benchmark::internal::Benchmark* b) {
  b->Arg(archiver::kDefaultCompressionLevel);
  for (int level : {1, 3, 19}) {
    if (level != archiver::kDefaultCompressionLevel) b->Arg(level);
  }
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_ZstdCompressFile)->Apply(ZstdLevels);
BENCHMARK(BM_XzCompressFile)->Arg(6)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ZstdDecompress)->Apply(ZstdLevels);
BENCHMARK(BM_XzDecompress)->Arg(6)->Arg(0)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mmvlog

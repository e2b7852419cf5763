// End-to-end cost of one recorder sample: snapshot the MMV file (pread of
// its values), build the result, encode it and write it to the archive (the
// page cache), for 1k, 10k, 100k and 1M values. Beside it, in the same
// binary, the bare loop the product should approach: pread the VALUES
// section, encode a v2 pmResult of U64 values by hand, one write(2); and
// PCP's LOGIMPORT recording the same files through its fastest path: the
// same preads, the values copied into a pmResult made once, pmiPutResult.
//
// Model: one application, U64 counters, 100 instances per metric
// (10 x 100 = 1k values ... 10,000 x 100 = 1M values; items above 1023 go
// to further files, as PMIDs allow 1023 items per file).
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <pcp/pmapi.h>
#include <pcp/import.h>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "archiver/schedule/log_plan.h"
#include "archiver/file/posix_file.h"
#include "archiver/record/recorder.h"
#include "archiver/file/write_behind.h"
#include "format/endian.h"
#include "format/text/logger_config.h"
#include "format/mmv/mmv_reader.h"
#include "format/mmv/mmv_writer.h"

namespace mmvlog {
namespace {

constexpr int kInstances = 100;
constexpr int kMaxMetricsPerFile = 1000;

std::string TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  std::string tmpl = absl::StrCat(t ? t : "/tmp", "/recorder_bench_XXXXXX");
  if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
  return tmpl;
}

// Writes files holding `values` U64 values in total into dir/mmv; returns
// their paths.
std::vector<std::string> WriteFiles(const std::string& dir, int64_t values) {
  ::mkdir((dir + "/mmv").c_str(), 0755);
  std::vector<std::string> paths;
  int64_t metrics = values / kInstances;
  for (int f = 0; metrics > 0; ++f) {
    format::MmvSpec spec;
    spec.indoms.push_back({1, {}, "", ""});
    for (int i = 0; i < kInstances; ++i) spec.indoms[0].instances.push_back({i, absl::StrCat("i", i)});
    const int n = static_cast<int>(std::min<int64_t>(metrics, kMaxMetricsPerFile));
    for (int m = 0; m < n; ++m) {
      spec.metrics.push_back({absl::StrCat("m", m), static_cast<uint32_t>(m + 1), format::MmvType::kU64,
                              format::kMmvSemCounter, 0, 1, "", ""});
    }
    metrics -= n;
    absl::StatusOr<format::MmvImage> image = format::BuildMmv(spec);
    if (!image.ok()) std::abort();
    const std::string path = absl::StrCat(dir, "/mmv/app", f);
    if (!archiver::WriteFileAtomically(path, image->bytes).ok()) std::abort();
    paths.push_back(path);
  }
  // As in a long recording, the directory last changed well before this
  // sample: older than DirListing's one-second window, in which it would
  // re-read the directory every sample.
  const struct timespec ago[2] = {{::time(nullptr) - 10, 0}, {::time(nullptr) - 10, 0}};
  if (::utimensat(AT_FDCWD, (dir + "/mmv").c_str(), ago, 0) != 0) std::abort();
  return paths;
}

void RemoveFinished(archiver::Recorder& r) {
  for (const std::string& v : r.TakeFinishedVolumes()) ::unlink(v.c_str());
}

// `write_behind`: the product's default (archiver/file/write_behind.h), which
// writes volumes to disk as they grow; off, the sample ends in the page
// cache like the bare loop's, whose data never reaches the disk here
// (truncated before the kernel writes it back).
void RecorderSample(benchmark::State& state, bool write_behind) {
  const int64_t values = state.range(0);
  const std::string dir = TempDir();
  WriteFiles(dir, values);
  archiver::RecorderOptions o;
  o.mmv_dir = dir + "/mmv";
  o.archive_base = dir + "/archive";
  o.archive.version = 2;
  // Volumes of 64 MiB (a recorder rotates rarely; mmvlog's default is
  // never), deleted when finished to bound disk use.
  o.archive.max_volume_bytes = 64 << 20;
  o.archive.write_behind = write_behind;
  o.host.hostname = "bench";
  archiver::Recorder recorder(o, [](archiver::LogLevel, const std::string&) {});
  absl::Time t = absl::FromUnixSeconds(1'700'000'000);
  if (!recorder.Sample(t).ok()) std::abort();  // first sample: metadata
  // Second: the first steady sample encodes the whole result once and keeps
  // it as the template later samples store values into.
  t += absl::Seconds(1);
  if (!recorder.Sample(t).ok()) std::abort();
  archiver::WriteBehind::Global().Drain();  // nothing left from the last run
  for (auto _ : state) {
    t += absl::Seconds(1);
    if (!recorder.Sample(t).ok()) std::abort();
    state.PauseTiming();
    RemoveFinished(recorder);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * values);
  (void)recorder.Close();
  archiver::WriteBehind::Global().Drain();
  if (std::system(absl::StrCat("rm -rf ", dir).c_str()) != 0) std::perror("rm");
}

// A tick under a pmlogger configuration (-c) against one interval, over the
// same 10k values (mmv.app0.m0 .. m99, 100 instances each), every group due
// (the worst tick: all cadences meet): kOneInterval, no configuration, one
// result; kThreeGroups, 1 sec / 10 sec / 1 min over a third of the metrics
// each, three results; kInstanceLists, the same with every instance of the
// last group named by number (the projected path that filters instances).
enum class Plan { kOneInterval, kThreeGroups, kInstanceLists };

std::shared_ptr<archiver::LogPlan> MakePlan(Plan kind) {
  if (kind == Plan::kOneInterval) return nullptr;
  std::string text;
  const char* cadence[] = {"1 sec", "10 sec", "1 min"};
  for (int g = 0; g < 3; ++g) {
    absl::StrAppend(&text, "log mandatory on every ", cadence[g], " {\n");
    for (int m = g * 34; m < std::min(100, (g + 1) * 34); ++m) {
      absl::StrAppend(&text, "  mmv.app0.m", m);
      if (kind == Plan::kInstanceLists && g == 2) {
        text += " [";
        for (int i = 0; i < kInstances; ++i) absl::StrAppend(&text, " ", i);
        text += " ]";
      }
      text += "\n";
    }
    text += "}\n";
  }
  format::PmcppOptions o;
  o.load = [](const std::string& p) -> absl::StatusOr<std::string> {
    return absl::NotFoundError(p);
  };
  absl::StatusOr<format::LoggerConfig> config = format::ParseLoggerConfigText(text, "bench", o);
  if (!config.ok()) std::abort();
  return std::make_shared<archiver::LogPlan>(*config, absl::Seconds(60));
}

void ConfigTick(benchmark::State& state, Plan kind) {
  const int64_t values = 10000;
  const std::string dir = TempDir();
  WriteFiles(dir, values);
  archiver::RecorderOptions o;
  o.mmv_dir = dir + "/mmv";
  o.archive_base = dir + "/archive";
  o.archive.max_volume_bytes = 64 << 20;
  o.archive.write_behind = false;
  o.host.hostname = "bench";
  o.plan = MakePlan(kind);
  archiver::Recorder recorder(o, [](archiver::LogLevel, const std::string&) {});
  absl::Time t = absl::FromUnixSeconds(1'700'000'000);
  for (int warm = 0; warm < 2; ++warm) {  // metadata, then the templates
    if (!recorder.Sample(t).ok()) std::abort();
    t += absl::Seconds(1);
  }
  for (auto _ : state) {
    t += absl::Seconds(1);
    if (!recorder.Sample(t).ok()) std::abort();  // every group
    state.PauseTiming();
    RemoveFinished(recorder);
    state.ResumeTiming();
  }
  if (recorder.stats().values != static_cast<uint64_t>(values) * recorder.stats().samples) {
    std::abort();  // each tick must log the same 10k values
  }
  state.counters["results/tick"] =
      static_cast<double>(recorder.stats().results) / recorder.stats().samples;
  state.SetItemsProcessed(state.iterations() * values);
  (void)recorder.Close();
  if (std::system(absl::StrCat("rm -rf ", dir).c_str()) != 0) std::perror("rm");
}

void BM_ConfigTick_OneInterval(benchmark::State& s) { ConfigTick(s, Plan::kOneInterval); }
void BM_ConfigTick_ThreeGroups(benchmark::State& s) { ConfigTick(s, Plan::kThreeGroups); }
void BM_ConfigTick_InstanceLists(benchmark::State& s) { ConfigTick(s, Plan::kInstanceLists); }

void BM_RecorderSample(benchmark::State& state) { RecorderSample(state, false); }
void BM_RecorderSampleWriteBehind(benchmark::State& state) { RecorderSample(state, true); }

// The MMV files of WriteFiles, opened and parsed, with a buffer for each
// one's VALUES section.
struct ValuesFile {
  int fd;
  format::MmvFile mmv;
  std::vector<uint8_t> buf;
};

std::vector<ValuesFile> OpenFiles(const std::vector<std::string>& paths) {
  std::vector<ValuesFile> files;
  for (const std::string& p : paths) {
    absl::StatusOr<std::string> bytes = archiver::ReadWholeFile(p);
    absl::StatusOr<format::MmvFile> mmv = format::ParseMmv(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()));
    if (!mmv.ok()) std::abort();
    files.push_back({::open(p.c_str(), O_RDONLY), *mmv, std::vector<uint8_t>(mmv->values_size)});
  }
  return files;
}

// The reference: one pread of each file's VALUES section, a hand-made v2
// pmResult (one pmValueSet per metric, DPTR U64 blocks), one write(2).
void BM_BareLoop(benchmark::State& state) {
  const int64_t values = state.range(0);
  const std::string dir = TempDir();
  std::vector<ValuesFile> files = OpenFiles(WriteFiles(dir, values));
  const int out = ::open((dir + "/bare.0").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<uint8_t> rec;
  uint32_t sec = 1'700'000'000;
  int64_t written = 0;
  for (auto _ : state) {
    rec.clear();
    size_t nsets = 0;
    for (const ValuesFile& f : files) nsets += f.mmv.metrics.size();
    const size_t header = 4 + 12;  // length + sec, usec, numpmid
    const size_t sets = nsets * 12 + static_cast<size_t>(values) * 8;
    const size_t blocks = static_cast<size_t>(values) * 12;
    rec.resize(header + sets + blocks + 4);
    uint8_t* p = rec.data();
    format::StoreBig32(p, static_cast<uint32_t>(rec.size()));
    format::StoreBig32(p + 4, ++sec);
    format::StoreBig32(p + 8, 0);
    format::StoreBig32(p + 12, static_cast<uint32_t>(nsets));
    size_t at = header, block = header + sets;
    uint32_t pmid = 0;
    for (ValuesFile& f : files) {
      if (::pread(f.fd, f.buf.data(), f.buf.size(), static_cast<off_t>(f.mmv.values_offset)) < 0) std::abort();
      size_t v = 0;
      for (size_t m = 0; m < f.mmv.metrics.size(); ++m) {
        format::StoreBig32(p + at, ++pmid);
        format::StoreBig32(p + at + 4, kInstances);
        format::StoreBig32(p + at + 8, 1);  // PM_VAL_DPTR
        at += 12;
        for (int i = 0; i < kInstances; ++i, ++v) {
          format::StoreBig32(p + at, static_cast<uint32_t>(i));
          format::StoreBig32(p + at + 4, static_cast<uint32_t>((block + 4) / 4));
          at += 8;
          format::StoreBig32(p + block, (3u << 24) | 12u);  // U64, 4 + 8 bytes
          format::StoreBig64(p + block + 4, format::LoadNative<uint64_t>(f.buf.data() + v * 32));
          block += 12;
        }
      }
    }
    format::StoreBig32(p + rec.size() - 4, static_cast<uint32_t>(rec.size()));
    if (::write(out, rec.data(), rec.size()) != static_cast<ssize_t>(rec.size())) std::abort();
    written += rec.size();
    if (written > (256 << 20)) {
      state.PauseTiming();
      if (::ftruncate(out, 0) != 0 || ::lseek(out, 0, SEEK_SET) != 0) std::abort();
      written = 0;
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations() * values);
  ::close(out);
  for (ValuesFile& f : files) ::close(f.fd);
  if (std::system(absl::StrCat("rm -rf ", dir).c_str()) != 0) std::perror("rm");
}

// LOGIMPORT (libpcp_import) recording the same files as the recorder: its
// fastest path, pmiPutResult of a pmResult whose value sets and
// pmValueBlocks are made once; per sample the same preads as the bare loop
// and each value copied into its block. Metrics bench.app<F>.m<M> over one
// 100-instance indom per file, as the recorder maps them; v2 archive.
void BM_LogImportSample(benchmark::State& state) {
  const int64_t values = state.range(0);
  const std::string dir = TempDir();
  std::vector<ValuesFile> files = OpenFiles(WriteFiles(dir, values));
  setenv("PCP_ARCHIVE_VERSION", "2", 1);
  if (pmiStart((dir + "/logimport").c_str(), 0) < 0 || pmiSetHostname("bench") < 0) {
    return state.SkipWithError("pmiStart failed");
  }
  const pmUnits count = pmiUnits(0, 0, 1, 0, 0, PM_COUNT_ONE);
  size_t nsets = 0;
  for (size_t f = 0; f < files.size(); ++f) {
    const pmInDom indom = pmiInDom(70, static_cast<int>(f + 1));
    for (int i = 0; i < kInstances; ++i) {
      if (pmiAddInstance(indom, absl::StrCat("i", i).c_str(), i) < 0) {
        return state.SkipWithError("pmiAddInstance failed");
      }
    }
    for (size_t m = 0; m < files[f].mmv.metrics.size(); ++m, ++nsets) {
      if (pmiAddMetric(absl::StrCat("bench.app", f, ".m", m).c_str(),
                       pmiID(70, static_cast<int>(f + 1), static_cast<int>(m + 1)), PM_TYPE_U64,
                       indom, PM_SEM_COUNTER, count) < 0) {
        return state.SkipWithError("pmiAddMetric failed");
      }
    }
  }
  // pmValueBlocks of 16 bytes (4-byte header, 8-byte value in host order).
  std::vector<char> blocks(static_cast<size_t>(values) * 16);
  std::vector<std::vector<char>> set_memory(nsets);
  std::vector<char> result_memory(sizeof(pmResult) + nsets * sizeof(pmValueSet*));
  auto* result = reinterpret_cast<pmResult*>(result_memory.data());
  result->numpmid = static_cast<int>(nsets);
  size_t s = 0, v = 0;
  for (size_t f = 0; f < files.size(); ++f) {
    for (size_t m = 0; m < files[f].mmv.metrics.size(); ++m, ++s) {
      set_memory[s].resize(sizeof(pmValueSet) + kInstances * sizeof(pmValue));
      auto* set = reinterpret_cast<pmValueSet*>(set_memory[s].data());
      set->pmid = pmiID(70, static_cast<int>(f + 1), static_cast<int>(m + 1));
      set->numval = kInstances;
      set->valfmt = PM_VAL_DPTR;
      for (int i = 0; i < kInstances; ++i, ++v) {
        auto* block = reinterpret_cast<pmValueBlock*>(blocks.data() + v * 16);
        block->vtype = PM_TYPE_U64;
        block->vlen = PM_VAL_HDR_SIZE + sizeof(uint64_t);
        set->vlist[i].inst = i;
        set->vlist[i].value.pval = block;
      }
      result->vset[s] = set;
    }
  }
  int64_t sec = 1'700'000'000;
  for (auto _ : state) {
    result->timestamp.tv_sec = ++sec;
    result->timestamp.tv_usec = 0;
    size_t at = 0;
    for (ValuesFile& f : files) {
      if (::pread(f.fd, f.buf.data(), f.buf.size(), static_cast<off_t>(f.mmv.values_offset)) < 0) std::abort();
      // WriteFiles lays values out metric by metric, instance by instance:
      // the result's order.
      const size_t n = f.buf.size() / 32;
      for (size_t k = 0; k < n; ++k, ++at) {
        std::memcpy(blocks.data() + at * 16 + PM_VAL_HDR_SIZE, f.buf.data() + k * 32, 8);
      }
    }
    if (pmiPutResult(result) < 0) return state.SkipWithError("pmiPutResult failed");
  }
  state.SetItemsProcessed(state.iterations() * values);
  (void)pmiEnd();
  for (ValuesFile& f : files) ::close(f.fd);
  if (std::system(absl::StrCat("rm -rf ", dir).c_str()) != 0) std::perror("rm");
}

BENCHMARK(BM_BareLoop)->Arg(1000)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RecorderSample)->Arg(1000)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMicrosecond);
// Process CPU time: the write-behind thread's work is part of the cost.
BENCHMARK(BM_RecorderSampleWriteBehind)
    ->Arg(1000)->Arg(10000)->Arg(100000)->Arg(1000000)
    ->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LogImportSample)->Arg(1000)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_ConfigTick_OneInterval)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConfigTick_ThreeGroups)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConfigTick_InstanceLists)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mmvlog

// Benchmarks for writing archive results: mmvlog's encoder and ArchiveWriter
// side by side with PCP 6.0.3's LOGIMPORT (libpcp_import), which writes the
// same values. Results and the command that produced them: bench/README.md.
//
// Every benchmark writes the same samples: a v2 archive, U64 counters
// `bench.m<M>` (PMIDs 245.0.M) over one instance domain of I instances
// (inst 0..I-1, named "i<inst>"), one result per iteration holding all
// M x I values. Sizes (values per result): 1 x 1,000, 100 x 1,000 and
// 1,000 x 1,000, i.e. 1k, 100k and 1M values. Iteration k has timestamp
// kStartSec + k seconds and value kValueBase + 1000 * (m * I + i) + k for
// metric m, instance i: every iteration is a distinct sample, and updating
// the values is part of the timed work in every benchmark.
//
// Why I is capped at 1,000 rather than one metric over 1M instances:
// LOGIMPORT 6.0.3 cannot set that up in bounded time. pmiAddInstance scans
// every instance already added (duplicate-name check) and rebuilds all name
// pointers, and pmiGetHandle searches the instances linearly, so defining N
// instances is O(N^2) (30,000 took 3.8 s here; 1M would take over an hour),
// and pmiPutValueHandle scans the values already in the metric's set for a
// duplicate instance, so a result with N values of one metric is O(N^2) too.
//
//   BM_EncodeResult            format::EncodeResult into a reused buffer:
//                              pure encoding, no I/O.
//   BM_ArchiveWriterAppend     ArchiveWriter::AppendResult to a new archive
//                              in a temporary directory: encoding, index
//                              entries and write(2) to the page cache.
//   BM_LogImportPutResult      LOGIMPORT's fastest path: a pmResult built
//                              once (pmValueBlocks allocated once, values
//                              overwritten each iteration) given to
//                              pmiPutResult, which encodes and writes it at
//                              once (pmiWrite is only for values accumulated
//                              by pmiPutValue*; pmiPutResult(3)).
//   BM_LogImportPutValueHandle LOGIMPORT's per-value path: a handle per
//                              metric-instance from pmiGetHandle (set up
//                              once), then per iteration pmiPutValueHandle
//                              for each value (the value as decimal text,
//                              as the API takes it) and pmiWrite.
//
// items/s is values per second (CPU time); bytes/s counts the bytes encoded
// (BM_EncodeResult) or the archive files written (.0, .meta, .index: the
// volumes are byte-identical but for the label's PID, the .index differs as
// the two libraries place index entries differently). The writers start a
// fresh archive in a new directory under $TEST_TMPDIR, else $TMPDIR, else
// /tmp, for every run of the benchmark function and delete it afterwards.
// On ext4 the kernel's page-cache path makes the writers' times bimodal at
// 100k and 1M values; TMPDIR=/dev/shm (tmpfs) gives steady numbers.
#include <stdlib.h>
#include <sys/time.h>

#include <pcp/pmapi.h>
#include <pcp/import.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "archiver/store/archive_writer.h"
#include "bench/bench_archive.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_result.h"
#include "format/archive/archive_types.h"
#include "format/endian.h"
#include "format/archive/result_template.h"

namespace mmvlog {
namespace {

constexpr int kVersion = 2;
constexpr int kDomain = bench::kBenchDomain;
constexpr int kIndomSerial = bench::kBenchIndomSerial;
constexpr int64_t kStartSec = bench::kBenchStartSec;
constexpr uint64_t kValueBase = 1'000'000'000'000;

// The shape of a result: `metrics` x `instances` values.
struct Shape {
  int metrics = 0;
  int instances = 0;

  int64_t values() const { return int64_t{metrics} * instances; }
};

Shape ShapeOf(const benchmark::State& state) {
  return {static_cast<int>(state.range(0)), static_cast<int>(state.range(1))};
}

// The value of metric m, instance i (index m * I + i) in iteration k.
uint64_t SampleValue(int64_t index, int64_t k) {
  return kValueBase + 1000 * static_cast<uint64_t>(index) +
         static_cast<uint64_t>(k);
}

std::string MetricName(int m) { return absl::StrCat("bench.m", m); }
std::string InstanceName(int i) { return absl::StrCat("i", i); }

// A fresh temporary directory, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    const char* tmp = getenv("TEST_TMPDIR");
    if (tmp == nullptr || *tmp == '\0') tmp = getenv("TMPDIR");
    if (tmp == nullptr || *tmp == '\0') tmp = "/tmp";
    std::string dir = absl::StrCat(tmp, "/archive_bench.XXXXXX");
    if (mkdtemp(dir.data()) != nullptr) path_ = dir;
  }
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Empty if the directory could not be made.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Bytes in the files under `dir` (the archive just written).
int64_t DirBytes(const std::string& dir) {
  int64_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec)) n += static_cast<int64_t>(e.file_size(ec));
  }
  return n;
}

// --- mmvlog ------------------------------------------------------------------

format::Result MakeResult(Shape shape) {
  format::Result r;
  r.sets.resize(shape.metrics);
  for (int m = 0; m < shape.metrics; ++m) {
    format::ValueSet& set = r.sets[m];
    set.pmid = format::PmidBuild(kDomain, 0, m);
    set.type = format::kTypeU64;
    set.values.resize(shape.instances);
    for (int i = 0; i < shape.instances; ++i) set.values[i].inst = i;
  }
  return r;
}

// Sets the timestamp and values of iteration k.
void UpdateResult(int64_t k, format::Result* r) {
  r->timestamp = {kStartSec + k, 0};
  int64_t index = 0;
  for (format::ValueSet& set : r->sets) {
    for (format::ResultValue& v : set.values) v.u64 = SampleValue(index++, k);
  }
}

void BM_EncodeResult(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  format::Result result = MakeResult(shape);
  std::vector<uint8_t> out;
  out.reserve(format::EncodedResultSize(kVersion, result));
  int64_t k = 0;
  for (auto _ : state) {
    UpdateResult(k++, &result);
    out.clear();
    format::EncodeResult(kVersion, result, &out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * shape.values());
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(out.size()));
}

// A new archive <dir>/a with the descriptors and the instance domain of
// `shape` written (bench::AddBenchMetadata).
absl::StatusOr<std::unique_ptr<archiver::ArchiveWriter>> NewWriter(const std::string& dir,
                                                                   Shape shape) {
  archiver::ArchiveOptions options;
  options.version = kVersion;
  options.hostname = "bench";
  options.timezone = "UTC";
  absl::StatusOr<std::unique_ptr<archiver::ArchiveWriter>> writer =
      archiver::ArchiveWriter::Create(dir + "/a", options, {kStartSec, 0});
  if (!writer.ok()) return writer.status();
  if (absl::Status s = bench::AddBenchMetadata(shape.metrics, shape.instances, writer->get());
      !s.ok()) {
    return s;
  }
  return writer;
}

void BM_ArchiveWriterAppend(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  TempDir dir;
  if (dir.path().empty()) return state.SkipWithError("mkdtemp failed");
  absl::StatusOr<std::unique_ptr<archiver::ArchiveWriter>> writer = NewWriter(dir.path(), shape);
  if (!writer.ok()) return state.SkipWithError(writer.status().ToString().c_str());
  format::Result result = MakeResult(shape);
  int64_t k = 0;
  for (auto _ : state) {
    UpdateResult(k++, &result);
    if (absl::Status s = (*writer)->AppendResult(result); !s.ok()) {
      return state.SkipWithError(s.ToString().c_str());
    }
  }
  if (absl::Status s = (*writer)->Close(); !s.ok()) {
    return state.SkipWithError(s.ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * shape.values());
  state.SetBytesProcessed(DirBytes(dir.path()));
}

// The recorder's steady path: the result encoded once (format::ResultTemplate),
// then per sample only the timestamp and the values stored into the record,
// appended with AppendEncodedResult.
void BM_ArchiveWriterTemplate(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  TempDir dir;
  if (dir.path().empty()) return state.SkipWithError("mkdtemp failed");
  absl::StatusOr<std::unique_ptr<archiver::ArchiveWriter>> writer = NewWriter(dir.path(), shape);
  if (!writer.ok()) return state.SkipWithError(writer.status().ToString().c_str());
  format::Result result = MakeResult(shape);
  UpdateResult(0, &result);
  if (absl::Status s = (*writer)->AppendResult(result); !s.ok()) {
    return state.SkipWithError(s.ToString().c_str());
  }
  std::optional<format::ResultTemplate> tmpl = format::ResultTemplate::Make(kVersion, result);
  if (!tmpl.has_value()) return state.SkipWithError("no template");
  int64_t k = 1;
  for (auto _ : state) {
    tmpl->SetTimestamp({kStartSec + k, 0});
    int64_t index = 0;
    uint8_t* rec = tmpl->data();
    for (const format::ValueSlots& slots : tmpl->sets()) {
      for (uint32_t i = 0; i < slots.count; ++i) {
        format::StoreBig64(rec + slots.first + i * slots.stride, SampleValue(index++, k));
      }
    }
    if (absl::Status s = (*writer)->AppendEncodedResult(tmpl->timestamp(), tmpl->record());
        !s.ok()) {
      return state.SkipWithError(s.ToString().c_str());
    }
    ++k;
  }
  if (absl::Status s = (*writer)->Close(); !s.ok()) {
    return state.SkipWithError(s.ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * shape.values());
  state.SetBytesProcessed(DirBytes(dir.path()));
}

// --- LOGIMPORT ---------------------------------------------------------------

// A LOGIMPORT context writing archive <dir>/a with the metrics and instances
// of `shape` defined (no metadata is written until the first result). LOGIMPORT
// keeps a current context per process; this one is ended on destruction.
class LogImport {
 public:
  LogImport(const std::string& dir, Shape shape) {
    // As pmlogger: the archive version comes from PCP_ARCHIVE_VERSION.
    setenv("PCP_ARCHIVE_VERSION", "2", 1);
    const std::string base = dir + "/a";
    if (int rc = pmiStart(base.c_str(), 0); rc < 0) {
      error_ = absl::StrCat("pmiStart: ", pmiErrStr(rc));
      return;
    }
    started_ = true;
    if (!Check(pmiSetHostname("bench"), "pmiSetHostname") ||
        !Check(pmiSetTimezone("UTC"), "pmiSetTimezone")) {
      return;
    }
    const pmInDom indom = pmiInDom(kDomain, kIndomSerial);
    const pmUnits count = pmiUnits(0, 0, 1, 0, 0, PM_COUNT_ONE);
    for (int m = 0; m < shape.metrics; ++m) {
      if (!Check(pmiAddMetric(MetricName(m).c_str(), pmiID(kDomain, 0, m),
                              PM_TYPE_U64, indom, PM_SEM_COUNTER, count),
                 "pmiAddMetric")) {
        return;
      }
    }
    for (int i = 0; i < shape.instances; ++i) {
      if (!Check(pmiAddInstance(indom, InstanceName(i).c_str(), i),
                 "pmiAddInstance")) {
        return;
      }
    }
  }
  ~LogImport() {
    if (started_) (void)pmiEnd();
  }
  LogImport(const LogImport&) = delete;
  LogImport& operator=(const LogImport&) = delete;

  // Ends the context, writing the final index entry; false on failure.
  bool End() {
    started_ = false;
    return Check(pmiEnd(), "pmiEnd");
  }

  // Records `rc` (a LOGIMPORT return code) as the error if < 0.
  bool Check(int rc, const char* what) {
    if (rc >= 0) return true;
    if (error_.empty()) error_ = absl::StrCat(what, ": ", pmiErrStr(rc));
    return false;
  }

  // Empty unless a call failed.
  const std::string& error() const { return error_; }

 private:
  bool started_ = false;
  std::string error_;
};

// A pmResult for `shape` owned by the caller, as pmiPutResult(3) takes it:
// one PM_VAL_DPTR pmValueSet per metric, each value's pmValueBlock in one
// array of 16-byte slots (4-byte header, 8-byte U64 in host order, padding).
class PreparedPmResult {
 public:
  explicit PreparedPmResult(Shape shape) : shape_(shape) {
    result_ = static_cast<pmResult*>(
        calloc(1, sizeof(pmResult) + shape.metrics * sizeof(pmValueSet*)));
    blocks_ = static_cast<char*>(calloc(shape.values(), kBlockSlot));
    result_->numpmid = shape.metrics;
    for (int m = 0; m < shape.metrics; ++m) {
      auto* set = static_cast<pmValueSet*>(
          calloc(1, sizeof(pmValueSet) + shape.instances * sizeof(pmValue)));
      set->pmid = pmiID(kDomain, 0, m);
      set->numval = shape.instances;
      set->valfmt = PM_VAL_DPTR;
      for (int i = 0; i < shape.instances; ++i) {
        auto* block = reinterpret_cast<pmValueBlock*>(
            blocks_ + (int64_t{m} * shape.instances + i) * kBlockSlot);
        block->vtype = PM_TYPE_U64;
        block->vlen = PM_VAL_HDR_SIZE + sizeof(uint64_t);
        set->vlist[i].inst = i;
        set->vlist[i].value.pval = block;
      }
      result_->vset[m] = set;
    }
  }
  ~PreparedPmResult() {
    for (int m = 0; m < shape_.metrics; ++m) free(result_->vset[m]);
    free(result_);
    free(blocks_);
  }
  PreparedPmResult(const PreparedPmResult&) = delete;
  PreparedPmResult& operator=(const PreparedPmResult&) = delete;

  // Sets the timestamp and values of iteration k.
  void Update(int64_t k) {
    result_->timestamp.tv_sec = kStartSec + k;
    result_->timestamp.tv_usec = 0;
    int64_t index = 0;
    for (int m = 0; m < shape_.metrics; ++m) {
      const pmValueSet* set = result_->vset[m];
      for (int i = 0; i < set->numval; ++i) {
        const uint64_t v = SampleValue(index++, k);
        std::memcpy(set->vlist[i].value.pval->vbuf, &v, sizeof v);
      }
    }
  }

  const pmResult* get() const { return result_; }

 private:
  static constexpr size_t kBlockSlot = 16;
  static_assert(PM_VAL_HDR_SIZE + sizeof(uint64_t) <= kBlockSlot);

  Shape shape_;
  pmResult* result_ = nullptr;
  char* blocks_ = nullptr;
};

void BM_LogImportPutResult(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  TempDir dir;
  if (dir.path().empty()) return state.SkipWithError("mkdtemp failed");
  LogImport logimport(dir.path(), shape);
  if (!logimport.error().empty()) {
    return state.SkipWithError(logimport.error().c_str());
  }
  PreparedPmResult result(shape);
  int64_t k = 0;
  for (auto _ : state) {
    result.Update(k++);
    if (!logimport.Check(pmiPutResult(result.get()), "pmiPutResult")) {
      return state.SkipWithError(logimport.error().c_str());
    }
  }
  if (!logimport.End()) return state.SkipWithError(logimport.error().c_str());
  state.SetItemsProcessed(state.iterations() * shape.values());
  state.SetBytesProcessed(DirBytes(dir.path()));
}

void BM_LogImportPutValueHandle(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  TempDir dir;
  if (dir.path().empty()) return state.SkipWithError("mkdtemp failed");
  LogImport logimport(dir.path(), shape);
  if (!logimport.error().empty()) {
    return state.SkipWithError(logimport.error().c_str());
  }
  std::vector<int> handles;
  handles.reserve(shape.values());
  for (int m = 0; m < shape.metrics; ++m) {
    const std::string metric = MetricName(m);
    for (int i = 0; i < shape.instances; ++i) {
      const int h = pmiGetHandle(metric.c_str(), InstanceName(i).c_str());
      if (!logimport.Check(h, "pmiGetHandle")) {
        return state.SkipWithError(logimport.error().c_str());
      }
      handles.push_back(h);
    }
  }
  int64_t k = 0;
  for (auto _ : state) {
    int64_t index = 0;
    for (const int h : handles) {
      char text[24];
      const std::to_chars_result end =
          std::to_chars(text, text + sizeof text - 1, SampleValue(index++, k));
      *end.ptr = '\0';
      if (!logimport.Check(pmiPutValueHandle(h, text), "pmiPutValueHandle")) {
        return state.SkipWithError(logimport.error().c_str());
      }
    }
    if (!logimport.Check(pmiWrite(static_cast<int>(kStartSec + k), 0),
                         "pmiWrite")) {
      return state.SkipWithError(logimport.error().c_str());
    }
    ++k;
  }
  if (!logimport.End()) return state.SkipWithError(logimport.error().c_str());
  state.SetItemsProcessed(state.iterations() * shape.values());
  state.SetBytesProcessed(DirBytes(dir.path()));
}

// 1k, 100k and 1M values per result. A run of a benchmark function repeats
// its set-up (for the 1M handle case, a million pmiGetHandle calls: ~1 s) and
// the writers keep everything they write until the run ends (mmvlog writes
// up to ~1.5 GB/s), so the minimum time is short: 0.3 s keeps each archive
// under 1 GB of page cache. Without the warm-up, the first repetition at
// each size was up to 2x slower than the rest (multi-MB buffers touched for
// the first time). The 1M handle case runs one iteration per run (~0.6 s).
void Sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"metrics", "instances"})
      ->Args({1, 1000})
      ->Args({100, 1000})
      ->Args({1000, 1000})
      ->Unit(benchmark::kMicrosecond)
      ->MinWarmUpTime(0.2)
      ->MinTime(0.3);
}

BENCHMARK(BM_EncodeResult)->Apply(Sizes);
BENCHMARK(BM_ArchiveWriterAppend)->Apply(Sizes);
BENCHMARK(BM_ArchiveWriterTemplate)->Apply(Sizes);
BENCHMARK(BM_LogImportPutResult)->Apply(Sizes);
BENCHMARK(BM_LogImportPutValueHandle)->Apply(Sizes);

}  // namespace
}  // namespace mmvlog

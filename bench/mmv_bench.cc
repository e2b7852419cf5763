// Benchmarks for archiver/mmv_source: what reading a live MMV file costs the
// recorder, per sample and per reload. Results and the command that produced
// them: bench/README.md.
//
// The file models one application exporting M metrics over one instance
// domain of I instances, all U64 counters (M * I values), written once to a
// temporary directory (page cache, so these are memory-copy costs, not disk).
// Sizes: 1000 x 100 = 100,000 values (a large application; 3.2 MB of values),
// 10 x 100 = 1,000 values (a typical one).
//
//   BM_SnapshotSteady  Snapshot() of an unchanged file: stat, header read,
//                      one pread of the VALUES section, header re-read. The
//                      recorder's cost per sample.
//   BM_SnapshotDecode  The same plus format::ReadMmvValue of every value, as
//                      the sampler will do.
//   BM_SnapshotReload  A new MmvSource's first Snapshot(): open, stat, read
//                      the whole file, ParseMmv. What a new generation or a
//                      recreated file costs once.
//
// items/s is values per second; bytes/s counts the bytes copied from the
// file (the VALUES section when steady, the whole file on reload).
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "archiver/mmv/mmv_source.h"
#include "archiver/file/posix_file.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_reader.h"
#include "format/mmv/mmv_writer.h"

namespace mmvlog {
namespace {

constexpr uint32_t kIndom = 1;

// An MMV file of `metrics` x `instances` U64 counters in a fresh temporary
// directory, removed again on destruction.
class BenchFile {
 public:
  BenchFile(int metrics, int instances) {
    const char* tmp = getenv("TEST_TMPDIR");
    if (tmp == nullptr || *tmp == '\0') tmp = getenv("TMPDIR");
    if (tmp == nullptr || *tmp == '\0') tmp = "/tmp";
    std::string dir = absl::StrCat(tmp, "/mmv_bench.XXXXXX");
    if (mkdtemp(dir.data()) == nullptr) {
      error_ = absl::StrCat("mkdtemp ", dir, " failed");
      return;
    }
    dir_ = dir;
    path_ = absl::StrCat(dir_, "/app.mmv");

    format::MmvSpec spec;
    format::MmvSpecIndom indom;
    indom.serial = kIndom;
    for (int i = 0; i < instances; ++i) {
      indom.instances.push_back({i, absl::StrCat("instance-", i)});
    }
    spec.indoms.push_back(std::move(indom));
    for (int m = 0; m < metrics; ++m) {
      format::MmvSpecMetric metric;
      metric.name = absl::StrCat("app.metric", m);
      metric.item = static_cast<uint32_t>(m + 1);
      metric.type = format::MmvType::kU64;
      metric.semantics = format::kMmvSemCounter;
      metric.indom = kIndom;
      spec.metrics.push_back(std::move(metric));
    }
    absl::StatusOr<format::MmvImage> image = format::BuildMmv(spec);
    if (!image.ok()) {
      error_ = image.status().ToString();
      return;
    }
    uint64_t n = 0;
    for (const auto& [key, slot] : image->slots) {
      format::SetMmvU64(image->bytes, slot, ++n * 1000);
    }
    size_ = image->bytes.size();
    if (absl::Status s = archiver::WriteFileAtomically(path_, image->bytes);
        !s.ok()) {
      error_ = s.ToString();
    }
  }
  ~BenchFile() {
    if (!path_.empty()) unlink(path_.c_str());
    if (!dir_.empty()) rmdir(dir_.c_str());
  }

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  // Empty unless the file could not be made.
  const std::string& error() const { return error_; }

 private:
  std::string dir_;
  std::string path_;
  uint64_t size_ = 0;
  std::string error_;
};

void BM_SnapshotSteady(benchmark::State& state) {
  BenchFile file(static_cast<int>(state.range(0)),
                 static_cast<int>(state.range(1)));
  if (!file.error().empty()) return state.SkipWithError(file.error().c_str());
  archiver::MmvSource source(file.path());
  absl::StatusOr<archiver::MmvSnapshot> first = source.Snapshot();
  if (!first.ok()) return state.SkipWithError(first.status().ToString().c_str());
  const size_t values = first->file->values.size();
  const uint64_t values_size = first->file->values_size;
  for (auto _ : state) {
    absl::StatusOr<archiver::MmvSnapshot> snap = source.Snapshot();
    if (!snap.ok() || snap->reloaded) {
      return state.SkipWithError("steady snapshot failed or reloaded");
    }
    benchmark::DoNotOptimize(snap->image.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(values));
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(values_size));
}
BENCHMARK(BM_SnapshotSteady)
    ->ArgNames({"metrics", "instances"})
    ->Args({10, 100})
    ->Args({1000, 100})
    ->Unit(benchmark::kMicrosecond);

void BM_SnapshotDecode(benchmark::State& state) {
  BenchFile file(static_cast<int>(state.range(0)),
                 static_cast<int>(state.range(1)));
  if (!file.error().empty()) return state.SkipWithError(file.error().c_str());
  archiver::MmvSource source(file.path());
  absl::StatusOr<archiver::MmvSnapshot> first = source.Snapshot();
  if (!first.ok()) return state.SkipWithError(first.status().ToString().c_str());
  const size_t values = first->file->values.size();
  const uint64_t values_size = first->file->values_size;
  for (auto _ : state) {
    absl::StatusOr<archiver::MmvSnapshot> snap = source.Snapshot();
    if (!snap.ok()) return state.SkipWithError("snapshot failed");
    uint64_t sum = 0;
    for (const format::MmvValueEntry& v : snap->file->values) {
      absl::StatusOr<format::MmvValue> value =
          format::ReadMmvValue(snap->image, *snap->file, v);
      if (!value.ok()) return state.SkipWithError("decode failed");
      sum += value->u64;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(values));
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(values_size));
}
BENCHMARK(BM_SnapshotDecode)
    ->ArgNames({"metrics", "instances"})
    ->Args({10, 100})
    ->Args({1000, 100})
    ->Unit(benchmark::kMicrosecond);

void BM_SnapshotReload(benchmark::State& state) {
  BenchFile file(static_cast<int>(state.range(0)),
                 static_cast<int>(state.range(1)));
  if (!file.error().empty()) return state.SkipWithError(file.error().c_str());
  size_t values = 0;
  for (auto _ : state) {
    archiver::MmvSource source(file.path());
    absl::StatusOr<archiver::MmvSnapshot> snap = source.Snapshot();
    if (!snap.ok() || !snap->reloaded) {
      return state.SkipWithError("reload failed");
    }
    values = snap->file->values.size();
    benchmark::DoNotOptimize(snap->file.get());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(values));
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(file.size()));
}
BENCHMARK(BM_SnapshotReload)
    ->ArgNames({"metrics", "instances"})
    ->Args({10, 100})
    ->Args({1000, 100})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mmvlog

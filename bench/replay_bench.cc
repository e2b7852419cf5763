// Benchmarks for reading archives back (`mmvlog replay`), side by side with
// PCP 6.0.3's libpcp reading the same archive, in one binary and one run.
// Results and the command that produced them: bench/README.md.
//
// Every benchmark reads the same archive (bench_archive.h): U64 counters
// bench.m<M> over 1,000 instances, v3, written once per shape into a new
// directory under $TEST_TMPDIR, else $TMPDIR, else /tmp (removed at exit),
// so it is in the page cache. Shapes, both 2M values in all:
//   100 metrics x 1,000 instances = 100k values per sample, 20 samples;
//     1 metric  x 1,000 instances =   1k values per sample, 2,000 samples.
// items/s is values per second from CPU time; one iteration reads every
// sample of the archive.
//
//   BM_DecodeResult      the volume's bytes in memory (read outside the
//                        timing): RecordScanner framing, format::DecodeResult
//                        (DecodeResultInto into a fresh DecodedResult per
//                        record) and format::ValueFromDecoded for every
//                        value: the general path, which replay used before
//                        it had its own.
//   BM_DecodeResultInto  the same bytes: framing, format::DecodeResultInto
//                        into one reused DecodedResult and
//                        format::FixedValueFromDecoded for every value (what
//                        ArchiveReader::NextInto and the replay stream do).
//   BM_ArchiveReaderNext archiver::ArchiveReader::Open (reads .meta) and
//                        NextInto over every record from the files (the
//                        page cache), FixedValueFromDecoded for every value:
//                        mmvlog's side of BM_PcpFetchArchive.
//   BM_ReplayRows        archiver::Replay from the files to rows at the
//                        records, counters as rates, as every output takes
//                        them (.meta, columns, the stream, RecordRows).
//   BM_ReplayInterpolated the same on a -t grid (archiver/replay/
//                        interpolator.h), as pmval -t and pmrep -t show it.
//   BM_ReplayCsv         the whole `replay --csv` (archiver/replay/
//                        csv_output.h), written to /dev/null.
//   BM_ReplayDirectory/N `replay -a DIR` of a directory of N small archives
//                        (10 counters x 100 instances x 30 samples each, one
//                        after the other in time), rows at the records:
//                        what the replay costs per archive as N grows
//                        (each archive's label, .meta and index read once).
//   BM_ReplayOperands    replay of the 10 metrics the derived columns below
//                        read (bench.m0 .. bench.m9, 10k values a sample),
//                        rows at the records: the raw side of
//   BM_ReplayDerived     replay of 20 derived metrics over them (replay -e):
//                        10 rate(bench.mK) (1,000 instances each) and 10
//                        sums and ratios (sum(bench.mK), delta(bench.mK) /
//                        delta(bench.mJ)): what derived columns cost
//                        beside the raw metrics they read. Both on two
//                        archives: 100 metrics x 20 samples (the one above;
//                        the start-up of a replay weighs) and 10 metrics x
//                        200 samples (only the metrics read, a replay long
//                        enough for its start-up not to).
//   BM_ReplayScalarDerived 20 derived metrics of one value each over the
//                        same 10 (sums, averages, extremes, counts, rates of
//                        sums, ratios): 20 derived columns, the shape of
//                        issue 31's goal, beside BM_ReplayOperands.
//   BM_PcpFetchArchive   libpcp: a new archive context (reads .meta), then
//                        pmFetchArchive of every record, each value read from
//                        its pmValueBlock, pmFreeResult. The libpcp side of
//                        BM_ArchiveReaderNext.
#include <stdlib.h>

#include <pcp/pmapi.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <tuple>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "archiver/store/archive_reader.h"
#include "archiver/replay/output/csv_output.h"
#include "archiver/replay/replay.h"
#include "format/derive/derive_config.h"
#include "bench/bench_archive.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_framing.h"
#include "format/archive/archive_result.h"
#include "format/archive/archive_types.h"
#include "format/archive/result_decode.h"

namespace mmvlog {
namespace {

// The archive of one shape, written on first use; the directory is removed
// at exit.
class Archives {
 public:
  ~Archives() {
    if (dir_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // The base name of the archive of `spec`, or an error.
  absl::StatusOr<std::string> Get(const bench::BenchArchiveSpec& spec) {
    if (dir_.empty()) {
      const char* tmp = getenv("TEST_TMPDIR");
      if (tmp == nullptr || *tmp == '\0') tmp = getenv("TMPDIR");
      if (tmp == nullptr || *tmp == '\0') tmp = "/tmp";
      std::string dir = absl::StrCat(tmp, "/replay_bench.XXXXXX");
      if (mkdtemp(dir.data()) == nullptr) return absl::InternalError("mkdtemp failed");
      dir_ = dir;
    }
    const auto key = std::make_tuple(spec.metrics, spec.instances, spec.samples);
    auto it = bases_.find(key);
    if (it != bases_.end()) return it->second;
    const std::string base =
        absl::StrCat(dir_, "/a", spec.metrics, "x", spec.instances, "x", spec.samples);
    if (absl::Status s = bench::WriteBenchArchive(base, spec); !s.ok()) return s;
    bases_[key] = base;
    return base;
  }

 private:
  std::string dir_;
  std::map<std::tuple<int, int, int>, std::string> bases_;
};

Archives& TheArchives() {
  static Archives* archives = new Archives();
  return *archives;
}

struct Shape {
  bench::BenchArchiveSpec spec;
  int64_t values() const { return int64_t{spec.metrics} * spec.instances * spec.samples; }
};

Shape ShapeOf(const benchmark::State& state) {
  Shape s;
  s.spec.metrics = static_cast<int>(state.range(0));
  s.spec.instances = static_cast<int>(state.range(1));
  s.spec.samples = static_cast<int>(state.range(2));
  return s;
}

// The first volume's bytes of the archive of `spec`.
absl::StatusOr<std::vector<uint8_t>> VolumeBytes(const bench::BenchArchiveSpec& spec) {
  absl::StatusOr<std::string> base = TheArchives().Get(spec);
  if (!base.ok()) return base.status();
  absl::StatusOr<std::unique_ptr<archiver::ArchiveReader>> r = archiver::ArchiveReader::Open(*base);
  if (!r.ok()) return r.status();
  std::error_code ec;
  const std::string path = (*r)->volumes().at(0);
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return absl::InternalError(ec.message());
  std::vector<uint8_t> bytes(size);
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) return absl::InternalError(absl::StrCat("open ", path));
  const size_t got = fread(bytes.data(), 1, bytes.size(), f);
  fclose(f);
  if (got != bytes.size()) return absl::InternalError(absl::StrCat("short read of ", path));
  return bytes;
}

// Adds every value of `r`, read as U64 with FixedValueFromDecoded (what
// ArchiveReader::NextInto's callers do), to `*sum`, and their number to
// `*n`. False if a value is not a U64.
bool AddU64Values(const format::DecodedResult& r, uint64_t* sum, int64_t* n) {
  uint64_t s = 0;  // locals: `sum` and `n` may alias, so no store per value
  int64_t count = 0;
  for (const format::DecodedValueSet& set : r.sets) {
    for (const format::DecodedValue& v : set.values) {
      format::FixedValue f;
      if (!format::FixedValueFromDecoded(v, set.valfmt, format::kTypeU64, &f)) return false;
      s += f.u64;
    }
    count += static_cast<int64_t>(set.values.size());
  }
  *sum += s;
  *n += count;
  return true;
}

void BM_DecodeResult(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  absl::StatusOr<std::vector<uint8_t>> bytes = VolumeBytes(shape.spec);
  if (!bytes.ok()) return state.SkipWithError(bytes.status().ToString().c_str());
  for (auto _ : state) {
    format::RecordScanner scanner(*bytes, 0);
    (void)scanner.Next();  // the label
    uint64_t sum = 0;
    int64_t n = 0;
    for (;;) {
      absl::StatusOr<std::optional<format::Frame>> frame = scanner.Next();
      if (!frame.ok() || !frame->has_value()) break;
      absl::StatusOr<format::DecodedResult> r =
          format::DecodeResult(shape.spec.version, (*frame)->payload, (*frame)->offset);
      if (!r.ok()) return state.SkipWithError(r.status().ToString().c_str());
      for (const format::DecodedValueSet& set : r->sets) {
        for (const format::DecodedValue& v : set.values) {
          absl::StatusOr<format::ResultValue> rv =
              format::ValueFromDecoded(v, set.valfmt, format::kTypeU64);
          if (!rv.ok()) return state.SkipWithError(rv.status().ToString().c_str());
          sum += rv->u64;
          ++n;
        }
      }
    }
    if (n != shape.values()) return state.SkipWithError("wrong number of values");
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * shape.values());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes->size()));
}

void BM_DecodeResultInto(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  absl::StatusOr<std::vector<uint8_t>> bytes = VolumeBytes(shape.spec);
  if (!bytes.ok()) return state.SkipWithError(bytes.status().ToString().c_str());
  format::DecodedResult r;
  for (auto _ : state) {
    format::RecordScanner scanner(*bytes, 0);
    (void)scanner.Next();  // the label
    uint64_t sum = 0;
    int64_t n = 0;
    for (;;) {
      absl::StatusOr<std::optional<format::Frame>> frame = scanner.Next();
      if (!frame.ok() || !frame->has_value()) break;
      if (absl::Status s = format::DecodeResultInto(shape.spec.version, (*frame)->payload,
                                                    (*frame)->offset, &r);
          !s.ok()) {
        return state.SkipWithError(s.ToString().c_str());
      }
      if (!AddU64Values(r, &sum, &n)) return state.SkipWithError("bad value");
    }
    if (n != shape.values()) return state.SkipWithError("wrong number of values");
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * shape.values());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes->size()));
}

void BM_ArchiveReaderNext(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  absl::StatusOr<std::string> base = TheArchives().Get(shape.spec);
  if (!base.ok()) return state.SkipWithError(base.status().ToString().c_str());
  format::DecodedResult r;
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<archiver::ArchiveReader>> reader =
        archiver::ArchiveReader::Open(*base);
    if (!reader.ok()) return state.SkipWithError(reader.status().ToString().c_str());
    uint64_t sum = 0;
    int64_t n = 0;
    for (;;) {
      absl::StatusOr<bool> more = (*reader)->NextInto(&r);
      if (!more.ok()) return state.SkipWithError(more.status().ToString().c_str());
      if (!*more) break;
      if (!AddU64Values(r, &sum, &n)) return state.SkipWithError("bad value");
    }
    if (n != shape.values()) return state.SkipWithError("wrong number of values");
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * shape.values());
}

// Counts what reaches an output: rows and the numbers in them.
class CountingOutput : public archiver::Output {
 public:
  bool TakeRow(const archiver::Row& row) override {
    ++rows;
    for (size_t c = 0; c < row.shown.size(); ++c) {
      if (row.shown[c] == archiver::kNumber) sum += row.numbers[c], ++numbers;
    }
    return true;
  }
  absl::Status End(const archiver::ReplayEnd&) override { return absl::OkStatus(); }
  int64_t rows = 0, numbers = 0;
  double sum = 0;
};

// One whole replay of the archive into `outputs`; false on an error.
bool RunReplay(const std::string& base, const archiver::ReplayPlan& plan,
               const std::vector<archiver::Output*>& outputs, benchmark::State& state) {
  absl::StatusOr<archiver::Replay> replay = archiver::Replay::Open({base}, archiver::Selection());
  if (!replay.ok()) {
    state.SkipWithError(replay.status().ToString().c_str());
    return false;
  }
  archiver::ReplayReport report;
  absl::Status s = replay->Run(plan, outputs, [](archiver::LogLevel, const std::string&) {}, &report);
  if (!s.ok() || !report.damaged.empty()) {
    state.SkipWithError(s.ok() ? report.damaged[0].c_str() : s.ToString().c_str());
    return false;
  }
  return true;
}

archiver::ReplayPlan Plan() {
  archiver::ReplayPlan plan;
  plan.zone = absl::UTCTimeZone();
  return plan;
}

void BM_ReplayRows(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  absl::StatusOr<std::string> base = TheArchives().Get(shape.spec);
  if (!base.ok()) return state.SkipWithError(base.status().ToString().c_str());
  for (auto _ : state) {
    CountingOutput out;
    if (!RunReplay(*base, Plan(), {&out}, state)) return;
    // One row per sample; no rate in the first.
    if (out.rows != shape.spec.samples ||
        out.numbers != shape.values() - int64_t{shape.spec.metrics} * shape.spec.instances) {
      return state.SkipWithError("wrong number of rows or rates");
    }
    benchmark::DoNotOptimize(out.sum);
  }
  state.SetItemsProcessed(state.iterations() * shape.values());
}

void BM_ReplayInterpolated(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  absl::StatusOr<std::string> base = TheArchives().Get(shape.spec);
  if (!base.ok()) return state.SkipWithError(base.status().ToString().c_str());
  archiver::ReplayPlan plan = Plan();
  plan.interval = absl::Seconds(3);  // the recording's own interval, offset from it
  for (auto _ : state) {
    CountingOutput out;
    if (!RunReplay(*base, plan, {&out}, state)) return;
    if (out.rows < shape.spec.samples - 1) return state.SkipWithError("too few grid rows");
    benchmark::DoNotOptimize(out.sum);
  }
  state.SetItemsProcessed(state.iterations() * shape.values());
}

void BM_ReplayCsv(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  absl::StatusOr<std::string> base = TheArchives().Get(shape.spec);
  if (!base.ok()) return state.SkipWithError(base.status().ToString().c_str());
  std::FILE* null = std::fopen("/dev/null", "w");
  for (auto _ : state) {
    archiver::CsvOutput out(null, 0);
    if (!RunReplay(*base, Plan(), {&out}, state)) break;
  }
  std::fclose(null);
  state.SetItemsProcessed(state.iterations() * shape.values());
}

// A directory of `n` small archives one after the other in time, written on
// first use; removed at exit with the other archives.
absl::StatusOr<std::string> DirectoryOf(int n, const bench::BenchArchiveSpec& spec) {
  absl::StatusOr<std::string> first = TheArchives().Get(spec);  // makes the temporary dir
  if (!first.ok()) return first.status();
  const std::string dir = absl::StrCat(first->substr(0, first->rfind('/')), "/dir", n);
  std::error_code exists;
  if (std::filesystem::exists(dir, exists)) return dir;
  std::filesystem::create_directory(dir);
  for (int k = 0; k < n; ++k) {
    bench::BenchArchiveSpec s = spec;
    s.start_sec = bench::kBenchStartSec + int64_t{k} * (spec.samples + 10) * spec.interval_sec;
    if (absl::Status st = bench::WriteBenchArchive(absl::StrCat(dir, "/a", 1000 + k), s); !st.ok()) {
      return st;
    }
  }
  return dir;
}

void BM_ReplayDirectory(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  bench::BenchArchiveSpec spec;
  spec.metrics = 10;
  spec.instances = 100;
  spec.samples = 30;
  absl::StatusOr<std::string> dir = DirectoryOf(n, spec);
  if (!dir.ok()) return state.SkipWithError(dir.status().ToString().c_str());
  for (auto _ : state) {
    CountingOutput out;
    if (!RunReplay(*dir, Plan(), {&out}, state)) return;
    // A row per sample and one per join between archives.
    if (out.rows < int64_t{n} * spec.samples) return state.SkipWithError("too few rows");
    benchmark::DoNotOptimize(out.sum);
  }
  state.counters["archives"] = n;
  state.counters["per_archive"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * n, benchmark::Counter::kIsRate |
                                                       benchmark::Counter::kInvert);
  state.SetItemsProcessed(state.iterations() * n * int64_t{spec.metrics} * spec.instances *
                          spec.samples);
}

// A replay of `metrics` with `derived` definitions, rows at the records.
// The archive is range(0) metrics x 1,000 instances x range(1) samples.
void ReplaySome(benchmark::State& state, const std::vector<std::string>& metrics,
                const std::vector<format::DerivedDefinition>& derived, int64_t values) {
  bench::BenchArchiveSpec spec;
  spec.metrics = static_cast<int>(state.range(0));
  spec.samples = static_cast<int>(state.range(1));
  absl::StatusOr<std::string> base = TheArchives().Get(spec);
  if (!base.ok()) return state.SkipWithError(base.status().ToString().c_str());
  archiver::Selection selection;
  selection.metrics = metrics;
  for (auto _ : state) {
    absl::StatusOr<archiver::Replay> replay = archiver::Replay::Open({*base}, selection, derived);
    if (!replay.ok()) return state.SkipWithError(replay.status().ToString().c_str());
    CountingOutput out;
    archiver::ReplayReport report;
    absl::Status s = replay->Run(Plan(), {&out}, [](archiver::LogLevel, const std::string&) {},
                                 &report);
    if (!s.ok() || out.rows != spec.samples) return state.SkipWithError("replay failed");
    benchmark::DoNotOptimize(out.sum);
  }
  state.SetItemsProcessed(state.iterations() * values * spec.samples);
}

void BM_ReplayOperands(benchmark::State& state) {
  std::vector<std::string> metrics;
  for (int k = 0; k < 10; ++k) metrics.push_back(absl::StrCat("bench.m", k));
  ReplaySome(state, metrics, {}, 10 * 1000);
}

void BM_ReplayDerived(benchmark::State& state) {
  std::vector<format::DerivedDefinition> derived;
  std::vector<std::string> names;
  for (int k = 0; k < 10; ++k) {
    derived.push_back({absl::StrCat("d.rate", k), absl::StrCat("rate(bench.m", k, ")"), "-e"});
    derived.push_back(k % 2 == 0 ? format::DerivedDefinition{absl::StrCat("d.sum", k),
                                                            absl::StrCat("sum(bench.m", k, ")"),
                                                            "-e"}
                                 : format::DerivedDefinition{
                                       absl::StrCat("d.ratio", k),
                                       absl::StrCat("delta(bench.m", k, ") / delta(bench.m",
                                                    k - 1, ")"),
                                       "-e"});
  }
  for (const auto& d : derived) names.push_back(d.name);
  ReplaySome(state, names, derived, 10 * 1000);
}

void BM_ReplayScalarDerived(benchmark::State& state) {
  std::vector<format::DerivedDefinition> derived;
  for (int k = 0; k < 10; ++k) {
    const std::string m = absl::StrCat("bench.m", k);
    const std::string other = absl::StrCat("bench.m", (k + 1) % 10);
    const std::string exprs[] = {
        absl::StrCat("rate(sum(", m, "))"),
        k % 2 == 0 ? absl::StrCat("delta(sum(", m, ")) / delta(sum(", other, "))")
                   : absl::StrCat("max(", m, ") - min(", m, ") + avg(", m, ") / count(", m, ")"),
    };
    for (const std::string& e : exprs) {
      derived.push_back({absl::StrCat("d.s", derived.size()), e, "-e"});
    }
  }
  std::vector<std::string> names;
  for (const auto& d : derived) names.push_back(d.name);
  ReplaySome(state, names, derived, 20);
}

void BM_PcpFetchArchive(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  absl::StatusOr<std::string> base = TheArchives().Get(shape.spec);
  if (!base.ok()) return state.SkipWithError(base.status().ToString().c_str());
  for (auto _ : state) {
    const int ctx = pmNewContext(PM_CONTEXT_ARCHIVE, base->c_str());
    if (ctx < 0) return state.SkipWithError(pmErrStr(ctx));
    uint64_t sum = 0;
    int64_t n = 0;
    for (;;) {
      pmResult* r = nullptr;
      const int rc = pmFetchArchive(&r);
      if (rc == PM_ERR_EOL) break;
      if (rc < 0) {
        pmDestroyContext(ctx);
        return state.SkipWithError(pmErrStr(rc));
      }
      for (int s = 0; s < r->numpmid; ++s) {
        const pmValueSet* set = r->vset[s];
        for (int i = 0; i < set->numval; ++i) {
          uint64_t v;
          std::memcpy(&v, set->vlist[i].value.pval->vbuf, sizeof v);
          sum += v;
          ++n;
        }
      }
      pmFreeResult(r);
    }
    pmDestroyContext(ctx);
    if (n != shape.values()) return state.SkipWithError("wrong number of values");
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * shape.values());
}

void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"metrics", "instances", "samples"})
      ->Args({100, 1000, 20})
      ->Args({1, 1000, 2000})
      ->Unit(benchmark::kMillisecond)
      ->MinWarmUpTime(0.2)
      ->MinTime(0.5);
}

BENCHMARK(BM_DecodeResult)->Apply(Shapes);
BENCHMARK(BM_DecodeResultInto)->Apply(Shapes);
BENCHMARK(BM_ArchiveReaderNext)->Apply(Shapes);
BENCHMARK(BM_ReplayRows)->Apply(Shapes);
BENCHMARK(BM_ReplayInterpolated)->Apply(Shapes);
BENCHMARK(BM_ReplayCsv)->Apply(Shapes);
BENCHMARK(BM_PcpFetchArchive)->Apply(Shapes);
BENCHMARK(BM_ReplayDirectory)->Arg(1)->Arg(10)->Arg(100);
// The archive of Shapes (100 metrics, 20 samples: a replay's start-up
// weighs), and one of only the 10 metrics read, 200 samples.
void DerivedShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"metrics", "samples"})->Args({100, 20})->Args({10, 200})->Unit(
      benchmark::kMillisecond);
}

BENCHMARK(BM_ReplayOperands)->Apply(DerivedShapes);
BENCHMARK(BM_ReplayDerived)->Apply(DerivedShapes);
BENCHMARK(BM_ReplayScalarDerived)->Apply(DerivedShapes);

}  // namespace
}  // namespace mmvlog

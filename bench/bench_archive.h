// The archive the replay benchmarks read: written with archiver::ArchiveWriter,
// `metrics` U64 counters bench.m<M> (PMIDs 245.0.M) over one instance domain
// of `instances` instances (inst 0..I-1, named "i<inst>"), and `samples`
// results `interval_sec` apart, each holding every value. archive_bench's
// writers start with the same metadata (AddBenchMetadata).
//
// Counter m, instance i (index x = m * I + i) in sample k holds
//   kValueBase + 1000 * x + k * (37 * (x % 997 + 1)) + (k * k * x) % 11,
// so it only grows, by a different amount per column and per sample, and
// its rate over a 3 s interval has decimals (as real counters' rates do).
#ifndef MMVLOG_BENCH_BENCH_ARCHIVE_H_
#define MMVLOG_BENCH_BENCH_ARCHIVE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "archiver/store/archive_writer.h"

namespace mmvlog::bench {

inline constexpr int kBenchDomain = 245;
inline constexpr int kBenchIndomSerial = 0;
inline constexpr int64_t kBenchStartSec = 1'700'000'000;  // the first sample

struct BenchArchiveSpec {
  int metrics = 100;
  int instances = 1000;
  int samples = 20;
  int interval_sec = 3;
  int version = 3;  // archive version, 2 or 3
  int64_t start_sec = kBenchStartSec;  // the label's and the first sample's time
};

// The value of column index x (m * instances + i) in sample k.
uint64_t BenchValue(int64_t x, int64_t k);

// Adds to `*w` the descriptors of `metrics` U64 counters bench.m<M> (PMIDs
// 245.0.M, instance domain 245.0), then that instance domain with
// `instances` instances (inst 0..I-1, named "i<inst>") at kBenchStartSec.
// Errors: as ArchiveWriter's AddDesc and AddInDom.
absl::Status AddBenchMetadata(int metrics, int instances, archiver::ArchiveWriter* w);

// Writes the archive <base>.{meta,index,0}. Errors: as ArchiveWriter's
// (AlreadyExists if any of the files exists).
absl::Status WriteBenchArchive(const std::string& base, const BenchArchiveSpec& spec);

}  // namespace mmvlog::bench

#endif  // MMVLOG_BENCH_BENCH_ARCHIVE_H_

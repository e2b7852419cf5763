// make_archive BASE [METRICS INSTANCES SAMPLES]: writes the archive the
// replay benchmarks read (bench_archive.h; defaults 100 x 1000 values, 20
// samples 3 s apart) for bench/replay_vs_pmrep.sh.
#include <cstdio>
#include <string>

#include "absl/strings/numbers.h"
#include "bench/bench_archive.h"

int main(int argc, char** argv) {
  mmvlog::bench::BenchArchiveSpec spec;
  if (argc != 2 && argc != 5) {
    std::fprintf(stderr, "usage: make_archive BASE [METRICS INSTANCES SAMPLES]\n");
    return 2;
  }
  if (argc == 5 && (!absl::SimpleAtoi(argv[2], &spec.metrics) ||
                    !absl::SimpleAtoi(argv[3], &spec.instances) ||
                    !absl::SimpleAtoi(argv[4], &spec.samples) || spec.metrics <= 0 ||
                    spec.instances <= 0 || spec.samples <= 0)) {
    std::fprintf(stderr, "make_archive: METRICS, INSTANCES and SAMPLES must be positive integers\n");
    return 2;
  }
  if (absl::Status s = mmvlog::bench::WriteBenchArchive(argv[1], spec); !s.ok()) {
    std::fprintf(stderr, "make_archive: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}

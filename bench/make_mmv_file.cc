// make_mmv_file DIR VALUES: writes MMV files holding VALUES U64 counter
// values in total into DIR (which must exist), as bench/recorder_bench.cc
// models an application: 100 instances per metric (one indom), at most 1000
// metrics per file (app0, app1, ...; PMIDs allow 1023 items per file), each
// file with its own cluster. Values start at item * 1000 + instance. Used by
// bench/pcp_stack.sh to give pmlogger (through pmcd) and mmvlog the same file.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "archiver/posix_file.h"
#include "format/mmv_writer.h"

namespace {

constexpr int kInstances = 100;
constexpr int kMaxMetricsPerFile = 1000;

int Run(const std::string& dir, int64_t values) {
  int64_t metrics = values / kInstances;
  for (int f = 0; metrics > 0; ++f) {
    mmvlog::format::MmvSpec spec;
    spec.cluster = f + 1;
    spec.indoms.push_back({1, {}, "", ""});
    for (int i = 0; i < kInstances; ++i) spec.indoms[0].instances.push_back({i, absl::StrCat("i", i)});
    const int n = static_cast<int>(std::min<int64_t>(metrics, kMaxMetricsPerFile));
    for (int m = 0; m < n; ++m) {
      spec.metrics.push_back({absl::StrCat("m", m), static_cast<uint32_t>(m + 1),
                              mmvlog::format::MmvType::kU64, mmvlog::format::kMmvSemCounter, 0, 1,
                              "", ""});
    }
    metrics -= n;
    absl::StatusOr<mmvlog::format::MmvImage> image = mmvlog::format::BuildMmv(spec);
    if (!image.ok()) {
      std::fprintf(stderr, "make_mmv_file: %s\n", std::string(image.status().message()).c_str());
      return 1;
    }
    for (int m = 0; m < n; ++m) {
      for (int i = 0; i < kInstances; ++i) {
        mmvlog::format::SetMmvU64(image->bytes, image->slot(m + 1, i),
                                  static_cast<uint64_t>(m + 1) * 1000 + i);
      }
    }
    const std::string path = absl::StrCat(dir, "/app", f);
    absl::Status st = mmvlog::archiver::WriteFileAtomically(path, image->bytes);
    if (!st.ok()) {
      std::fprintf(stderr, "make_mmv_file: %s: %s\n", path.c_str(), std::string(st.message()).c_str());
      return 1;
    }
    std::printf("%s\n", path.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t values = 0;
  if (argc != 3 || !absl::SimpleAtoi(argv[2], &values) || values < kInstances) {
    std::fprintf(stderr, "usage: make_mmv_file DIR VALUES (VALUES >= %d, a multiple of %d)\n",
                 kInstances, kInstances);
    return 2;
  }
  return Run(argv[1], values);
}

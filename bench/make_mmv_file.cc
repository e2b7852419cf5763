// make_mmv_file DIR VALUES [UPDATE_SECONDS]: writes MMV files holding VALUES
// U64 counter values in total into DIR (which must exist), as
// bench/recorder_bench.cc models an application: 100 instances per metric
// (one indom), at most 1000 metrics per file (app0, app1, ...; PMIDs allow
// 1023 items per file), each file with its own cluster. Values start at
// item * 1000 + instance. Used by bench/pcp_stack.sh to give pmlogger
// (through pmcd) and mmvlog the same file. With UPDATE_SECONDS it then plays
// the application for that long: every millisecond it adds to every counter
// through a shared mapping of the file, as libpcp_mmv's users do
// (bench/schedule.sh).
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "archiver/file/posix_file.h"
#include "format/mmv/mmv_reader.h"
#include "format/mmv/mmv_writer.h"

namespace {

constexpr int kInstances = 100;
constexpr int kMaxMetricsPerFile = 1000;

// Adds to every value of the files in `paths` every millisecond for
// `seconds` (absolute deadlines, so the rate holds under load).
int Update(const std::vector<std::string>& paths, double seconds) {
  struct Mapped {
    uint8_t* base;
    size_t size;
    std::vector<uint64_t> offsets;
  };
  std::vector<Mapped> files;
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> bytes = mmvlog::archiver::ReadWholeFile(path);
    if (!bytes.ok()) return 1;
    absl::StatusOr<mmvlog::format::MmvFile> mmv = mmvlog::format::ParseMmv(std::span<const uint8_t>(
        reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()));
    if (!mmv.ok()) return 1;
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    void* p = ::mmap(nullptr, bytes->size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) return 1;
    Mapped m{static_cast<uint8_t*>(p), bytes->size(), {}};
    for (const mmvlog::format::MmvValueEntry& e : mmv->values) m.offsets.push_back(e.offset);
    files.push_back(std::move(m));
  }
  struct timespec next;
  ::clock_gettime(CLOCK_MONOTONIC, &next);
  const int64_t passes = static_cast<int64_t>(seconds * 1000);
  for (int64_t k = 0; k < passes; ++k) {
    for (Mapped& m : files) {
      for (size_t i = 0; i < m.offsets.size(); ++i) {
        auto* v = reinterpret_cast<uint64_t*>(m.base + m.offsets[i]);
        *v += 1 + (i + static_cast<size_t>(k)) % 7;  // counters at differing rates
      }
    }
    next.tv_nsec += 1'000'000;
    if (next.tv_nsec >= 1'000'000'000) {
      next.tv_nsec -= 1'000'000'000;
      ++next.tv_sec;
    }
    ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
  }
  for (Mapped& m : files) ::munmap(m.base, m.size);
  return 0;
}

int Run(const std::string& dir, int64_t values, std::vector<std::string>* paths) {
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
    paths->push_back(path);
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t values = 0;
  double update_seconds = 0;
  if ((argc != 3 && argc != 4) || !absl::SimpleAtoi(argv[2], &values) || values < kInstances ||
      (argc == 4 && (!absl::SimpleAtod(argv[3], &update_seconds) || update_seconds < 0))) {
    std::fprintf(stderr,
                 "usage: make_mmv_file DIR VALUES [UPDATE_SECONDS] (VALUES >= %d, a multiple of %d)\n",
                 kInstances, kInstances);
    return 2;
  }
  std::vector<std::string> paths;
  if (int rc = Run(argv[1], values, &paths); rc != 0) return rc;
  return update_seconds > 0 ? Update(paths, update_seconds) : 0;
}

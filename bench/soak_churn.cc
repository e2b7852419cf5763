// soak_churn DIR SECONDS [CHURN_FILES] [SEED] [STABLE_FILES]: plays a busy,
// careless MMV directory for bench/soak.py. STABLE_FILES (default 10)
// stable files (stable0, stable1, ...: 5 U64 counters x 4 instances each)
// are updated in place every 50 ms for the whole run: the first ten with
// pwrite(2) (each write an inotify event for the recorder), the rest through
// a shared mapping, as MMV writers do (a host full of applications: issue
// 32's many-files mode); CHURN_FILES (default 200) more are, every 2
// seconds, a tenth of them at random: created, grown (rewritten bigger, new
// generation), truncated, replaced (a new file renamed over it), scribbled
// on, or deleted. Written with mmvlog's own MMV writer (format/mmv_writer).
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "archiver/file/posix_file.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_writer.h"

namespace {

using mmvlog::format::MmvImage;
using mmvlog::format::MmvSpec;

MmvImage Build(int metrics, uint64_t generation) {
  MmvSpec spec;
  spec.generation = generation;
  mmvlog::format::MmvSpecIndom indom;
  indom.serial = 1;
  for (int i = 0; i < 4; ++i) indom.instances.push_back({i, absl::StrCat("i", i)});
  spec.indoms.push_back(indom);
  for (int m = 0; m < metrics; ++m) {
    mmvlog::format::MmvSpecMetric metric;
    metric.name = absl::StrCat("m", m);
    metric.item = static_cast<uint32_t>(m + 1);
    metric.indom = 1;
    spec.metrics.push_back(metric);
  }
  return *mmvlog::format::BuildMmv(spec);
}

bool WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  ::close(fd);
  return ok;
}

double Now() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 0;
  int churn = 200;
  uint32_t seed = 1;
  int stable_files = 10;
  if (argc < 3 || !absl::SimpleAtod(argv[2], &seconds) ||
      (argc > 3 && !absl::SimpleAtoi(argv[3], &churn)) ||
      (argc > 4 && !absl::SimpleAtoi(argv[4], &seed)) ||
      (argc > 5 && !absl::SimpleAtoi(argv[5], &stable_files))) {
    std::fprintf(stderr, "usage: soak_churn DIR SECONDS [CHURN_FILES] [SEED] [STABLE_FILES]\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::mt19937 rng(seed);
  // Stable files: written once, then only their values change, in place.
  struct Stable {
    int fd;
    MmvImage image;
    uint64_t value = 0;
    uint8_t* map = nullptr;  // past the first ten: stores through a mapping
  };
  std::vector<Stable> stable;
  for (int i = 0; i < stable_files; ++i) {
    const std::string path = absl::StrCat(dir, "/stable", i);
    Stable s{-1, Build(5, 1)};
    if (!WriteFile(path, s.image.bytes)) return 1;
    s.fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (s.fd < 0) return 1;
    if (i >= 10) {
      void* m = ::mmap(nullptr, s.image.bytes.size(), PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
      if (m == MAP_FAILED) return 1;
      s.map = static_cast<uint8_t*>(m);
    }
    stable.push_back(std::move(s));
  }
  std::vector<uint64_t> generation(churn, 1);
  for (int f = 0; f < churn; ++f) {
    if (!WriteFile(absl::StrCat(dir, "/churn", f), Build(1 + static_cast<int>(rng() % 20), 1).bytes)) {
      return 1;
    }
  }
  std::vector<int> deleted;  // made again at the next round
  const double start = Now();
  double next_churn = start;
  uint64_t operations = 0;
  while (Now() - start < seconds) {
    for (Stable& s : stable) {
      ++s.value;
      for (uint32_t item = 1; item <= 5; ++item) {
        for (int32_t inst = 0; inst < 4; ++inst) {
          const auto& slot = s.image.slot(item, inst);
          const uint64_t v = s.value * 10 + item;
          const off_t at = static_cast<off_t>(slot.value_offset + mmvlog::format::kMmvValueAtomOffset);
          if (s.map != nullptr) {
            std::memcpy(s.map + at, &v, sizeof(v));
          } else if (::pwrite(s.fd, &v, sizeof(v), at) < 0) {
            return 1;
          }
        }
      }
    }
    if (Now() >= next_churn) {
      next_churn += 2;
      for (int f : deleted) {
        (void)WriteFile(absl::StrCat(dir, "/churn", f),
                        Build(1 + static_cast<int>(rng() % 20), ++generation[f]).bytes);
      }
      deleted.clear();
      for (int k = 0; k < churn / 10; ++k) {
        const int f = static_cast<int>(rng() % churn);
        const std::string path = absl::StrCat(dir, "/churn", f);
        const MmvImage image = Build(1 + static_cast<int>(rng() % 20), ++generation[f]);
        ++operations;
        switch (rng() % 6) {
          case 0:
          case 1:  // rewritten: a new layout and generation in place
            (void)WriteFile(path, image.bytes);
            break;
          case 2:  // truncated under the reader
            // A failure is one churn less; the run goes on.
            if (::truncate(path.c_str(), static_cast<off_t>(rng() % 512)) != 0) break;
            break;
          case 3: {  // replaced by rename
            const std::string tmp = path + ".new";
            if (WriteFile(tmp, image.bytes)) (void)::rename(tmp.c_str(), path.c_str());
            break;
          }
          case 4: {  // scribbled on
            const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
            if (fd >= 0) {
              const uint32_t junk = rng();
              if (::pwrite(fd, &junk, sizeof(junk), static_cast<off_t>(rng() % 256)) < 0) {
                // One scribble less; the run goes on.
              }
              ::close(fd);
            }
            break;
          }
          default:  // deleted, for a round
            (void)::unlink(path.c_str());
            deleted.push_back(f);
        }
      }
    }
    ::usleep(50000);
  }
  std::printf("soak_churn: %.0f s, %llu churn operations on %d files\n", Now() - start,
              static_cast<unsigned long long>(operations), churn);
  return 0;
}

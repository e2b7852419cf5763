// floor_recorder [--write-behind] MMV OUT INTERVAL_USEC SECONDS: the floor
// of any scheduled recorder, for bench/footprint.py to run beside `mmvlog
// record` and `mmvlog capture`.
//
// It does only what every recorder must: wakes at each interval (an
// absolute deadline), copies each value of the MMV file (MMV a file), or of
// every file of the directory (MMV a directory: its files listed and mapped
// once, at the start), straight from shared mappings into one encoded
// pmResult (one value set per metric, the record laid out once; a string
// copied from its slot, and the record laid out again only when a string's
// padded size changes), and writes the record with one write(2). No
// directory scan after the start, no change detection, no metadata, no
// index, no checks. Prints the number of samples written.
//
// --write-behind: writes its own pages back as mmvlog does by default
// (archiver/file/write_behind.h, ArchiveOptions::write_behind_min_rate):
// every 8 MiB, when those 8 MiB came at 48 MiB/s or faster,
// sync_file_range (write, wait) and POSIX_FADV_DONTNEED on them, here on
// the sampling thread. Without it the kernel's flusher writes the floor's
// pages back outside its CPU, which mmvlog's write-behind thread counts in
// mmvlog's: like with like for fast recordings (bench/README.md).
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/archive/archive_format.h"
#include "format/endian.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_reader.h"
#include "format/archive/result_template.h"

namespace {

using mmvlog::format::MmvFile;
using mmvlog::format::MmvType;

int Fail(const char* what) {
  std::perror(what);
  return 1;
}

timespec Add(timespec t, int64_t usec) {
  t.tv_nsec += (usec % 1'000'000) * 1000;
  t.tv_sec += usec / 1'000'000 + t.tv_nsec / 1'000'000'000;
  t.tv_nsec %= 1'000'000'000;
  return t;
}

bool Before(const timespec& a, const timespec& b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

int64_t MonotonicNanos() {
  timespec t;
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

// The string a value's slot holds now (one copy of the slot; no checks
// beyond staying inside the mapping).
std::string StringAt(const uint8_t* map, size_t size, size_t value_offset) {
  const auto at = mmvlog::format::LoadNative<uint64_t>(map + value_offset +
                                                        mmvlog::format::kMmvValueExtraOffset);
  if (at >= size) return "";
  char slot[mmvlog::format::kMmvStringSlotSize];
  const size_t width = std::min<size_t>(sizeof(slot), size - at);
  std::memcpy(slot, map + at, width);
  return std::string(slot, strnlen(slot, width - 1));
}

}  // namespace

int main(int argc, char** argv) {
  bool write_behind = false;
  if (argc > 1 && std::strcmp(argv[1], "--write-behind") == 0) {
    write_behind = true;
    --argc;
    ++argv;
  }
  if (argc != 5) {
    std::fprintf(stderr,
                 "usage: floor_recorder [--write-behind] MMV OUT INTERVAL_USEC SECONDS\n");
    return 2;
  }
  const int64_t interval = std::atoll(argv[3]);
  const int64_t seconds = std::atoll(argv[4]);
  std::vector<std::string> paths;
  struct stat st;
  if (::stat(argv[1], &st) != 0) return Fail(argv[1]);
  if (S_ISDIR(st.st_mode)) {
    DIR* d = ::opendir(argv[1]);
    if (d == nullptr) return Fail(argv[1]);
    while (struct dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') paths.push_back(std::string(argv[1]) + "/" + e->d_name);
    }
    ::closedir(d);
    std::sort(paths.begin(), paths.end());
  } else {
    paths.push_back(argv[1]);
  }

  // One set per metric, its instances in file order: U64 counters and
  // strings (what bench:make_mmv_file and tests/pcp's writers write).
  struct Set {
    const uint8_t* map;
    size_t size;
    uint32_t pmid;
    bool string;
    std::vector<int32_t> instances;
    std::vector<size_t> offsets;  // of the value entries
    std::vector<uint32_t> sizes;  // strings: each with its NUL, as laid out
  };
  std::vector<Set> sets;
  for (const std::string& path : paths) {
    const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) return Fail(path.c_str());
    if (::fstat(in, &st) != 0) return Fail("fstat");
    const size_t size = static_cast<size_t>(st.st_size);
    auto* map = static_cast<const uint8_t*>(::mmap(nullptr, size, PROT_READ, MAP_SHARED, in, 0));
    if (map == MAP_FAILED) return Fail("mmap");
    ::close(in);
    absl::StatusOr<MmvFile> file = mmvlog::format::ParseMmv(std::span<const uint8_t>(map, size));
    if (!file.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), std::string(file.status().message()).c_str());
      return 1;
    }
    std::map<uint32_t, std::vector<size_t>> values_of;  // metric index -> value indices
    for (size_t i = 0; i < file->values.size(); ++i) {
      values_of[file->values[i].metric_index].push_back(i);
    }
    for (const auto& [metric, values] : values_of) {
      const MmvType type = file->metrics[metric].type;
      if (type != MmvType::kU64 && type != MmvType::kString) {
        std::fprintf(stderr, "floor_recorder: only U64 and STRING metrics\n");
        return 2;
      }
      const auto cluster = static_cast<uint32_t>(file->header.cluster) & 0xfff;
      Set s{map, size, mmvlog::format::PmidBuild(70, cluster, file->metrics[metric].item),
            type == MmvType::kString, {}, {}, {}};
      for (size_t v : values) {
        s.instances.push_back(file->values[v].instance);
        s.offsets.push_back(file->values[v].offset);
      }
      sets.push_back(std::move(s));
    }
  }
  std::vector<mmvlog::format::SetLayout> layout;
  auto make = [&]() {
    layout.clear();
    for (Set& s : sets) {
      if (s.string) {
        s.sizes.clear();
        for (size_t off : s.offsets) {
          s.sizes.push_back(static_cast<uint32_t>(StringAt(s.map, s.size, off).size() + 1));
        }
      }
      layout.push_back({s.pmid, s.string ? mmvlog::format::kTypeString : mmvlog::format::kTypeU64,
                        0, s.instances, s.sizes});
    }
    return mmvlog::format::ResultTemplate::FromLayout(mmvlog::format::kLogVersion3, {}, layout);
  };
  std::optional<mmvlog::format::ResultTemplate> tmpl = make();
  if (!tmpl) return Fail("template");

  const int out = ::open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) return Fail(argv[2]);
  constexpr uint64_t kStep = 8 << 20;               // as WritableFile's write-behind
  constexpr double kMinRate = double{48 << 20};  // ArchiveOptions::write_behind_min_rate
  uint64_t written = 0, written_back = 0;
  int64_t step_start = MonotonicNanos();
  timespec next;
  ::clock_gettime(CLOCK_REALTIME, &next);
  const timespec end = Add(next, seconds * 1'000'000);
  uint64_t samples = 0;
  while (Before(next, end)) {
    while (::clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &next, nullptr) != 0) {
    }
    for (bool again = true; again;) {
      again = false;
      uint8_t* record = tmpl->data();
      for (size_t i = 0; i < sets.size() && !again; ++i) {
        const Set& s = sets[i];
        const mmvlog::format::ValueSlots& slots = tmpl->sets()[i];
        for (size_t k = 0; k < s.offsets.size(); ++k) {
          if (s.string) {
            const std::string text = StringAt(s.map, s.size, s.offsets[k]);
            if (!tmpl->StoreString(i, k, {reinterpret_cast<const uint8_t*>(text.data()),
                                          text.size()})) {
              tmpl = make();  // a string changed its padded size: lay out again
              again = true;
              break;
            }
            continue;
          }
          uint64_t v;
          std::memcpy(&v, s.map + s.offsets[k], sizeof(v));
          mmvlog::format::StoreBig64(record + slots.first + k * slots.stride, v);
        }
      }
    }
    tmpl->SetTimestamp({next.tv_sec, static_cast<uint32_t>(next.tv_nsec)});
    const std::span<const uint8_t> bytes = tmpl->record();
    if (::write(out, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
      return Fail("write");
    }
    written += bytes.size();
    if (write_behind && written - written_back >= kStep) {
      const int64_t now = MonotonicNanos();
      const bool fast = static_cast<double>(written - written_back) >=
                        1e-9 * static_cast<double>(now - step_start) * kMinRate;
      step_start = now;
      const uint64_t to = written & ~uint64_t{4095};
      if (fast) {
        const off_t from = static_cast<off_t>(written_back), length = static_cast<off_t>(to - written_back);
        (void)::sync_file_range(out, from, length,
                                SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                    SYNC_FILE_RANGE_WAIT_AFTER);
        (void)::posix_fadvise(out, from, length, POSIX_FADV_DONTNEED);
      }
      written_back = to;
    }
    ++samples;
    next = Add(next, interval);
  }
  std::printf("%llu\n", static_cast<unsigned long long>(samples));
  return 0;
}

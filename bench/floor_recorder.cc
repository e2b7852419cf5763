// floor_recorder MMVFILE OUT INTERVAL_USEC SECONDS: the floor of any
// scheduled recorder, for bench/footprint.py to run beside `mmvlog record`.
//
// It does only what every recorder must: wakes at each interval (an
// absolute deadline), copies each value of the MMV file straight from a
// shared mapping into an encoded pmResult (one value set per metric, the
// record laid out once), and writes the record with one write(2). No
// directory scan, no change detection, no metadata, no index, no checks.
// Prints the number of samples written.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <span>
#include <vector>

#include "format/archive_format.h"
#include "format/endian.h"
#include "format/mmv_reader.h"
#include "format/result_template.h"

namespace {

using mmvlog::format::MmvFile;

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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: floor_recorder MMVFILE OUT INTERVAL_USEC SECONDS\n");
    return 2;
  }
  const int64_t interval = std::atoll(argv[3]);
  const int64_t seconds = std::atoll(argv[4]);
  const int in = ::open(argv[1], O_RDONLY | O_CLOEXEC);
  if (in < 0) return Fail(argv[1]);
  struct stat st;
  if (::fstat(in, &st) != 0) return Fail("fstat");
  const size_t size = static_cast<size_t>(st.st_size);
  auto* map = static_cast<const uint8_t*>(::mmap(nullptr, size, PROT_READ, MAP_SHARED, in, 0));
  if (map == MAP_FAILED) return Fail("mmap");
  absl::StatusOr<MmvFile> file = mmvlog::format::ParseMmv(std::span<const uint8_t>(map, size));
  if (!file.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], std::string(file.status().message()).c_str());
    return 1;
  }

  // One set per metric, its instances in file order.
  std::map<uint32_t, std::vector<size_t>> values_of;  // metric index -> value indices
  for (size_t i = 0; i < file->values.size(); ++i) values_of[file->values[i].metric_index].push_back(i);
  std::vector<std::vector<int32_t>> instances;
  instances.reserve(values_of.size());
  std::vector<mmvlog::format::SetLayout> layout;
  for (const auto& [metric, values] : values_of) {
    instances.emplace_back();
    for (size_t v : values) instances.back().push_back(file->values[v].instance);
    layout.push_back({mmvlog::format::PmidBuild(70, 1, file->metrics[metric].item),
                      mmvlog::format::kTypeU64, 0, instances.back()});
  }
  std::optional<mmvlog::format::ResultTemplate> tmpl =
      mmvlog::format::ResultTemplate::FromLayout(mmvlog::format::kLogVersion3, {}, layout);
  if (!tmpl) return Fail("template");
  // (source offset in the file, destination offset in the record) per value.
  std::vector<std::pair<size_t, size_t>> copies;
  size_t set = 0;
  for (const auto& [metric, values] : values_of) {
    const mmvlog::format::ValueSlots& slots = tmpl->sets()[set++];
    for (size_t k = 0; k < values.size(); ++k) {
      copies.push_back({file->values[values[k]].offset, slots.first + k * slots.stride});
    }
  }

  const int out = ::open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) return Fail(argv[2]);
  timespec next;
  ::clock_gettime(CLOCK_REALTIME, &next);
  const timespec end = Add(next, seconds * 1'000'000);
  uint64_t samples = 0;
  while (Before(next, end)) {
    while (::clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &next, nullptr) != 0) {
    }
    uint8_t* record = tmpl->data();
    for (const auto& [from, to] : copies) {
      uint64_t v;
      std::memcpy(&v, map + from, sizeof(v));
      mmvlog::format::StoreBig64(record + to, v);
    }
    tmpl->SetTimestamp({next.tv_sec, static_cast<uint32_t>(next.tv_nsec)});
    const std::span<const uint8_t> bytes = tmpl->record();
    if (::write(out, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
      return Fail("write");
    }
    ++samples;
    next = Add(next, interval);
  }
  std::printf("%llu\n", static_cast<unsigned long long>(samples));
  return 0;
}

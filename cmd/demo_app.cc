#include "cmd/demo_app.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "archiver/file/posix_file.h"
#include "format/pm_units.h"

namespace mmvlog::cmd {
namespace {

using format::MmvSpec;
using format::MmvType;

constexpr uint32_t kEndpoints = 1, kCpus = 2;
const char* kEndpointNames[] = {"/api/users", "/api/orders", "/healthz"};

uint32_t Units(int space, int time, int count, int sspace, int stime) {
  format::PmUnits u;
  u.dim_space = space;
  u.dim_time = time;
  u.dim_count = count;
  u.scale_space = sspace;
  u.scale_time = stime;
  return format::UnitsToWord(u);
}

MmvSpec DemoSpec() {
  MmvSpec spec;
  spec.generation = static_cast<uint64_t>(absl::ToUnixNanos(absl::Now()));
  spec.process = static_cast<int32_t>(::getpid());
  spec.indoms.push_back({kEndpoints, {}, "HTTP endpoints", "Endpoints served by the demo"});
  for (int32_t i = 0; i < 3; ++i) {
    spec.indoms[0].instances.push_back({i, kEndpointNames[i]});
  }
  spec.indoms.push_back({kCpus, {{0, "cpu0"}, {1, "cpu1"}}, "Worker CPUs", ""});
  spec.metrics = {
      {"requests.total", 1, MmvType::kU64, format::kMmvSemCounter,
       Units(0, 0, 1, 0, 0), kEndpoints, "Requests served",
       "Requests served per endpoint since the demo started"},
      {"bytes.sent", 2, MmvType::kU64, format::kMmvSemCounter,
       Units(1, 0, 0, format::kSpaceKbyte, 0), format::kMmvIndomNull,
       "Kilobytes sent", ""},
      {"queue.depth", 3, MmvType::kU32, format::kMmvSemInstant,
       Units(0, 0, 1, 0, 0), format::kMmvIndomNull, "Requests waiting", ""},
      {"cpu.util", 4, MmvType::kDouble, format::kMmvSemInstant, 0, kCpus,
       "Worker CPU utilisation (0-1)", ""},
      {"latency", 5, MmvType::kElapsed, format::kMmvSemCounter, 0,
       format::kMmvIndomNull, "Time spent serving requests", ""},
      {"status", 6, MmvType::kString, format::kMmvSemDiscrete, 0,
       format::kMmvIndomNull, "Service status", ""},
  };
  return spec;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DemoApp>> DemoApp::Start(const std::string& dir,
                                                        const std::string& name) {
  absl::StatusOr<format::MmvImage> image = format::BuildMmv(DemoSpec());
  if (!image.ok()) return image.status();
  std::unique_ptr<DemoApp> app(new DemoApp());
  app->path_ = absl::StrCat(dir, "/", name);
  app->image_ = std::move(*image);
  if (absl::Status s = archiver::WriteFileAtomically(app->path_, app->image_.bytes);
      !s.ok()) {
    return s;
  }
  int fd = ::open(app->path_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("open ", app->path_));
  app->size_ = app->image_.bytes.size();
  void* map = ::mmap(nullptr, app->size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return absl::ErrnoToStatus(errno, absl::StrCat("mmap ", app->path_));
  app->map_ = static_cast<uint8_t*>(map);
  app->Step();
  return app;
}

DemoApp::~DemoApp() {
  if (map_ != nullptr) ::munmap(map_, size_);
}

void DemoApp::Step() {
  ++step_;
  std::span<uint8_t> live(map_, size_);
  const double t = static_cast<double>(step_);
  for (int32_t i = 0; i < 3; ++i) {
    requests_[i] += static_cast<uint64_t>(40 + 30 * i + 20 * std::sin(t / 3 + i));
    format::SetMmvU64(live, image_.slot(1, i), requests_[i]);
  }
  kbytes_ += static_cast<uint64_t>(500 + 250 * std::sin(t / 5));
  format::SetMmvU64(live, image_.slot(2), kbytes_);
  format::SetMmvU32(live, image_.slot(3), static_cast<uint32_t>(5 + 4 * std::sin(t / 2)));
  format::SetMmvDouble(live, image_.slot(4, 0), 0.5 + 0.4 * std::sin(t / 4));
  format::SetMmvDouble(live, image_.slot(4, 1), 0.3 + 0.2 * std::cos(t / 6));
  format::SetMmvElapsed(live, image_.slot(5), static_cast<int64_t>(step_) * 125000, 0);
  format::SetMmvString(live, image_.slot(6), step_ % 10 < 8 ? "ok" : "degraded");
}

}  // namespace mmvlog::cmd

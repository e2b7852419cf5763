// DemoApp: a built-in simulated application that instruments itself with MMV
// the way libpcp_mmv users do: it creates <dir>/<name> with our own MMV
// writer (format/mmv/mmv_writer.h), maps it, and updates values in place.
// Used by `mmvlog demo` and by tests that need a live MMV file.
#ifndef MMVLOG_CMD_DEMO_APP_H_
#define MMVLOG_CMD_DEMO_APP_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "format/mmv/mmv_writer.h"

namespace mmvlog::cmd {

class DemoApp {
 public:
  // Writes the MMV file (replacing any old one, as libpcp_mmv does) and maps
  // it. Metrics: requests.total (counter, per endpoint), bytes.sent (counter,
  // Kbyte), queue.depth (instant), cpu.util (double, per cpu), latency
  // (elapsed), status (string).
  static absl::StatusOr<std::unique_ptr<DemoApp>> Start(const std::string& dir,
                                                        const std::string& name);
  ~DemoApp();

  // Advances the simulation by one step (deterministic, seeded by `step`).
  void Step();
  const std::string& path() const { return path_; }
  uint64_t steps() const { return step_; }

 private:
  DemoApp() = default;
  std::string path_;
  format::MmvImage image_;  // layout; the live bytes are in the mapping
  uint8_t* map_ = nullptr;
  size_t size_ = 0;
  uint64_t step_ = 0;
  uint64_t requests_[3] = {};  // simulated counters
  uint64_t kbytes_ = 0;
};

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_DEMO_APP_H_

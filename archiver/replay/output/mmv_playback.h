// replay --to-mmv: recorded values played back into MMV files, at the
// recorded pace or `speed` times faster, so live MMV consumers (pmdammv,
// mmvlog record, mmvlog inspect) see a past run again. Metrics named
// "mmv.<file>.<name>" go to <dir>/<file> as <name>; other metrics to
// <dir>/replay. Values as stored (rows of the records, not rates); the
// files are laid out once, from the columns, before the first row.
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_MMV_PLAYBACK_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_MMV_PLAYBACK_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "archiver/replay/output.h"
#include "archiver/store/log.h"
#include "format/mmv/mmv_writer.h"

namespace mmvlog::archiver {

class MmvPlayback : public Output {
 public:
  // `sleep_until` waits for a time and says false when the run is to stop
  // (a signal); `log` says which files are played into.
  MmvPlayback(std::string dir, double speed, std::function<bool(absl::Time)> sleep_until,
              LogFunction log)
      : dir_(std::move(dir)), speed_(speed), sleep_until_(std::move(sleep_until)), log_(std::move(log)) {}
  ~MmvPlayback() override;

  void Begin(const ReplayHeader& header) override;
  bool TakeRow(const Row& row) override;
  absl::Status End(const ReplayEnd& end) override;

 private:
  struct OutFile {
    format::MmvSpec spec;
    format::MmvImage image;
    uint8_t* map = nullptr;
    size_t size = 0;
    // column -> (item, instance id or PM_IN_NULL) in this file
    std::map<size_t, std::pair<uint32_t, int32_t>> slots;
  };
  absl::Status Open();

  std::string dir_;
  double speed_;
  std::function<bool(absl::Time)> sleep_until_;
  LogFunction log_;
  absl::Status status_;
  std::map<std::string, OutFile> files_;
  bool started_ = false;
  absl::Time wall0_, rec0_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_MMV_PLAYBACK_H_

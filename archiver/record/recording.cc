#include "archiver/record/recording.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"
#include "archiver/file/posix_file.h"

namespace mmvlog::archiver {

Recording::Recording(RecorderOptions options, LogFunction log) {
  RaiseOpenFileLimit();
  if (!options.mmv_dir.empty() && options.files.empty()) {
    absl::StatusOr<DirWatch> w = DirWatch::Open(options.mmv_dir);
    if (w.ok()) {
      watch_.emplace(std::move(*w));
      options.mmv_dir_watch = &*watch_;
    }
  }
  recorder_ = std::make_unique<Recorder>(std::move(options), std::move(log));
}

void Recording::SetWaits(LoopHooks* hooks, const LoopLimits& limits,
                         std::function<void(absl::Time deadline)> sleep,
                         std::function<absl::Duration()> max_wait) {
  std::function<void(absl::Time)> wait = std::move(sleep);
  if (watch_.has_value()) {
    wait = [this](absl::Time deadline) { (void)watch_->Wait(deadline); };
  }
  if (max_wait != nullptr) {
    wait = [wait, max_wait](absl::Time deadline) {
      wait(std::min(deadline, absl::Now() + max_wait()));
    };
  }
  hooks->wait_until = wait;
  hooks->wait_for_files = nullptr;
  if (watch_.has_value() && limits.samples == 0 && limits.ticks == 0) {
    hooks->wait_for_files = wait;
  }
}

}  // namespace mmvlog::archiver

// Recording: a Recorder wired the one way `mmvlog record` and `mmvlog
// capture` both run it, so that what makes one cheap makes the other cheap.
//
// - When the MMV directory is the only source (no files named), it is
//   watched (DirWatch, inotify) from before its first listing: a tick whose
//   directory did not change does not read it, a file no event named is not
//   stat'ed (RecorderOptions::mmv_dir_watch), and an unchanged file's values
//   are read where they are (MmvSource's mapped snapshots, the result
//   template's fast path).
// - The wait between ticks is on that watch; so is the wait of an empty
//   directory for its first file (LoopHooks::wait_for_files), unless the
//   run counts samples (-s N, a one-shot capture): N samples are N ticks of
//   the interval, files or not.
// - Archives are written by one policy: the ArchiveOptions given
//   (write-behind by rate, archiver/store/archive_writer.h).
// Without a watch (files named, or inotify refused) the waits sleep.
#ifndef MMVLOG_ARCHIVER_RECORD_RECORDING_H_
#define MMVLOG_ARCHIVER_RECORD_RECORDING_H_

#include <functional>
#include <memory>
#include <optional>

#include "absl/time/time.h"
#include "archiver/mmv/dir_watch.h"
#include "archiver/schedule/record_loop.h"
#include "archiver/record/recorder.h"
#include "archiver/store/log.h"

namespace mmvlog::archiver {

class Recording {
 public:
  Recording(RecorderOptions options, LogFunction log);
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  Recorder& recorder() { return *recorder_; }
  const Recorder& recorder() const { return *recorder_; }
  bool watched() const { return watch_.has_value(); }

  // Sets hooks->wait_until and hooks->wait_for_files for a run with
  // `limits`: on the watch when there is one, else `sleep` (which returns
  // early on a signal that asks the loop to look). `max_wait`, when set, is
  // the longest any wait may last (capture polls its command that often).
  void SetWaits(LoopHooks* hooks, const LoopLimits& limits,
                std::function<void(absl::Time deadline)> sleep,
                std::function<absl::Duration()> max_wait = nullptr);

 private:
  std::optional<DirWatch> watch_;  // before recorder_, which asks it
  std::unique_ptr<Recorder> recorder_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_RECORD_RECORDING_H_

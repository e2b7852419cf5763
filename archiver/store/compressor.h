// BackgroundCompressor: compresses finished archive volumes (xz or zstd) on
// a thread of its own, so sampling never waits for compression.
#ifndef MMVLOG_ARCHIVER_STORE_COMPRESSOR_H_
#define MMVLOG_ARCHIVER_STORE_COMPRESSOR_H_

#include <deque>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "archiver/store/compress.h"
#include "archiver/store/log.h"

namespace mmvlog::archiver {

class BackgroundCompressor {
 public:
  // zstd at `level`.
  BackgroundCompressor(int level, LogFunction log);
  // `codec` at `level` (0: the codec's default).
  BackgroundCompressor(Codec codec, int level, LogFunction log);
  // Finishes the queue, then stops the thread.
  ~BackgroundCompressor();

  // Queues a finished volume file for <path>.xz or <path>.zst.
  void Enqueue(std::string path);
  // Waits until the queue is empty.
  void Drain();

 private:
  void Run();

  Codec codec_;
  int level_;
  LogFunction log_;
  absl::Mutex mu_;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int busy_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_COMPRESSOR_H_

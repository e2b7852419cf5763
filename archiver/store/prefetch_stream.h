// PrefetchStream: another ReadStream read ahead on a thread of its own, so
// that decompressing a volume (xz, zstd, gzip, bzip2) and decoding its
// records run side by side: a compressed replay then costs about the larger
// of the two, not their sum.
//
// The thread fills chunks of `chunk` bytes into a queue at most `depth`
// chunks long (memory: depth + 2 chunks) and stops at the stream's end or
// its first error, which Read returns after every byte before it, as the
// stream itself would. The first Read is served on the caller's thread (a
// reader that only wants a volume's label, then seeks, starts no thread);
// SkipTo stops the thread, drops what it read ahead up to the offset, and
// hands a skip past it to the stream (an .xz volume then starts at the
// block holding the offset).
#ifndef MMVLOG_ARCHIVER_STORE_PREFETCH_STREAM_H_
#define MMVLOG_ARCHIVER_STORE_PREFETCH_STREAM_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "archiver/store/read_stream.h"

namespace mmvlog::archiver {

class PrefetchStream : public ReadStream {
 public:
  explicit PrefetchStream(std::unique_ptr<ReadStream> inner, size_t chunk = size_t{1} << 20,
                          size_t depth = 4);
  ~PrefetchStream() override;

  absl::StatusOr<size_t> Read(std::span<uint8_t> out) override;
  absl::Status SkipTo(uint64_t offset) override;

 private:
  void Start();
  void Stop();
  void Run();  // the thread: reads chunks until the end, an error or Stop

  std::unique_ptr<ReadStream> inner_;
  const size_t chunk_, depth_;
  bool first_read_done_ = false;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_: chunks read ahead, in order; what ended the stream.
  std::deque<std::vector<uint8_t>> full_;
  std::vector<std::vector<uint8_t>> spare_;  // emptied chunks, reused
  bool stop_ = false;
  bool ended_ = false;       // no chunk follows those in full_
  absl::Status error_;       // after the last chunk, when ended_ by an error
  // The caller's side: the chunk being read from.
  std::vector<uint8_t> current_;
  size_t current_at_ = 0;
  bool finished_ = false;  // the end (or error_) has been passed to the caller
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_PREFETCH_STREAM_H_

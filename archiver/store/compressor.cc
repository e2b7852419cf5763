#include "archiver/store/compressor.h"

#include "absl/strings/str_cat.h"
#include "archiver/store/compress.h"

namespace mmvlog::archiver {

BackgroundCompressor::BackgroundCompressor(int level, LogFunction log)
    : BackgroundCompressor(Codec::kZstd, level, std::move(log)) {}

BackgroundCompressor::BackgroundCompressor(Codec codec, int level, LogFunction log)
    : codec_(codec), level_(level), log_(std::move(log)), thread_([this] { Run(); }) {}

BackgroundCompressor::~BackgroundCompressor() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

void BackgroundCompressor::Enqueue(std::string path) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(path));
}

void BackgroundCompressor::Drain() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](BackgroundCompressor* c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c->mu_) {
        return c->queue_.empty() && c->busy_ == 0;
      },
      this));
}

void BackgroundCompressor::Run() {
  for (;;) {
    std::string path;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](BackgroundCompressor* c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c->mu_) {
            return c->stop_ || !c->queue_.empty();
          },
          this));
      if (queue_.empty()) return;  // stop_ and nothing left
      path = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
    }
    absl::Status s = CompressVolume(path, codec_, level_);
    if (!s.ok()) {
      log_(LogLevel::kWarning, absl::StrCat("compressing ", path, ": ", s.message(),
                                            "; the volume stays uncompressed"));
    } else {
      log_(LogLevel::kInfo, absl::StrCat("compressed ", path, " to ", path, CodecSuffix(codec_)));
    }
    absl::MutexLock lock(&mu_);
    --busy_;
  }
}

}  // namespace mmvlog::archiver

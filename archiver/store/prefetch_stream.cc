#include "archiver/store/prefetch_stream.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace mmvlog::archiver {

PrefetchStream::PrefetchStream(std::unique_ptr<ReadStream> inner, size_t chunk, size_t depth)
    : ReadStream(inner->path()), inner_(std::move(inner)), chunk_(chunk), depth_(depth) {
  position_ = inner_->position();
}

PrefetchStream::~PrefetchStream() { Stop(); }

void PrefetchStream::Start() {
  if (thread_.joinable() || ended_) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void PrefetchStream::Stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void PrefetchStream::Run() {
  for (;;) {
    std::vector<uint8_t> buf;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || full_.size() < depth_; });
      if (stop_) return;
      if (!spare_.empty()) {
        buf = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    buf.resize(chunk_);
    absl::StatusOr<size_t> n = inner_->Read(buf);  // the work, outside the lock
    std::lock_guard<std::mutex> lock(mu_);
    if (!n.ok()) {
      error_ = n.status();
      ended_ = true;
    } else {
      buf.resize(*n);
      // A stream reads short at its end, or before an error it returns
      // next: read on until it returns nothing (or the error).
      if (*n > 0) full_.push_back(std::move(buf));
      if (*n == 0) ended_ = true;
    }
    cv_.notify_all();
    if (ended_) return;
  }
}

absl::StatusOr<size_t> PrefetchStream::Read(std::span<uint8_t> out) {
  if (!first_read_done_) {
    first_read_done_ = true;
    absl::StatusOr<size_t> n = inner_->Read(out);
    if (n.ok()) position_ += *n;
    return n;
  }
  size_t done = 0;
  while (done < out.size()) {
    if (current_at_ < current_.size()) {
      const size_t n = std::min(out.size() - done, current_.size() - current_at_);
      std::memcpy(out.data() + done, current_.data() + current_at_, n);
      current_at_ += n;
      done += n;
      continue;
    }
    if (finished_) {
      // The end: an error waiting behind the bytes given is given now.
      std::lock_guard<std::mutex> lock(mu_);
      if (done == 0 && !error_.ok()) return std::exchange(error_, absl::OkStatus());
      break;
    }
    Start();
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !full_.empty() || ended_; });
    if (!current_.empty()) spare_.push_back(std::move(current_));
    current_.clear();
    current_at_ = 0;
    if (!full_.empty()) {
      current_ = std::move(full_.front());
      full_.pop_front();
      cv_.notify_all();
      continue;
    }
    // Ended: the bytes before an error go out first, the error next time.
    finished_ = true;
    if (!error_.ok() && done == 0) return std::exchange(error_, absl::OkStatus());
  }
  position_ += done;
  return done;
}

absl::Status PrefetchStream::SkipTo(uint64_t offset) {
  if (offset <= position_) return absl::OkStatus();
  Stop();
  // What was read ahead up to the offset is dropped; a skip past it goes to
  // the stream (which may seek).
  std::lock_guard<std::mutex> lock(mu_);
  for (;;) {
    const uint64_t left = offset - position_;
    const size_t have = current_.size() - current_at_;
    if (have >= left) {
      current_at_ += static_cast<size_t>(left);
      position_ = offset;
      return absl::OkStatus();
    }
    position_ += have;
    current_at_ = current_.size();
    if (full_.empty()) break;
    spare_.push_back(std::move(current_));
    current_ = std::move(full_.front());
    full_.pop_front();
    current_at_ = 0;
  }
  current_.clear();
  current_at_ = 0;
  if (ended_) {
    // The stream ended (or failed) before the offset.
    if (!error_.ok()) return std::exchange(error_, absl::OkStatus());
    return absl::OkStatus();
  }
  if (absl::Status s = inner_->SkipTo(offset); !s.ok()) return s;
  position_ = inner_->position();
  return absl::OkStatus();
}

}  // namespace mmvlog::archiver

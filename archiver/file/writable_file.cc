#include "archiver/file/writable_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "archiver/file/file_syscalls.h"

namespace mmvlog::archiver {
namespace {

int64_t MonotonicNanos() {
  struct timespec t;
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd, uint64_t size, StreamOptions stream)
      : path_(std::move(path)),
        fd_(fd),
        size_(size),
        reserved_(size),
        written_back_(size),
        behind_(stream.write_behind),
        behind_error_(behind_ != nullptr ? std::make_shared<std::atomic<int>>(0) : nullptr),
        min_rate_(stream.write_behind_min_rate),
        step_start_ns_(MonotonicNanos()),
        behind_active_(min_rate_ == 0),
        reserve_(stream.preallocate) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  absl::Status Append(std::span<const uint8_t> data) override {
    if (!status_.ok()) return status_;
    if (const int err = behind_error_ != nullptr ? behind_error_->load() : 0; err != 0) {
      status_ = absl::ErrnoToStatus(
          err, absl::StrCat("write back ", path_, " (data before offset ", written_back_, ") failed"));
      return status_;
    }
    if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat(path_, ": closed"));
    if (reserve_ && size_ + data.size() > reserved_) Reserve(data.size());
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = FileSyscalls().write(fd_, data.data() + done, data.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        status_ = absl::ErrnoToStatus(
            errno, absl::StrCat("write ", path_, " at offset ", size_ + done));
        // Leave the file as it was: a partial record would be a torn tail.
        if (done > 0 && FileSyscalls().ftruncate(fd_, static_cast<off_t>(size_)) == 0) {
          (void)::lseek(fd_, static_cast<off_t>(size_), SEEK_SET);
        }
        return status_;
      }
      done += static_cast<size_t>(n);
    }
    size_ += data.size();
    if (behind_ != nullptr && size_ - written_back_ >= kWriteBehindBytes) {
      const int64_t now = MonotonicNanos();
      behind_active_ = min_rate_ == 0 || static_cast<double>(size_ - written_back_) >=
                                             1e-9 * static_cast<double>(now - step_start_ns_) *
                                                 static_cast<double>(min_rate_);
      step_start_ns_ = now;
      if (behind_active_) {
        StartWriteBehind();
      } else {
        written_back_ = size_ & ~uint64_t{4095};  // the kernel's
      }
    }
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    if (!status_.ok()) return status_;
    if (fd_ >= 0 && FileSyscalls().fdatasync(fd_) != 0) {
      status_ = absl::ErrnoToStatus(errno, absl::StrCat("fsync ", path_));
    }
    return status_;
  }

  absl::Status Close() override {
    if (fd_ < 0) return status_;
    // Give back the blocks reserved beyond what was written.
    if (reserved_ > size_ && FileSyscalls().ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
      // Not an error: the blocks stay reserved past the end, unseen by readers.
    }
    // The tail too: nothing more is written to it. Its errors have no one
    // to go to; a caller that wants them calls Sync first.
    if (behind_ != nullptr && behind_active_ && size_ > written_back_) {
      behind_->Submit(fd_, static_cast<off_t>(written_back_),
                      static_cast<off_t>(size_ - written_back_));
    }
    if (FileSyscalls().close(fd_) != 0 && status_.ok()) {
      status_ = absl::ErrnoToStatus(errno, absl::StrCat("close ", path_));
    }
    fd_ = -1;
    return status_;
  }

  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  // Reserves blocks for this append and the next few (KEEP_SIZE: readers
  // see only what was written). Appending into reserved blocks costs ext4
  // about half the CPU of delayed allocation (bench/README.md, "schedule")
  // and fragments the volume less. A failed reservation (a full disk, a file
  // system without fallocate) is not an error: the write reports what
  // matters, and no more reservations are tried for this file.
  void Reserve(size_t n) {
    const uint64_t chunk = std::clamp<uint64_t>(uint64_t{8} * n, 1 << 20, 64 << 20);
    if (::fallocate(fd_, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(size_),
                    static_cast<off_t>(n + chunk)) == 0) {
      reserved_ = size_ + n + chunk;
    } else {
      reserve_ = false;
    }
  }

  // Hands what was appended since the last call to WriteBehind, which
  // writes it back and drops it from the page cache off this thread
  // (RocksDB's bytes_per_sync, plus the drop). Left to itself the kernel
  // lets gigabytes of a fast recording pile up dirty, writes them back in
  // bursts that appends stall behind, and every append copies into a fresh
  // page: at 200 MB/s (100k values every 10 ms) 0.8 % of the ticks were
  // missed; starting writeback without the wait and the drop, 0.1-1.5 % at
  // 45-60 % of a core; with both, none at 11 % (bench/README.md,
  // "schedule"). Whole pages only: the last partial page is still being
  // written to.
  void StartWriteBehind() {
    const uint64_t end = size_ & ~uint64_t{4095};
    if (end <= written_back_) return;
    if (behind_->Submit(fd_, static_cast<off_t>(written_back_),
                        static_cast<off_t>(end - written_back_), behind_error_)) {
      written_back_ = end;  // else the next append tries again
    }
  }
  static constexpr uint64_t kWriteBehindBytes = 8 << 20;

  std::string path_;
  int fd_;
  uint64_t size_;
  uint64_t reserved_;  // bytes of disk the file holds (>= size_ once reserved)
  uint64_t written_back_;  // writeback started up to here
  WriteBehind* const behind_;  // null: no write-behind
  const std::shared_ptr<std::atomic<int>> behind_error_;  // set by the worker
  const uint64_t min_rate_;  // StreamOptions::write_behind_min_rate
  int64_t step_start_ns_;    // CLOCK_MONOTONIC when the current 8 MiB step began
  bool behind_active_;       // the last step was handed over
  bool reserve_;       // off after a failed reservation
  absl::Status status_;  // the first error; sticky
};

}  // namespace

absl::StatusOr<std::unique_ptr<WritableFile>> OpenWritableFile(
    const std::string& path, bool append, StreamOptions stream) {
  const int flags = O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_CREAT | O_EXCL);
  int fd;
  do {
    fd = FileSyscalls().open(path.c_str(), flags, 0644);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat(append ? "open " : "create ", path));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return absl::ErrnoToStatus(err, absl::StrCat("fstat ", path));
  }
  return std::unique_ptr<WritableFile>(
      new PosixWritableFile(path, fd, static_cast<uint64_t>(st.st_size), stream));
}

}  // namespace mmvlog::archiver

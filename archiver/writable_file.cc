#include "archiver/writable_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {
namespace {

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  absl::Status Append(std::span<const uint8_t> data) override {
    if (!status_.ok()) return status_;
    if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat(path_, ": closed"));
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        status_ = absl::ErrnoToStatus(
            errno, absl::StrCat("write ", path_, " at offset ", size_ + done));
        // Leave the file as it was: a partial record would be a torn tail.
        if (done > 0 && ::ftruncate(fd_, static_cast<off_t>(size_)) == 0) {
          (void)::lseek(fd_, static_cast<off_t>(size_), SEEK_SET);
        }
        return status_;
      }
      done += static_cast<size_t>(n);
    }
    size_ += data.size();
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    if (!status_.ok()) return status_;
    if (fd_ >= 0 && ::fdatasync(fd_) != 0) {
      status_ = absl::ErrnoToStatus(errno, absl::StrCat("fsync ", path_));
    }
    return status_;
  }

  absl::Status Close() override {
    if (fd_ < 0) return status_;
    if (::close(fd_) != 0 && status_.ok()) {
      status_ = absl::ErrnoToStatus(errno, absl::StrCat("close ", path_));
    }
    fd_ = -1;
    return status_;
  }

  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
  absl::Status status_;  // the first error; sticky
};

}  // namespace

absl::StatusOr<std::unique_ptr<WritableFile>> OpenWritableFile(
    const std::string& path, bool append) {
  const int flags = O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_CREAT | O_EXCL);
  int fd;
  do {
    fd = ::open(path.c_str(), flags, 0644);
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
      new PosixWritableFile(path, fd, static_cast<uint64_t>(st.st_size)));
}

}  // namespace mmvlog::archiver

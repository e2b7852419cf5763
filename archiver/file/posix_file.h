// The only place that calls open/pread/pwrite/fstat/close: thin wrappers that
// loop on EINTR and short transfers and turn errno into absl::Status naming
// the path.
#ifndef MMVLOG_ARCHIVER_FILE_POSIX_FILE_H_
#define MMVLOG_ARCHIVER_FILE_POSIX_FILE_H_

#include <sys/stat.h>

#include <cstdint>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmvlog::archiver {

// An owned file descriptor, closed on destruction.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& o) noexcept : fd_(o.release()) {}
  FileDescriptor& operator=(FileDescriptor&& o) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset();

 private:
  int fd_ = -1;
};

// Opens `path` read-only (O_CLOEXEC).
absl::StatusOr<FileDescriptor> OpenForRead(const std::string& path);

// Opens a directory (O_RDONLY | O_DIRECTORY | O_CLOEXEC), to open the files
// in it relative to it.
absl::StatusOr<FileDescriptor> OpenDirectory(const std::string& path);

// Opens a file that must be a regular file, without following a symbolic
// link in its last component and without blocking on a FIFO:
// openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), or
// open(name, ...) when `dir` is -1. The opened descriptor is checked with
// fstat. Errors name `display` (the path): FailedPrecondition for a symbolic
// link or anything not a regular file (saying what it is), errno-based
// otherwise.
absl::StatusOr<FileDescriptor> OpenRegularNoFollow(int dir, const std::string& name,
                                                   absl::string_view display);

// fstatat(dir, name, AT_SYMLINK_NOFOLLOW), or lstat(name) when `dir` is -1.
absl::StatusOr<struct stat> StatNoFollow(int dir, const std::string& name,
                                         absl::string_view display);

// What a file of mode `mode` is, for messages: "regular file", "symbolic
// link", "FIFO", "socket", "directory", "character device", "block device".
const char* FileKindName(mode_t mode);

// Reads up to out.size() bytes at `offset`; returns the number read, which
// is less only at end of file (e.g. the file shrank).
absl::StatusOr<size_t> ReadAt(int fd, uint64_t offset, std::span<uint8_t> out,
                              absl::string_view path);

// stat(2)/fstat(2) as StatusOr.
absl::StatusOr<struct stat> StatPath(const std::string& path);
absl::StatusOr<struct stat> StatFd(int fd, absl::string_view path);

// Reads a whole (small) file.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

// Writes `data` to `path` via a temporary file and rename, so readers see
// either the old or the new content.
absl::Status WriteFileAtomically(const std::string& path,
                                 std::span<const uint8_t> data);

// The soft limit of open files raised to the hard one: a recorder keeps
// each MMV file open (and a pidfd for each flagged process), and a host of
// a thousand applications needs more than the 1,024 that systemd and
// shells give by default (systemd's hard limit is 524,288, there to be
// taken, as its documentation advises programs that need many). Once per
// process; RestoreOpenFileLimit (in a child, before exec) gives back the
// soft limit that was, for programs that still use select(2).
void RaiseOpenFileLimit();
void RestoreOpenFileLimit();

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_FILE_POSIX_FILE_H_

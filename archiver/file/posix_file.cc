#include "archiver/file/posix_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = o.release();
  }
  return *this;
}

FileDescriptor::~FileDescriptor() { reset(); }

void FileDescriptor::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

absl::StatusOr<FileDescriptor> OpenForRead(const std::string& path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
  return FileDescriptor(fd);
}

absl::StatusOr<FileDescriptor> OpenDirectory(const std::string& path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("open directory ", path));
  return FileDescriptor(fd);
}

const char* FileKindName(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "regular file";
    case S_IFLNK: return "symbolic link";
    case S_IFIFO: return "FIFO";
    case S_IFSOCK: return "socket";
    case S_IFDIR: return "directory";
    case S_IFCHR: return "character device";
    case S_IFBLK: return "block device";
    default: return "special file";
  }
}

absl::StatusOr<FileDescriptor> OpenRegularNoFollow(int dir, const std::string& name,
                                                   absl::string_view display) {
  constexpr int kFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  int fd;
  do {
    fd = dir >= 0 ? ::openat(dir, name.c_str(), kFlags) : ::open(name.c_str(), kFlags);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    if (errno == ELOOP) {
      return absl::FailedPreconditionError(
          absl::StrCat(display, ": a symbolic link, not followed (only regular files are read)"));
    }
    return absl::ErrnoToStatus(errno, absl::StrCat("open ", display));
  }
  FileDescriptor owned(fd);
  absl::StatusOr<struct stat> st = StatFd(fd, display);
  if (!st.ok()) return st.status();
  if (!S_ISREG(st->st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(
        display, ": a ", FileKindName(st->st_mode), ", not a regular file; not read"));
  }
  return owned;
}

absl::StatusOr<struct stat> StatNoFollow(int dir, const std::string& name,
                                         absl::string_view display) {
  struct stat st;
  const int rc = dir >= 0 ? ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW)
                          : ::lstat(name.c_str(), &st);
  if (rc != 0) return absl::ErrnoToStatus(errno, absl::StrCat("stat ", display));
  return st;
}

absl::StatusOr<size_t> ReadAt(int fd, uint64_t offset, std::span<uint8_t> out,
                              absl::string_view path) {
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::pread(fd, out.data() + done, out.size() - done,
                        static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(
          errno, absl::StrCat("read ", path, " at offset ", offset + done));
    }
    if (n == 0) break;  // end of file
    done += static_cast<size_t>(n);
  }
  return done;
}

absl::StatusOr<struct stat> StatPath(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("stat ", path));
  }
  return st;
}

absl::StatusOr<struct stat> StatFd(int fd, absl::string_view path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("fstat ", path));
  }
  return st;
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  absl::StatusOr<FileDescriptor> fd = OpenForRead(path);
  if (!fd.ok()) return fd.status();
  std::string out;
  uint8_t buf[65536];
  for (;;) {
    absl::StatusOr<size_t> n = ReadAt(fd->get(), out.size(), buf, path);
    if (!n.ok()) return n.status();
    out.append(reinterpret_cast<const char*>(buf), *n);
    if (*n < sizeof(buf)) return out;
  }
}

absl::Status WriteFileAtomically(const std::string& path,
                                 std::span<const uint8_t> data) {
  const std::string tmp = absl::StrCat(path, ".tmp.", ::getpid());
  int fd;
  do {
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("open ", tmp));
  FileDescriptor owned(fd);
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::unlink(tmp.c_str());
      return absl::ErrnoToStatus(err, absl::StrCat("write ", tmp));
    }
    done += static_cast<size_t>(n);
  }
  owned.reset();
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return absl::ErrnoToStatus(err, absl::StrCat("rename ", tmp, " to ", path));
  }
  return absl::OkStatus();
}

namespace {
struct rlimit original_files_limit;
bool files_limit_raised = false;
}  // namespace

void RaiseOpenFileLimit() {
  if (files_limit_raised) return;
  struct rlimit r;
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= r.rlim_max) return;
  original_files_limit = r;
  r.rlim_cur = r.rlim_max;
  files_limit_raised = ::setrlimit(RLIMIT_NOFILE, &r) == 0;
}

void RestoreOpenFileLimit() {
  if (files_limit_raised) (void)::setrlimit(RLIMIT_NOFILE, &original_files_limit);
}

}  // namespace mmvlog::archiver

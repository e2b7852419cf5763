#include "archiver/daemon/archive_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "archiver/file/posix_file.h"

namespace mmvlog::archiver {

absl::StatusOr<ArchiveDirLock> ArchiveDirLock::Acquire(const std::string& dir,
                                                       std::optional<DirOwner> owner) {
  std::error_code ec;
  const bool created = std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::ErrnoToStatus(ec.value(), absl::StrCat("cannot create archive directory ", dir));
  }
  // An archive directory made for -U's user belongs to that user.
  if (created && owner && ::chown(dir.c_str(), owner->uid, owner->gid) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot give ", dir, " to uid ", owner->uid));
  }
  const std::string lock_path = absl::StrCat(dir, "/.mmvlog.lock");
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("open ", lock_path));
  ArchiveDirLock lock(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
    return absl::FailedPreconditionError(
        absl::StrCat("another mmvlog record", n > 0 ? absl::StrCat(" (pid ", buf, ")") : "",
                     " is writing to ", dir, "; stop it or use another archive directory"));
  }
  // Not fatal when it fails: the lock is held; only a later run as the
  // user may need the file.
  if (owner && ::fchown(fd, owner->uid, owner->gid) != 0) {
  }
  // The holder's pid, for the message above (best effort: the lock holds
  // either way; -c opt's _FORTIFY_SOURCE makes pwrite's result unused-checked).
  const std::string pid = absl::StrCat(::getpid());
  if (::ftruncate(fd, 0) == 0 && ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
  }
  return lock;
}

ArchiveDirLock& ArchiveDirLock::operator=(ArchiveDirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

ArchiveDirLock::~ArchiveDirLock() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status WritePidfile(const std::string& path) {
  const std::string text = absl::StrCat(::getpid(), "\n");
  return WriteFileAtomically(path, std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace mmvlog::archiver

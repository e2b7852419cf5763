// The archive directory a recording daemon owns: created with its parents,
// handed to the user the daemon records as, locked so that one recorder
// writes there at a time (a second is refused, naming the holder's pid),
// and the daemon's pidfile.
#ifndef MMVLOG_ARCHIVER_DAEMON_ARCHIVE_DIR_H_
#define MMVLOG_ARCHIVER_DAEMON_ARCHIVE_DIR_H_

#include <sys/types.h>

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mmvlog::archiver {

// Who the archives belong to (-U's user).
struct DirOwner {
  uid_t uid = 0;
  gid_t gid = 0;
};

// The lock of an archive directory, held while the object lives.
class ArchiveDirLock {
 public:
  // Creates `dir` and its missing parents (0755); a directory it creates is
  // given to `owner` when set. Then takes `dir`/.mmvlog.lock (flock) and
  // writes this process's pid in it. Errors: the directory cannot be made
  // or given (the errno's status naming it); FailedPrecondition naming the
  // holder's pid when another recorder holds the lock.
  static absl::StatusOr<ArchiveDirLock> Acquire(const std::string& dir,
                                                std::optional<DirOwner> owner);

  ArchiveDirLock(ArchiveDirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  ArchiveDirLock& operator=(ArchiveDirLock&& other) noexcept;
  ArchiveDirLock(const ArchiveDirLock&) = delete;
  ArchiveDirLock& operator=(const ArchiveDirLock&) = delete;
  ~ArchiveDirLock();

 private:
  explicit ArchiveDirLock(int fd) : fd_(fd) {}
  int fd_;  // the lock file, open (the flock held) while >= 0
};

// Writes "PID\n" to `path` atomically (a temporary name, then rename).
absl::Status WritePidfile(const std::string& path);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_DAEMON_ARCHIVE_DIR_H_

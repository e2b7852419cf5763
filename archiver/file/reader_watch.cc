#include "archiver/file/reader_watch.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {

absl::StatusOr<ReaderWatch> ReaderWatch::Open(const std::vector<std::string>& paths) {
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, "inotify_init1");
  ReaderWatch watch(fd);
  for (const std::string& path : paths) {
    if (::inotify_add_watch(fd, path.c_str(), IN_OPEN | IN_ACCESS) < 0) {
      return absl::ErrnoToStatus(errno, absl::StrCat("watch ", path));
    }
  }
  return watch;
}

ReaderWatch::ReaderWatch(ReaderWatch&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

ReaderWatch& ReaderWatch::operator=(ReaderWatch&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

ReaderWatch::~ReaderWatch() {
  if (fd_ >= 0) ::close(fd_);
}

bool ReaderWatch::TakeSeen() {
  // The events' contents do not matter, only that some came; a queue that
  // overflowed (IN_Q_OVERFLOW) is an event too.
  alignas(struct inotify_event) char buf[4096];
  bool seen = false;
  while (::read(fd_, buf, sizeof buf) > 0) seen = true;
  return seen;
}

}  // namespace mmvlog::archiver

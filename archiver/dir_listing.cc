#include "archiver/dir_listing.h"

#include <dirent.h>
#include <time.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {
namespace {

bool SameTime(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

}  // namespace

absl::Status DirListing::Refresh() {
  struct stat st;
  if (::stat(dir_.c_str(), &st) != 0) {
    const int err = errno;
    files_.clear();
    trusted_ = false;
    return absl::ErrnoToStatus(err, absl::StrCat("cannot read MMV directory ", dir_));
  }
  if (trusted_ && st.st_ino == seen_.st_ino && st.st_dev == seen_.st_dev &&
      SameTime(st.st_mtim, seen_.st_mtim) && SameTime(st.st_ctim, seen_.st_ctim)) {
    return absl::OkStatus();
  }
  struct timespec start;
  ::clock_gettime(CLOCK_REALTIME, &start);
  ++reads_;
  files_.clear();
  trusted_ = false;
  DIR* d = ::opendir(dir_.c_str());
  if (d == nullptr) {
    const int err = errno;
    return absl::ErrnoToStatus(err, absl::StrCat("cannot read MMV directory ", dir_));
  }
  while (struct dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;  // as pmdammv
    const std::string path = absl::StrCat(dir_, "/", e->d_name);
    struct stat fst;
    if (::stat(path.c_str(), &fst) != 0 || !S_ISREG(fst.st_mode)) continue;
    files_[e->d_name] = path;
  }
  ::closedir(d);
  seen_ = st;
  // Trusted once the last change of the entries (the mtime) is over a
  // second older than this read: any later change gets a newer mtime.
  trusted_ = start.tv_sec > st.st_mtim.tv_sec + 1;
  return absl::OkStatus();
}

}  // namespace mmvlog::archiver

#include "archiver/mmv/dir_listing.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
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

absl::Status DirListing::Refresh(bool unchanged, bool same_entries) {
  if (unchanged && listed_) return absl::OkStatus();
  listed_ = false;
  struct stat st;
  // By path, so that a directory removed and made again is noticed; when
  // the path cannot be followed (privileges dropped), the open one serves.
  if (::stat(dir_.c_str(), &st) != 0 && (fd_ == nullptr || ::fstat(fd_->get(), &st) != 0)) {
    const int err = errno;
    files_.clear();
    skipped_.clear();
    trusted_ = false;
    return absl::ErrnoToStatus(err, absl::StrCat("cannot read MMV directory ", dir_));
  }
  struct stat open_st;
  if (fd_ == nullptr || ::fstat(fd_->get(), &open_st) != 0 || open_st.st_ino != st.st_ino ||
      open_st.st_dev != st.st_dev) {
    absl::StatusOr<FileDescriptor> fd = OpenDirectory(dir_);
    if (!fd.ok()) {
      files_.clear();
      skipped_.clear();
      trusted_ = false;
      return absl::Status(fd.status().code(),
                          absl::StrCat("cannot read MMV directory ", dir_, ": ",
                                       fd.status().message()));
    }
    fd_ = std::make_shared<const FileDescriptor>(std::move(*fd));
    trusted_ = false;
  }
  const bool same_dir = st.st_ino == seen_.st_ino && st.st_dev == seen_.st_dev;
  if (same_dir && ((same_entries && reads_ > 0) ||
                   (trusted_ && SameTime(st.st_mtim, seen_.st_mtim) &&
                    SameTime(st.st_ctim, seen_.st_ctim)))) {
    listed_ = true;
    return absl::OkStatus();
  }
  struct timespec start;
  ::clock_gettime(CLOCK_REALTIME, &start);
  ++reads_;
  files_.clear();
  skipped_.clear();
  trusted_ = false;
  // fdopendir takes the descriptor it is given: a duplicate of ours.
  const int dup = ::fcntl(fd_->get(), F_DUPFD_CLOEXEC, 0);
  DIR* d = dup >= 0 ? ::fdopendir(dup) : nullptr;
  if (d == nullptr) {
    const int err = errno;
    if (dup >= 0) ::close(dup);
    return absl::ErrnoToStatus(err, absl::StrCat("cannot read MMV directory ", dir_));
  }
  ::rewinddir(d);  // the duplicate shares the original's position
  while (struct dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;  // as pmdammv
    // The entry's type when the file system gives it (ext4, xfs, tmpfs
    // do), so a listing of a thousand files is not a thousand stats.
    struct stat fst;
    if (e->d_type != DT_UNKNOWN) {
      fst.st_mode = DTTOIF(e->d_type);
    } else if (::fstatat(fd_->get(), e->d_name, &fst, AT_SYMLINK_NOFOLLOW) != 0) {
      continue;  // gone
    }
    if (S_ISREG(fst.st_mode)) {
      files_[e->d_name] = absl::StrCat(dir_, "/", e->d_name);
    } else {
      skipped_[e->d_name] = FileKindName(fst.st_mode);
    }
  }
  ::closedir(d);
  seen_ = st;
  // Trusted once the last change of the entries (the mtime) is over a
  // second older than this read: any later change gets a newer mtime.
  trusted_ = start.tv_sec > st.st_mtim.tv_sec + 1;
  listed_ = true;
  return absl::OkStatus();
}

}  // namespace mmvlog::archiver

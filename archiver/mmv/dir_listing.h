// DirListing: the regular files of the MMV directory, re-read only when the
// directory changed. Listing a directory is an open, two getdents and a
// stat per file; a recorder sampling a quiet directory every 10 ms would
// spend more on that than on recording its values. One stat of the
// directory tells whether its entries changed: creating, removing or
// renaming a file updates the directory's mtime/ctime.
//
// File timestamps come from a coarse clock, so a change made in the same
// clock tick as the previous one may leave the mtime as it was. As git does
// for its index ("racily clean" entries), a listing is trusted only when it
// was read more than a second after the directory's last change; until
// then the directory is read every time.
//
// The directory is opened once and its entries are examined relative to
// that descriptor with fstatat(AT_SYMLINK_NOFOLLOW): only regular files are
// listed; symbolic links (wherever they point), FIFOs, sockets, devices and
// directories are listed apart as skipped, so that nothing outside the
// directory is ever read through it. Files are then opened relative to
// dir_fd() (MmvSource), which also keeps working once privileges have been
// dropped to a user who could not reach the directory by its path.
#ifndef MMVLOG_ARCHIVER_MMV_DIR_LISTING_H_
#define MMVLOG_ARCHIVER_MMV_DIR_LISTING_H_

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "archiver/file/posix_file.h"

namespace mmvlog::archiver {

class DirListing {
 public:
  explicit DirListing(std::string dir) : dir_(std::move(dir)) {}

  // Name -> path of the regular files whose names do not start with '.' (as
  // pmdammv). Errors (errno-based, naming the directory) leave the listing
  // empty. `unchanged`: the caller knows the entries have not changed since
  // the last Refresh (a DirWatch set up before it); a good listing is then
  // kept without a look.
  // `same_entries`: the caller knows the entries of the directory it
  // watches have not changed (a DirWatch whole and quiet); only whether the
  // path still names that directory is looked at (two stats), and the
  // listing kept if it does.
  absl::Status Refresh(bool unchanged = false, bool same_entries = false);
  const std::map<std::string, std::string>& files() const { return files_; }
  // Name -> what it is ("symbolic link", "FIFO", ...) of the other entries.
  const std::map<std::string, std::string>& skipped() const { return skipped_; }
  // The directory, open (null until the first successful Refresh). A new
  // descriptor when the directory was replaced.
  const std::shared_ptr<const FileDescriptor>& dir_fd() const { return fd_; }

  // Times the directory was actually read (for tests and benchmarks).
  uint64_t reads() const { return reads_; }

 private:
  std::string dir_;
  std::shared_ptr<const FileDescriptor> fd_;
  std::map<std::string, std::string> files_;
  std::map<std::string, std::string> skipped_;
  bool trusted_ = false;  // files_ is current while the stat below holds
  bool listed_ = false;   // the last Refresh succeeded
  struct stat seen_ {};
  uint64_t reads_ = 0;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_MMV_DIR_LISTING_H_

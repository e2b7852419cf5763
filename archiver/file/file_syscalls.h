// The system calls archives are written with: the file-I/O seam. Every
// write-path call of WritableFile (open, write, fdatasync, ftruncate, close)
// goes through FileSyscalls(), the real calls unless a test installed its
// own to inject faults (EIO, ENOSPC, EDQUOT, EFBIG, EINTR, short writes,
// failing fsync or close) at any one call.
#ifndef MMVLOG_ARCHIVER_FILE_FILE_SYSCALLS_H_
#define MMVLOG_ARCHIVER_FILE_FILE_SYSCALLS_H_

#include <sys/types.h>

#include <cstddef>

namespace mmvlog::archiver {

struct FileSyscallTable {
  int (*open)(const char* path, int flags, mode_t mode);
  ssize_t (*write)(int fd, const void* data, size_t n);
  int (*fdatasync)(int fd);
  int (*ftruncate)(int fd, off_t size);
  int (*close)(int fd);
};

// The table in use.
const FileSyscallTable& FileSyscalls();

// Tests: use `table` (which must outlive its use) instead of the real calls;
// nullptr restores them. Not for use while files are being written on other
// threads.
void SetFileSyscallsForTesting(const FileSyscallTable* table);

// The real calls (for a test's table to forward to).
const FileSyscallTable& RealFileSyscalls();

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_FILE_FILE_SYSCALLS_H_

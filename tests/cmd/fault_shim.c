/* An LD_PRELOAD shim that makes the N-th write-path call on an archive's
 * files fail, for tests/cmd/write_faults_test.py: it drives the real mmvlog
 * binary, so what is judged is what a user would get on a full disk.
 *
 * Counted calls ("the archive's": a path that starts with FAULT_SHIM_PREFIX,
 * or a descriptor opened from one):
 *   open/openat/creat (and their 64 forms) with O_CREAT or write access,
 *   write/pwrite/writev on such a descriptor, fsync/fdatasync on it,
 *   close of it (the descriptor is released, then the error returned, as
 *   close(2) does), rename/renameat/renameat2 with either path the archive's.
 * Read-only opens and reads are not counted: recovery reads what it finds.
 *
 * Environment:
 *   FAULT_SHIM_PREFIX  the archive's path prefix, e.g. /tmp/t/arch (required;
 *                      without it nothing is counted)
 *   FAULT_SHIM_AT      the first call (1-based) to fail; 0 or unset: none
 *   FAULT_SHIM_ERRNO   the errno it fails with (e.g. 28, ENOSPC)
 *   FAULT_SHIM_FOR     how many calls fail from FAULT_SHIM_AT on (0 or
 *                      unset: every later one: the disk stays full)
 *   FAULT_SHIM_LOG     a file to which one line per counted call is appended:
 *                      "<n> <call> <path> ok|failed"
 * Threads share one counter (atomic); the log line of a call is written with
 * a raw write(2) before the call's result is returned.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 65536

static const char* g_prefix;
static size_t g_prefix_len;
static long g_at;
static int g_errno;
static long g_for;
static int g_log = -1;
static long g_calls;  /* atomic */
static char* g_paths[MAX_FDS];  /* the archive's descriptors: their paths */

static void init(void) __attribute__((constructor));
static void init(void) {
  g_prefix = getenv("FAULT_SHIM_PREFIX");
  g_prefix_len = g_prefix != NULL ? strlen(g_prefix) : 0;
  const char* at = getenv("FAULT_SHIM_AT");
  g_at = at != NULL ? atol(at) : 0;
  const char* err = getenv("FAULT_SHIM_ERRNO");
  g_errno = err != NULL ? atoi(err) : EIO;
  const char* n = getenv("FAULT_SHIM_FOR");
  g_for = n != NULL ? atol(n) : 0;
  const char* log = getenv("FAULT_SHIM_LOG");
  if (log != NULL && *log != '\0') {
    g_log = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                         0644);
  }
}

static void* real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == NULL) {
    static const char msg[] = "fault_shim: a libc call cannot be found\n";
    syscall(SYS_write, 2, msg, sizeof(msg) - 1);
    abort();
  }
  return f;
}

static int is_archive_path(const char* path) {
  return g_prefix_len > 0 && path != NULL && strncmp(path, g_prefix, g_prefix_len) == 0;
}

static int is_archive_fd(int fd) { return fd >= 0 && fd < MAX_FDS && g_paths[fd] != NULL; }

/* Counts a call; returns nonzero when it is to fail (errno is then set). */
static int fault(const char* call, const char* path) {
  const long n = __atomic_add_fetch(&g_calls, 1, __ATOMIC_SEQ_CST);
  const int fail = g_at > 0 && n >= g_at && (g_for == 0 || n < g_at + g_for);
  if (g_log >= 0) {
    char line[4200];
    const int len = snprintf(line, sizeof(line), "%ld %s %s %s\n", n, call,
                             path != NULL ? path : "?", fail ? "failed" : "ok");
    if (len > 0) syscall(SYS_write, g_log, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
  }
  if (fail) errno = g_errno;
  return fail;
}

static int wants_write(int flags) { return (flags & (O_CREAT | O_WRONLY | O_RDWR)) != 0; }

static void track(int fd, const char* path) {
  if (fd < 0 || fd >= MAX_FDS) return;
  free(g_paths[fd]);
  g_paths[fd] = strdup(path);
}

static int do_openat(const char* name, int dirfd, const char* path, int flags, mode_t mode) {
  typedef int (*fn)(int, const char*, int, ...);
  static fn f;
  if (f == NULL) f = (fn)real(name);
  const int counted = is_archive_path(path) && wants_write(flags);
  if (counted && fault("open", path)) return -1;
  const int fd = f(dirfd, path, flags, mode);
  if (counted) track(fd, path);
  return fd;
}

static int do_open(const char* name, const char* path, int flags, mode_t mode) {
  typedef int (*fn)(const char*, int, ...);
  static fn f[2];
  const int i = strcmp(name, "open") == 0 ? 0 : 1;
  if (f[i] == NULL) f[i] = (fn)real(name);
  const int counted = is_archive_path(path) && wants_write(flags);
  if (counted && fault("open", path)) return -1;
  const int fd = f[i](path, flags, mode);
  if (counted) track(fd, path);
  return fd;
}

static mode_t mode_arg(int flags, va_list ap) {
  return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_open("open", path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_open("open64", path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_openat("openat", dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  return do_openat("openat64", dirfd, path, flags, mode);
}

int creat(const char* path, mode_t mode) {
  return do_open("open", path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

int creat64(const char* path, mode_t mode) {
  return do_open("open64", path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

ssize_t write(int fd, const void* data, size_t n) {
  static ssize_t (*f)(int, const void*, size_t);
  if (f == NULL) f = (ssize_t(*)(int, const void*, size_t))real("write");
  if (is_archive_fd(fd) && fault("write", g_paths[fd])) return -1;
  return f(fd, data, n);
}

ssize_t pwrite(int fd, const void* data, size_t n, off_t at) {
  static ssize_t (*f)(int, const void*, size_t, off_t);
  if (f == NULL) f = (ssize_t(*)(int, const void*, size_t, off_t))real("pwrite");
  if (is_archive_fd(fd) && fault("write", g_paths[fd])) return -1;
  return f(fd, data, n, at);
}

ssize_t pwrite64(int fd, const void* data, size_t n, off_t at) {
  static ssize_t (*f)(int, const void*, size_t, off_t);
  if (f == NULL) f = (ssize_t(*)(int, const void*, size_t, off_t))real("pwrite64");
  if (is_archive_fd(fd) && fault("write", g_paths[fd])) return -1;
  return f(fd, data, n, at);
}

ssize_t writev(int fd, const struct iovec* iov, int n) {
  static ssize_t (*f)(int, const struct iovec*, int);
  if (f == NULL) f = (ssize_t(*)(int, const struct iovec*, int))real("writev");
  if (is_archive_fd(fd) && fault("write", g_paths[fd])) return -1;
  return f(fd, iov, n);
}

int fsync(int fd) {
  static int (*f)(int);
  if (f == NULL) f = (int (*)(int))real("fsync");
  if (is_archive_fd(fd) && fault("fsync", g_paths[fd])) return -1;
  return f(fd);
}

int fdatasync(int fd) {
  static int (*f)(int);
  if (f == NULL) f = (int (*)(int))real("fdatasync");
  if (is_archive_fd(fd) && fault("fdatasync", g_paths[fd])) return -1;
  return f(fd);
}

int close(int fd) {
  static int (*f)(int);
  if (f == NULL) f = (int (*)(int))real("close");
  if (!is_archive_fd(fd)) return f(fd);
  char* path = g_paths[fd];
  g_paths[fd] = NULL;
  /* The descriptor is released whatever close reports (close(2)). */
  const int rc = f(fd);
  const int failed = fault("close", path);
  free(path);
  return failed ? -1 : rc;
}

static int renamed(const char* from, const char* to) {
  return is_archive_path(from) || is_archive_path(to);
}

int rename(const char* from, const char* to) {
  static int (*f)(const char*, const char*);
  if (f == NULL) f = (int (*)(const char*, const char*))real("rename");
  if (renamed(from, to) && fault("rename", to)) return -1;
  return f(from, to);
}

int renameat(int fromdir, const char* from, int todir, const char* to) {
  static int (*f)(int, const char*, int, const char*);
  if (f == NULL) f = (int (*)(int, const char*, int, const char*))real("renameat");
  if (renamed(from, to) && fault("rename", to)) return -1;
  return f(fromdir, from, todir, to);
}

int renameat2(int fromdir, const char* from, int todir, const char* to, unsigned flags) {
  static int (*f)(int, const char*, int, const char*, unsigned);
  if (f == NULL) f = (int (*)(int, const char*, int, const char*, unsigned))real("renameat2");
  if (renamed(from, to) && fault("rename", to)) return -1;
  return f(fromdir, from, todir, to, flags);
}

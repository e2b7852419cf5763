// WriteBehind: ranges run on the worker in submission order on a dup of the
// caller's fd, a full queue drops instead of blocking, and nothing queued is
// lost at shutdown. The global instance runs sync_file_range on real files.
#include "archiver/file/write_behind.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/archiver/recorder_test_util.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::NewTempDir;

struct Seen {
  int fd;
  off_t offset;
  off_t length;
  ino_t ino;
  int access;   // O_ACCMODE bits of the worker's descriptor
  int cloexec;  // FD_CLOEXEC of it
};

int OpenScratch(const std::string& name) {
  const std::string path = NewTempDir("wb") + "/" + name;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0) << path;
  return fd;
}

ino_t Inode(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? st.st_ino : 0;
}

TEST(WriteBehindTest, RangesRunInOrderOnADupTheCallerMayCloseAtOnce) {
  std::mutex mu;
  std::vector<Seen> seen;
  WriteBehind wb([&](int fd, off_t offset, off_t length) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back({fd, offset, length, Inode(fd), ::fcntl(fd, F_GETFL) & O_ACCMODE,
                    ::fcntl(fd, F_GETFD) & FD_CLOEXEC});
    return 0;
  });
  const int fd = OpenScratch("a");
  const ino_t ino = Inode(fd);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(wb.Submit(fd, i * 4096, 4096 * (i + 1)));
  ::close(fd);  // the worker holds its own descriptors
  wb.Drain();
  ASSERT_EQ(seen.size(), 10u);
  uint64_t bytes = 0;
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(seen[i].offset, i * 4096);
    EXPECT_EQ(seen[i].length, 4096 * (i + 1));
    EXPECT_EQ(seen[i].ino, ino) << "range " << i << " saw another file";
    // Its own file description (the caller's is O_RDWR): a writeback error
    // the worker waits for stays owed to the caller's fdatasync too.
    EXPECT_EQ(seen[i].access, O_RDONLY) << "range " << i << " got a dup";
    EXPECT_NE(seen[i].cloexec, 0) << "range " << i;
    bytes += 4096 * (i + 1);
    // Closed once its range was done.
    EXPECT_EQ(::fcntl(seen[i].fd, F_GETFD), -1) << "range " << i << " fd left open";
  }
  const WriteBehind::Stats stats = wb.stats();
  EXPECT_EQ(stats.ranges, 10u);
  EXPECT_EQ(stats.bytes, bytes);
  EXPECT_EQ(stats.errors, 0u);
  EXPECT_EQ(stats.dropped, 0u);
}

TEST(WriteBehindTest, AFullQueueDropsInsteadOfBlocking) {
  std::promise<void> entered, release;
  std::shared_future<void> released = release.get_future().share();
  int calls = 0;
  WriteBehind wb(
      [&](int, off_t, off_t) {
        if (calls++ == 0) {
          entered.set_value();
          released.wait();  // the device is slow: the worker is stuck here
        }
        return 0;
      },
      /*max_queued=*/3);
  const int fd = OpenScratch("a");
  ASSERT_TRUE(wb.Submit(fd, 0, 4096));
  entered.get_future().wait();
  for (int i = 1; i <= 3; ++i) EXPECT_TRUE(wb.Submit(fd, i * 4096, 4096)) << i;
  EXPECT_FALSE(wb.Submit(fd, 4 * 4096, 4096));  // returns at once, dropped
  EXPECT_EQ(wb.stats().dropped, 1u);
  release.set_value();
  wb.Drain();
  EXPECT_EQ(wb.stats().ranges, 4u);
  EXPECT_TRUE(wb.Submit(fd, 5 * 4096, 4096));  // room again
  wb.Drain();
  EXPECT_EQ(wb.stats().ranges, 5u);
  ::close(fd);
}

TEST(WriteBehindTest, TheFirstErrorGoesBackToItsFileAndTheWorkerGoesOn) {
  WriteBehind wb([](int, off_t offset, off_t) {
    return offset == 4096 ? EIO : offset == 8192 ? ENOSPC : 0;
  });
  const int fd = OpenScratch("a");
  auto error = std::make_shared<std::atomic<int>>(0);
  auto other = std::make_shared<std::atomic<int>>(0);
  EXPECT_TRUE(wb.Submit(fd, 0, 4096, other));
  EXPECT_TRUE(wb.Submit(fd, 4096, 4096, error));
  EXPECT_TRUE(wb.Submit(fd, 8192, 4096, error));
  EXPECT_TRUE(wb.Submit(fd, 12288, 4096));
  wb.Drain();
  EXPECT_EQ(error->load(), EIO);  // the first, not overwritten by ENOSPC
  EXPECT_EQ(other->load(), 0);
  EXPECT_EQ(wb.stats().errors, 2u);
  EXPECT_EQ(wb.stats().ranges, 4u);
  ::close(fd);
}

TEST(WriteBehindTest, DestructionFinishesWhatWasQueued) {
  int done = 0;
  {
    WriteBehind wb([&](int, off_t, off_t) {
      ::usleep(2000);
      ++done;
      return 0;
    });
    const int fd = OpenScratch("a");
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(wb.Submit(fd, i * 4096, 4096));
    ::close(fd);
  }
  EXPECT_EQ(done, 5);
}

// Pages of [0, length) of fd in the page cache.
size_t ResidentPages(int fd, size_t length) {
  void* p = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    ADD_FAILURE() << "mmap: " << std::strerror(errno);
    return 0;
  }
  std::vector<unsigned char> vec(length / 4096);
  size_t n = 0;
  if (::mincore(p, length, vec.data()) == 0) {
    for (unsigned char v : vec) n += v & 1;
  } else {
    ADD_FAILURE() << "mincore: " << std::strerror(errno);
  }
  ::munmap(p, length);
  return n;
}

TEST(WriteBehindTest, GlobalWritesBackAndDropsARealFileFromTheCache) {
  const int fd = OpenScratch("a");
  std::vector<char> page(1 << 20, 'x');
  for (int i = 0; i < 4; ++i) ASSERT_EQ(::write(fd, page.data(), page.size()), 1 << 20);
  WriteBehind& wb = WriteBehind::Global();
  wb.Drain();
  const WriteBehind::Stats before = wb.stats();
  // Whether the drop can be seen: on tmpfs the pages are the file (never
  // dropped), and some file systems do not cache what was just written.
  struct statfs fs {};
  ASSERT_EQ(::fstatfs(fd, &fs), 0);
  const bool observable = fs.f_type != TMPFS_MAGIC && ResidentPages(fd, 4 << 20) == 1024u;
  ASSERT_TRUE(wb.Submit(fd, 0, 4 << 20));
  wb.Drain();
  const WriteBehind::Stats after = wb.stats();
  EXPECT_EQ(after.ranges - before.ranges, 1u);
  EXPECT_EQ(after.bytes - before.bytes, 4u << 20);
  EXPECT_EQ(after.errors - before.errors, 0u) << "sync_file_range or fadvise failed";
  const size_t left = ResidentPages(fd, 4 << 20);
  ::close(fd);
  if (!observable) GTEST_SKIP() << "the page cache does not show this file system's writes";
  EXPECT_LT(left, 64u) << "written pages left in the page cache";
}

}  // namespace
}  // namespace mmvlog::archiver

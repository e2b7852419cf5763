// Tests for archiver/guarded_mapping: reads of a file that shrinks under its
// mapping fail instead of killing the process, and only those.
#include "archiver/mmv/guarded_mapping.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

constexpr size_t kPage = 4096;

// A file of `pages` pages in $TEST_TMPDIR, byte i of page p holding p + 1.
int MakeFile(const std::string& name, size_t pages) {
  const std::string path = absl::StrCat(::testing::TempDir(), name);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0) << path;
  for (size_t p = 0; p < pages; ++p) {
    std::string page(kPage, static_cast<char>(p + 1));
    EXPECT_EQ(::pwrite(fd, page.data(), page.size(), static_cast<off_t>(p * kPage)),
              static_cast<ssize_t>(kPage));
  }
  return fd;
}

TEST(GuardedMappingTest, ReadsTheFilesBytes) {
  const int fd = MakeFile("reads", 3);
  absl::StatusOr<GuardedMapping> map = GuardedMapping::Map(fd, 3 * kPage, "reads");
  ASSERT_OK(map);
  EXPECT_EQ(map->size(), 3 * kPage);
  uint64_t sum = 0;
  EXPECT_TRUE(map->Read([&](std::span<const uint8_t> bytes) {
    for (uint8_t b : bytes) sum += b;
  }));
  EXPECT_EQ(sum, kPage * (1 + 2 + 3));
  // Changes made through the file show (a shared mapping).
  const char seven = 7;
  ASSERT_EQ(::pwrite(fd, &seven, 1, 2 * kPage), 1);
  uint8_t seen = 0;
  EXPECT_TRUE(map->Read([&](std::span<const uint8_t> bytes) { seen = bytes[2 * kPage]; }));
  EXPECT_EQ(seen, 7);
  ::close(fd);
}

TEST(GuardedMappingTest, AReadPastTheShrunkenEndFailsAndTheNextReadsWork) {
  const int fd = MakeFile("shrinks", 4);
  absl::StatusOr<GuardedMapping> map = GuardedMapping::Map(fd, 4 * kPage, "shrinks");
  ASSERT_OK(map);
  ASSERT_EQ(::ftruncate(fd, kPage), 0);
  for (int i = 0; i < 3; ++i) {  // each time: the handler stays armed
    bool finished = false;
    EXPECT_FALSE(map->Read([&](std::span<const uint8_t> bytes) {
      volatile uint8_t b = bytes[3 * kPage];  // SIGBUS without the guard
      (void)b;
      finished = true;
    }));
    EXPECT_FALSE(finished);
  }
  // The first page is still there.
  uint8_t first = 0;
  EXPECT_TRUE(map->Read([&](std::span<const uint8_t> bytes) { first = bytes[10]; }));
  EXPECT_EQ(first, 1);
  // Grown again: readable again (zeros where nothing was written).
  ASSERT_EQ(::ftruncate(fd, 4 * kPage), 0);
  uint8_t last = 9;
  EXPECT_TRUE(map->Read([&](std::span<const uint8_t> bytes) { last = bytes[3 * kPage]; }));
  EXPECT_EQ(last, 0);
  ::close(fd);
}

// Touch reads ahead of use, so the file may have shrunk (or gone to
// nothing) by then: a page past the end fails the touch, not the process.
TEST(GuardedMappingTest, TouchesPagesThatAreThereAndFailsPastTheEnd) {
  const int fd = MakeFile("touch", 4);
  absl::StatusOr<GuardedMapping> map = GuardedMapping::Map(fd, 4 * kPage, "touch");
  ASSERT_OK(map);
  EXPECT_TRUE(map->Touch(0, 4 * kPage));
  EXPECT_TRUE(map->Touch(kPage + 10, kPage + 20));
  EXPECT_TRUE(map->Touch(8 * kPage, 9 * kPage));  // past the mapping: nothing read
  EXPECT_TRUE(map->Touch(20, 10));                // empty
  ASSERT_EQ(::ftruncate(fd, 2 * kPage), 0);
  EXPECT_TRUE(map->Touch(0, 2 * kPage));
  EXPECT_FALSE(map->Touch(0, 3 * kPage));   // the third page is gone
  EXPECT_FALSE(map->Touch(3 * kPage + 5, 3 * kPage + 6));
  ASSERT_EQ(::ftruncate(fd, 0), 0);
  EXPECT_FALSE(map->Touch(0, 1));
  ASSERT_EQ(::ftruncate(fd, 4 * kPage), 0);
  EXPECT_TRUE(map->Touch(0, 4 * kPage));
  ::close(fd);
}

TEST(GuardedMappingTest, NestedReadsEachGuardTheirOwnMapping) {
  const int a_fd = MakeFile("outer", 2);
  const int b_fd = MakeFile("inner", 2);
  absl::StatusOr<GuardedMapping> a = GuardedMapping::Map(a_fd, 2 * kPage, "outer");
  absl::StatusOr<GuardedMapping> b = GuardedMapping::Map(b_fd, 2 * kPage, "inner");
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_EQ(::ftruncate(b_fd, 0), 0);
  bool inner = true;
  uint8_t after = 0;
  EXPECT_TRUE(a->Read([&](std::span<const uint8_t> outer) {
    inner = b->Read([&](std::span<const uint8_t> bytes) {
      volatile uint8_t x = bytes[kPage];
      (void)x;
    });
    after = outer[kPage];
  }));
  EXPECT_FALSE(inner);
  EXPECT_EQ(after, 2);
  ::close(a_fd);
  ::close(b_fd);
}

// Killed by SIGBUS, or (under AddressSanitizer, whose handler was there
// before ours) reported and failed.
bool DiedOfSigbus(int status) {
  return (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) ||
         (WIFEXITED(status) && WEXITSTATUS(status) != 0);
}

// A SIGBUS that is not a guarded read of its mapping still ends the process.
TEST(GuardedMappingDeathTest, SigbusOutsideAGuardedReadStillKills) {
  const int fd = MakeFile("unguarded", 2);
  absl::StatusOr<GuardedMapping> map = GuardedMapping::Map(fd, 2 * kPage, "unguarded");
  ASSERT_OK(map);  // the handler is installed
  auto* raw = static_cast<const uint8_t*>(
      ::mmap(nullptr, 2 * kPage, PROT_READ, MAP_SHARED, fd, 0));
  ASSERT_NE(raw, MAP_FAILED);
  ASSERT_EQ(::ftruncate(fd, 0), 0);
  EXPECT_EXIT(
      {
        volatile uint8_t b = raw[kPage];
        (void)b;
      },
      DiedOfSigbus, "");
  // Nor does a guarded read of another mapping cover it.
  EXPECT_EXIT(
      {
        (void)map->Read([&](std::span<const uint8_t>) {
          volatile uint8_t b = raw[kPage];
          (void)b;
        });
      },
      DiedOfSigbus, "");
  // A SIGBUS sent to the process (no fault) during a guarded read is not
  // taken for a fault of the mapping: it kills as it would have.
  EXPECT_EXIT(
      { (void)map->Read([&](std::span<const uint8_t>) { ::raise(SIGBUS); }); },
      DiedOfSigbus, "");
  ::close(fd);
}

}  // namespace
}  // namespace mmvlog::archiver

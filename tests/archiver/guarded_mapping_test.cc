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
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::StatusIs;

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

// MakeFile's file, mapped whole; its descriptor in *fd.
GuardedMapping MapNewFile(const std::string& name, size_t pages, int* fd) {
  *fd = MakeFile(name, pages);
  absl::StatusOr<GuardedMapping> map = GuardedMapping::Map(*fd, pages * kPage, name);
  EXPECT_OK(map);
  return map.ok() ? std::move(*map) : GuardedMapping();
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

// ReadAll guards many mappings with one sigsetjmp: a fault in any of them
// abandons the function; the others read as before, and so does the
// shrunken one within its pages. Touch reads ahead of use, so the file may
// have shrunk (or gone to nothing) by then: that fails the ReadAll, not the
// process.
TEST(GuardedMappingTest, ReadAllGuardsEachMappingItIsGiven) {
  int a_fd, b_fd;
  const GuardedMapping a_map = MapNewFile("all_a", 4, &a_fd);
  const GuardedMapping b_map = MapNewFile("all_b", 4, &b_fd);
  ASSERT_TRUE(a_map.valid() && b_map.valid());
  const GuardedMapping* const a = &a_map;
  const GuardedMapping* const b = &b_map;
  const GuardedMapping* const maps[] = {a, nullptr, b};
  uint64_t sum = 0;
  EXPECT_TRUE(GuardedMapping::ReadAll(maps, [&] {
    a->Touch(0, 4 * kPage);
    b->Touch(kPage + 10, 9 * kPage);  // past the mapping: not read
    sum = a->guarded_bytes()[3 * kPage] + b->guarded_bytes()[2 * kPage];
  }));
  EXPECT_EQ(sum, 4u + 3u);
  ASSERT_EQ(::ftruncate(b_fd, 2 * kPage), 0);
  for (int page : {2, 3}) {
    bool finished = false;
    EXPECT_FALSE(GuardedMapping::ReadAll(maps, [&] {
      a->Touch(0, 4 * kPage);
      b->Touch(page * kPage, page * kPage + 1);  // SIGBUS without the guard
      finished = true;
    }));
    EXPECT_FALSE(finished);
  }
  EXPECT_TRUE(GuardedMapping::ReadAll(maps, [&] {
    b->Touch(0, 2 * kPage);
    sum = b->guarded_bytes()[kPage];
  }));
  EXPECT_EQ(sum, 2u);
  ASSERT_EQ(::ftruncate(a_fd, 0), 0);
  EXPECT_FALSE(GuardedMapping::ReadAll(maps, [&] { a->Touch(0, 1); }));
  ASSERT_EQ(::ftruncate(a_fd, 4 * kPage), 0);
  EXPECT_TRUE(GuardedMapping::ReadAll(maps, [&] { a->Touch(0, 4 * kPage); }));
  ::close(a_fd);
  ::close(b_fd);
}

TEST(GuardedMappingTest, NestedReadsEachGuardTheirOwnMapping) {
  int a_fd, b_fd;
  const GuardedMapping a_map = MapNewFile("outer", 2, &a_fd);
  const GuardedMapping b_map = MapNewFile("inner", 2, &b_fd);
  ASSERT_TRUE(a_map.valid() && b_map.valid());
  const GuardedMapping* const a = &a_map;
  const GuardedMapping* const b = &b_map;
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

// MapPatched: a mapping read anywhere (no Read), from an offset; a read
// past the end of the shrunken file gives zeros instead of SIGBUS, and
// shrank() says so, for that mapping only.
TEST(GuardedMappingTest, APatchedMappingReadsZerosPastAShrunkenEndAndSaysSo) {
  const int fd = MakeFile("patched", 6);
  absl::StatusOr<GuardedMapping> map = GuardedMapping::MapPatched(fd, 2 * kPage, 4 * kPage, "patched");
  ASSERT_OK(map);
  absl::StatusOr<GuardedMapping> other = GuardedMapping::MapPatched(fd, 0, 6 * kPage, "patched");
  ASSERT_OK(other);
  const std::span<const uint8_t> bytes = map->guarded_bytes();
  ASSERT_EQ(bytes.size(), 4 * kPage);
  EXPECT_EQ(bytes[0], 3);  // page 2 of the file
  EXPECT_EQ(bytes[3 * kPage + 5], 6);
  EXPECT_FALSE(map->shrank());
  ASSERT_EQ(::ftruncate(fd, 3 * kPage + 100), 0);  // inside the mapping's second page
  EXPECT_EQ(bytes[kPage + 99], 4);  // still in the file: the file's byte
  EXPECT_FALSE(map->shrank());
  uint64_t past = 0;
  for (size_t i = 2 * kPage; i < bytes.size(); ++i) past += bytes[i];  // SIGBUS without the patch
  EXPECT_EQ(past, 0u);
  EXPECT_TRUE(map->shrank());
  EXPECT_EQ(bytes[0], 3);  // what was before the fault is the file's still
  EXPECT_FALSE(other->shrank());  // not read past its end yet
  volatile uint8_t b = other->guarded_bytes()[5 * kPage];
  EXPECT_EQ(b, 0);
  EXPECT_TRUE(other->shrank());
  // A mapping made again of the same entry starts unshrunk.
  map->reset();
  other->reset();
  absl::StatusOr<GuardedMapping> again = GuardedMapping::MapPatched(fd, 0, 3 * kPage, "patched");
  ASSERT_OK(again);
  EXPECT_FALSE(again->shrank());
  EXPECT_EQ(again->guarded_bytes()[2 * kPage], 3);
  ::close(fd);
}

// The handler's table is bounded: past kMostPatched at once the mapping is
// refused (its owner reads instead), and an entry freed is taken again.
TEST(GuardedMappingTest, PatchedMappingsAreBoundedAndTheirEntriesReused) {
  const int fd = MakeFile("bounded", 1);
  std::vector<GuardedMapping> maps;
  for (int i = 0; i < GuardedMapping::kMostPatched; ++i) {
    absl::StatusOr<GuardedMapping> m = GuardedMapping::MapPatched(fd, 0, kPage, "bounded");
    ASSERT_OK(m);
    maps.push_back(std::move(*m));
  }
  EXPECT_THAT(GuardedMapping::MapPatched(fd, 0, kPage, "bounded"),
              StatusIs(absl::StatusCode::kResourceExhausted));
  // Moved, a mapping keeps its entry; reset, it frees it.
  GuardedMapping moved = std::move(maps[7]);
  EXPECT_THAT(GuardedMapping::MapPatched(fd, 0, kPage, "bounded"),
              StatusIs(absl::StatusCode::kResourceExhausted));
  moved.reset();
  absl::StatusOr<GuardedMapping> m = GuardedMapping::MapPatched(fd, 0, kPage, "bounded");
  ASSERT_OK(m);
  ASSERT_EQ(::ftruncate(fd, 0), 0);
  volatile uint8_t b = m->guarded_bytes()[0];
  EXPECT_EQ(b, 0);
  EXPECT_TRUE(m->shrank());
  for (const GuardedMapping& other : maps) EXPECT_FALSE(other.shrank());
  ::close(fd);
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
  // Nor does a ReadAll of mappings that do not include it.
  EXPECT_EXIT(
      {
        const GuardedMapping* const maps[] = {&*map};
        (void)GuardedMapping::ReadAll(maps, [&] {
          volatile uint8_t b = raw[kPage];
          (void)b;
        });
      },
      DiedOfSigbus, "");
  // Nor does a patched mapping of the same file cover a fault outside it.
  absl::StatusOr<GuardedMapping> patched = GuardedMapping::MapPatched(fd, 0, kPage, "unguarded");
  ASSERT_OK(patched);
  EXPECT_EXIT(
      {
        volatile uint8_t b = raw[kPage];
        (void)b;
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

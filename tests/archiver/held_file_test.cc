// HeldFile: appends kept back while held (in a memfd, not the heap), size()
// counting them, and written in order on Release, Sync or Close.
#include "archiver/file/held_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "archiver/file/posix_file.h"
#include "archiver/file/writable_file.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

std::string TempPath(const std::string& name) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/held_", name);
  ::unlink(path.c_str());
  return path;
}

std::unique_ptr<HeldFile> Open(const std::string& path) {
  absl::StatusOr<std::unique_ptr<WritableFile>> f = OpenWritableFile(path);
  EXPECT_OK(f);
  return std::make_unique<HeldFile>(std::move(*f));
}

std::vector<uint8_t> Bytes(size_t n, uint8_t seed) {
  std::vector<uint8_t> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(seed + i * 7 + i / 251);
  return b;
}

std::string Contents(const std::string& path) {
  absl::StatusOr<std::string> s = ReadWholeFile(path);
  EXPECT_OK(s);
  return s.ok() ? *s : "";
}

std::string Str(const std::vector<uint8_t>& b) { return std::string(b.begin(), b.end()); }

// The descriptors this process has open whose link names `what`.
int OpenFdsNamed(const std::string& what) {
  int n = 0;
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  while (dirent* e = ::readdir(d)) {
    char target[512];
    const std::string link = absl::StrCat("/proc/self/fd/", e->d_name);
    const ssize_t len = ::readlink(link.c_str(), target, sizeof(target) - 1);
    if (len > 0 && std::string(target, len).find(what) != std::string::npos) ++n;
  }
  ::closedir(d);
  return n;
}

TEST(HeldFileTest, HeldAppendsWaitAndAreWrittenInOrderOnRelease) {
  const std::string path = TempPath("order");
  auto f = Open(path);
  const std::vector<uint8_t> a = Bytes(100, 1), b = Bytes(300'001, 2), c = Bytes(70'000, 3);
  ASSERT_OK(f->Append(a));
  f->Hold();
  EXPECT_TRUE(f->holding());
  ASSERT_OK(f->Append(b));
  ASSERT_OK(f->Append(c));
  // Nothing held reached the file; size() counts it for offsets all the same.
  EXPECT_EQ(Contents(path), Str(a));
  EXPECT_EQ(f->held_bytes(), b.size() + c.size());
  EXPECT_EQ(f->size(), a.size() + b.size() + c.size());
  // Held in an anonymous memory file, not in the heap.
  EXPECT_EQ(OpenFdsNamed("memfd:mmvlog-held"), 1);
  // Released across several of Release's 64 KiB appends, in order.
  ASSERT_OK(f->Release());
  EXPECT_FALSE(f->holding());
  EXPECT_EQ(f->held_bytes(), 0u);
  EXPECT_EQ(OpenFdsNamed("memfd:mmvlog-held"), 0);
  ASSERT_OK(f->Append(a));
  EXPECT_EQ(Contents(path), Str(a) + Str(b) + Str(c) + Str(a));
  EXPECT_EQ(f->size(), 2 * a.size() + b.size() + c.size());
  ASSERT_OK(f->Close());
}

TEST(HeldFileTest, DiscardForgetsWhatIsHeldAndKeepsHolding) {
  const std::string path = TempPath("discard");
  auto f = Open(path);
  f->Hold();
  ASSERT_OK(f->Append(Bytes(5000, 4)));
  f->Discard();
  EXPECT_TRUE(f->holding());
  EXPECT_EQ(f->size(), 0u);
  const std::vector<uint8_t> kept = Bytes(17, 5);
  ASSERT_OK(f->Append(kept));
  ASSERT_OK(f->Release());
  EXPECT_EQ(Contents(path), Str(kept));
  ASSERT_OK(f->Close());
}

TEST(HeldFileTest, SyncAndCloseWriteWhatIsHeld) {
  const std::string path = TempPath("sync");
  auto f = Open(path);
  f->Hold();
  const std::vector<uint8_t> a = Bytes(4096, 6), b = Bytes(65'536 * 2, 7);
  ASSERT_OK(f->Append(a));
  ASSERT_OK(f->Sync());
  EXPECT_EQ(Contents(path), Str(a));
  EXPECT_FALSE(f->holding());
  f->Hold();
  ASSERT_OK(f->Append(b));
  ASSERT_OK(f->Close());
  EXPECT_EQ(Contents(path), Str(a) + Str(b));
  EXPECT_EQ(OpenFdsNamed("memfd:mmvlog-held"), 0);
}

TEST(HeldFileTest, ADestroyedHoldLeavesNoMemoryFileOpen) {
  {
    auto f = Open(TempPath("destroyed"));
    f->Hold();
    ASSERT_OK(f->Append(Bytes(10, 8)));
    EXPECT_EQ(OpenFdsNamed("memfd:mmvlog-held"), 1);
    ASSERT_OK(f->Close());
  }
  {
    auto f = Open(TempPath("destroyed2"));
    f->Hold();
    ASSERT_OK(f->Append(Bytes(10, 8)));
  }  // never released: the archive writer closes first in practice
  EXPECT_EQ(OpenFdsNamed("memfd:mmvlog-held"), 0);
}

}  // namespace
}  // namespace mmvlog::archiver

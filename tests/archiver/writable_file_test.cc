// WritableFile: appends land in order, the size is what was written, and a
// preallocating file reserves disk ahead of its appends without showing it
// to readers, then gives it back on Close.
#include "archiver/file/writable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <mutex>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "archiver/file/posix_file.h"
#include "absl/time/clock.h"
#include "archiver/file/write_behind.h"
#include "tests/archiver/recorder_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::NewTempDir;

// How ArchiveWriter opens volumes.
StreamOptions Volume() { return {.preallocate = true, .write_behind = &WriteBehind::Global()}; }

struct stat Stat(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st;
}

bool FallocateWorks(const std::string& dir) {
  const std::string probe = dir + "/probe";
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  const bool ok = fd >= 0 && ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1 << 20) == 0;
  if (fd >= 0) ::close(fd);
  ::unlink(probe.c_str());
  return ok;
}

TEST(WritableFileTest, PreallocatedVolumeShowsOnlyWhatWasWrittenAndGivesTheRestBack) {
  const std::string dir = NewTempDir("wf");
  if (!FallocateWorks(dir)) GTEST_SKIP() << "no fallocate on " << dir;
  const std::string path = dir + "/a.0";
  absl::StatusOr<std::unique_ptr<WritableFile>> f =
      OpenWritableFile(path, false, {.preallocate = true});
  ASSERT_OK(f);
  std::vector<uint8_t> want;
  for (int i = 0; i < 100; ++i) {
    std::vector<uint8_t> rec(10'000 + i, static_cast<uint8_t>(i));
    ASSERT_OK((*f)->Append(rec));
    want.insert(want.end(), rec.begin(), rec.end());
    const struct stat st = Stat(path);
    ASSERT_EQ(static_cast<size_t>(st.st_size), want.size()) << "after append " << i;
    // Disk reserved ahead: after the first append, room for the chunk too.
    const uint64_t disk = static_cast<uint64_t>(st.st_blocks) * 512;
    if (i == 0) EXPECT_GE(disk, want.size() + (1 << 20) - 4096);
    EXPECT_GE(disk, want.size() & ~uint64_t{4095}) << i;
  }
  ASSERT_OK((*f)->Close());
  const struct stat st = Stat(path);
  EXPECT_EQ(static_cast<size_t>(st.st_size), want.size());
  EXPECT_LT(static_cast<uint64_t>(st.st_blocks) * 512, want.size() + (64 << 10));
  absl::StatusOr<std::string> got = ReadWholeFile(path);
  ASSERT_OK(got);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), got->begin(), got->end()));
}

// Past the 8 MiB steps at which writeback is started behind the appends.
TEST(WritableFileTest, VolumeOfManyMegabytesReadsBackWhole) {
  const std::string dir = NewTempDir("wf");
  const std::string path = dir + "/a.0";
  absl::StatusOr<std::unique_ptr<WritableFile>> f = OpenWritableFile(path, false, Volume());
  ASSERT_OK(f);
  WriteBehind::Global().Drain();
  const WriteBehind::Stats before = WriteBehind::Global().stats();
  std::vector<uint8_t> rec(1 << 20);
  for (int i = 0; i < 24; ++i) {
    for (size_t k = 0; k < rec.size(); k += 4096) rec[k] = static_cast<uint8_t>(i * 7 + k / 4096);
    ASSERT_OK((*f)->Append(rec));
  }
  ASSERT_OK((*f)->Close());
  // Writeback was started for each 8 MiB, on the worker's own descriptors.
  WriteBehind::Global().Drain();
  const WriteBehind::Stats after = WriteBehind::Global().stats();
  EXPECT_EQ(after.ranges - before.ranges, 3u);
  EXPECT_EQ(after.bytes - before.bytes, 24u << 20);
  EXPECT_EQ(after.errors - before.errors, 0u);
  absl::StatusOr<std::string> got = ReadWholeFile(path);
  ASSERT_OK(got);
  ASSERT_EQ(got->size(), 24u << 20);
  for (int i = 0; i < 24; ++i) {
    for (size_t k = 0; k < rec.size(); k += 4096) {
      ASSERT_EQ(static_cast<uint8_t>((*got)[(size_t{1} << 20) * i + k]),
                static_cast<uint8_t>(i * 7 + k / 4096)) << i << " " << k;
    }
  }
}

TEST(WritableFileTest, WithoutWriteBehindNothingIsHandedOver) {
  const std::string dir = NewTempDir("wf");
  absl::StatusOr<std::unique_ptr<WritableFile>> f =
      OpenWritableFile(dir + "/a.0", false, {.preallocate = true});
  ASSERT_OK(f);
  WriteBehind::Global().Drain();
  const WriteBehind::Stats before = WriteBehind::Global().stats();
  const std::vector<uint8_t> rec(1 << 20, 'x');
  for (int i = 0; i < 20; ++i) ASSERT_OK((*f)->Append(rec));
  ASSERT_OK((*f)->Close());
  WriteBehind::Global().Drain();
  const WriteBehind::Stats after = WriteBehind::Global().stats();
  EXPECT_EQ(after.ranges + after.dropped, before.ranges + before.dropped);
}

struct Handed {
  off_t offset;
  off_t length;
  int access;
};

// A WriteBehind that records what it is handed, failing from `fail_at` on.
struct Recording {
  explicit Recording(off_t fail_at = -1)
      : behind([this, fail_at](int fd, off_t offset, off_t length) {
          std::lock_guard<std::mutex> lock(mu);
          handed.push_back({offset, length, ::fcntl(fd, F_GETFL) & O_ACCMODE});
          return fail_at >= 0 && offset >= fail_at ? EIO : 0;
        }) {}
  std::mutex mu;
  std::vector<Handed> handed;
  WriteBehind behind;
};

TEST(WritableFileTest, WriteBehindGetsWholePagesInOrderThenTheTailAtClose) {
  const std::string dir = NewTempDir("wf");
  Recording rec;
  absl::StatusOr<std::unique_ptr<WritableFile>> f = OpenWritableFile(
      dir + "/a.0", false, {.preallocate = true, .write_behind = &rec.behind});
  ASSERT_OK(f);
  const std::vector<uint8_t> odd(1'000'003, 'x');  // appends that end mid-page
  for (int i = 0; i < 30; ++i) ASSERT_OK((*f)->Append(odd));
  ASSERT_OK((*f)->Close());
  rec.behind.Drain();
  const off_t size = 30 * 1'000'003;
  ASSERT_GE(rec.handed.size(), 4u);
  off_t next = 0;
  for (size_t i = 0; i < rec.handed.size(); ++i) {
    const Handed& h = rec.handed[i];
    EXPECT_EQ(h.offset, next) << "range " << i << " is not contiguous";
    EXPECT_EQ(h.access, O_RDONLY) << "range " << i << ": not the worker's own description";
    if (i + 1 < rec.handed.size()) {
      EXPECT_EQ(h.offset % 4096, 0) << i;
      EXPECT_EQ(h.length % 4096, 0) << i;
      EXPECT_GE(h.length, 8 << 20) << i;
    }
    next = h.offset + h.length;
  }
  EXPECT_EQ(next, size) << "the tail was not handed over at Close";
}

// With a minimum rate, only steps written at least that fast are handed
// over: a slow file's are left to the kernel (and its tail at Close), a fast
// one's as before. The rates asked for lie far from any machine's (1 byte a
// second, 1 PB a second), so the rule is what is tested, not this machine's
// speed or load (bench/README.md has the rates that matter).
TEST(WritableFileTest, WriteBehindOnlyForFilesWrittenFastEnough) {
  const std::string dir = NewTempDir("wf");
  const std::vector<uint8_t> mib(1 << 20, 'x');
  for (bool fast : {false, true}) {
    Recording rec;
    absl::StatusOr<std::unique_ptr<WritableFile>> f = OpenWritableFile(
        dir + (fast ? "/fast.0" : "/slow.0"), false,
        {.write_behind = &rec.behind,
         .write_behind_min_rate = fast ? uint64_t{1} : uint64_t{1} << 50});
    ASSERT_OK(f);
    // 8 MiB steps: no machine writes one in the 8 ns the slow file's rate
    // asks for; every machine in the 8 million seconds the fast one's does.
    for (int i = 0; i < 20; ++i) ASSERT_OK((*f)->Append(mib));
    ASSERT_OK((*f)->Close());
    rec.behind.Drain();
    if (fast) {
      ASSERT_EQ(rec.handed.size(), 3u);  // two steps and the tail
      EXPECT_EQ(rec.handed[2].offset + rec.handed[2].length, 20 << 20);
    } else {
      EXPECT_EQ(rec.handed.size(), 0u);
    }
    absl::StatusOr<std::string> got = ReadWholeFile(dir + (fast ? "/fast.0" : "/slow.0"));
    ASSERT_OK(got);
    EXPECT_EQ(got->size(), 20u << 20);
  }
}

TEST(WritableFileTest, AFailedWriteBackBecomesTheFilesStickyError) {
  const std::string dir = NewTempDir("wf");
  Recording rec(/*fail_at=*/0);
  const std::string path = dir + "/a.0";
  absl::StatusOr<std::unique_ptr<WritableFile>> f =
      OpenWritableFile(path, false, {.write_behind = &rec.behind});
  ASSERT_OK(f);
  const std::vector<uint8_t> mib(1 << 20, 'x');
  for (int i = 0; i < 8; ++i) ASSERT_OK((*f)->Append(mib));  // the 8th hands over 8 MiB
  rec.behind.Drain();
  const absl::Status s = (*f)->Append(mib);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("write back " + path));
  EXPECT_EQ((*f)->Append(mib), s);  // sticky
  EXPECT_EQ((*f)->size(), 8u << 20);  // nothing written after the error
}

TEST(WritableFileTest, AppendingReopenedFileContinuesAtItsEnd) {
  const std::string dir = NewTempDir("wf");
  const std::string path = dir + "/a.0";
  for (int round = 0; round < 3; ++round) {
    absl::StatusOr<std::unique_ptr<WritableFile>> f = OpenWritableFile(path, round > 0, Volume());
    ASSERT_OK(f);
    EXPECT_EQ((*f)->size(), round * 3u);
    const std::vector<uint8_t> rec(3, static_cast<uint8_t>('a' + round));
    ASSERT_OK((*f)->Append(rec));
    ASSERT_OK((*f)->Close());
  }
  absl::StatusOr<std::string> got = ReadWholeFile(path);
  ASSERT_OK(got);
  EXPECT_EQ(*got, "aaabbbccc");
}

TEST(WritableFileTest, CreateRefusesAnExistingFile) {
  const std::string dir = NewTempDir("wf");
  ASSERT_OK(OpenWritableFile(dir + "/a.0"));
  EXPECT_FALSE(OpenWritableFile(dir + "/a.0").ok());
}

}  // namespace
}  // namespace mmvlog::archiver

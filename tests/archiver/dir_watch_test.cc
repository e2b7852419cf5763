// DirWatch: a file created in the directory wakes the wait (also one created
// before the wait began); otherwise the deadline ends it.
#include "archiver/mmv/dir_watch.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace mmvlog::archiver {
namespace {

std::string NewDir() {
  std::string t = std::string(std::getenv("TEST_TMPDIR")) + "/watchXXXXXX";
  return ::mkdtemp(t.data());
}

void Touch(const std::string& path) {
  const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ::close(fd);
}

TEST(DirWatch, WakesOnANewFileAndOtherwiseAtTheDeadline) {
  const std::string dir = NewDir();
  absl::StatusOr<DirWatch> w = DirWatch::Open(dir);
  ASSERT_TRUE(w.ok()) << w.status();
  absl::Time start = absl::Now();
  EXPECT_EQ(w->Wait(start + absl::Milliseconds(100)), DirWatch::Woken::kDeadline);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(90));

  Touch(dir + "/app");  // before the wait: it still counts
  // kChanged, not kDeadline: woken by the change (how soon is no test's).
  EXPECT_EQ(w->Wait(absl::Now() + absl::Seconds(10)), DirWatch::Woken::kChanged);
  // Drained: nothing new, so the deadline again.
  EXPECT_EQ(w->Wait(absl::Now() + absl::Milliseconds(50)), DirWatch::Woken::kDeadline);
  // A file moved in (as writers that create under a temporary name do).
  Touch(dir + "/.tmp");
  ASSERT_EQ(w->Wait(absl::Now() + absl::Seconds(1)), DirWatch::Woken::kChanged);
  ASSERT_EQ(::rename((dir + "/.tmp").c_str(), (dir + "/app2").c_str()), 0);
  EXPECT_EQ(w->Wait(absl::Now() + absl::Seconds(10)), DirWatch::Woken::kChanged);
}

// TakeChanged: whether the entries may have changed since it was last
// asked, from what Wait drained or, with no Wait in between, from the queue.
TEST(DirWatch, TakeChangedSaysWhetherTheEntriesMayHaveChanged) {
  const std::string dir = NewDir();
  Touch(dir + "/app");
  absl::StatusOr<DirWatch> w = DirWatch::Open(dir);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->TakeChanged());  // the first time: unknown
  EXPECT_FALSE(w->TakeChanged());
  // No Wait in between: the queue is read.
  Touch(dir + "/other");
  EXPECT_TRUE(w->TakeChanged());
  EXPECT_FALSE(w->TakeChanged());
  // Waited to the deadline, nothing happened.
  EXPECT_EQ(w->Wait(absl::Now() + absl::Milliseconds(20)), DirWatch::Woken::kDeadline);
  EXPECT_FALSE(w->TakeChanged());
  // A change drained by Wait is reported once.
  ASSERT_EQ(::unlink((dir + "/other").c_str()), 0);
  EXPECT_EQ(w->Wait(absl::Now() + absl::Seconds(10)), DirWatch::Woken::kChanged);
  EXPECT_TRUE(w->TakeChanged());
  EXPECT_FALSE(w->TakeChanged());
  // Renamed away, renamed over (a writer replacing its file).
  Touch(dir + "/.new");
  EXPECT_TRUE(w->TakeChanged());
  ASSERT_EQ(::rename((dir + "/.new").c_str(), (dir + "/app").c_str()), 0);
  EXPECT_TRUE(w->TakeChanged());
  ASSERT_EQ(::rename((dir + "/app").c_str(), (dir + "/.old").c_str()), 0);
  EXPECT_TRUE(w->TakeChanged());
  // Writing to a file is not a change of the entries.
  const int fd = ::open((dir + "/.old").c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "x", 1), 1);
  ::close(fd);
  EXPECT_FALSE(w->TakeChanged());
}

TEST(DirWatch, ALostWatchAlwaysSaysChanged) {
  const std::string dir = NewDir();
  absl::StatusOr<DirWatch> w = DirWatch::Open(dir);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->TakeChanged());
  ASSERT_EQ(::rename(dir.c_str(), (dir + ".moved").c_str()), 0);
  EXPECT_TRUE(w->TakeChanged());
  // A directory made again under the old name is not watched: every later
  // call says changed, so callers look for themselves.
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(w->TakeChanged());
}

// Whatever the events, a look once a second: the path may have come to name
// another directory, which the watch never hears of.
TEST(DirWatch, TakeChangedSaysChangedOnceASecondWithoutEvents) {
  const std::string dir = NewDir();
  absl::StatusOr<DirWatch> w = DirWatch::Open(dir);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->TakeChanged());
  EXPECT_FALSE(w->TakeChanged());
  absl::SleepFor(absl::Milliseconds(1050));
  EXPECT_TRUE(w->TakeChanged());
  EXPECT_FALSE(w->TakeChanged());
}

// Quiet: a file no event named since the round before the last TakeChanged
// kept its entry and its size. Writes and truncations are events (read by
// Poll, or by the next TakeChanged's round); stores through a mapping, how
// MMV values change, are not.
TEST(DirWatch, QuietUntilAFileIsWrittenCutShortOrReplaced) {
  const std::string dir = NewDir();
  const std::string a = dir + "/a", b = dir + "/b";
  Touch(a);
  Touch(b);
  ASSERT_EQ(::truncate(a.c_str(), 8192), 0);
  absl::StatusOr<DirWatch> w = DirWatch::Open(dir);
  ASSERT_TRUE(w.ok()) << w.status();
  // Before the first round nothing is known.
  EXPECT_FALSE(w->Quiet("a"));
  EXPECT_FALSE(w->AllQuiet());
  w->TakeChanged();
  EXPECT_TRUE(w->Quiet("a"));
  EXPECT_TRUE(w->Quiet("b"));
  EXPECT_TRUE(w->AllQuiet());

  // Stores through a shared mapping: no event.
  const int fd = ::open(a.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  void* map = ::mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  static_cast<char*>(map)[100] = 'x';
  w->Poll();
  EXPECT_TRUE(w->Quiet("a"));
  EXPECT_TRUE(w->AllQuiet());

  // Cut short while mapped: seen by the next Poll, for that name only.
  ASSERT_EQ(::ftruncate(fd, 4096), 0);
  EXPECT_TRUE(w->Quiet("a"));  // not read yet
  w->Poll();
  EXPECT_FALSE(w->Quiet("a"));
  EXPECT_TRUE(w->Quiet("b"));
  EXPECT_FALSE(w->AllQuiet());
  // Still not quiet in the next round (the scan after the event looks);
  // quiet again in the one after.
  w->TakeChanged();
  EXPECT_FALSE(w->Quiet("a"));
  w->TakeChanged();
  EXPECT_TRUE(w->Quiet("a"));
  EXPECT_TRUE(w->AllQuiet());
  ::munmap(map, 8192);
  ::close(fd);

  // Written with write(2): an event, read by the Poll after a tick's reads
  // (TakeChanged reads only the entries' queue), and so not quiet in the
  // next round either.
  const int wfd = ::open(b.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(wfd, 0);
  ASSERT_EQ(::write(wfd, "y", 1), 1);
  ::close(wfd);
  w->Poll();
  EXPECT_FALSE(w->Quiet("b"));
  EXPECT_FALSE(w->TakeChanged());  // the entries did not change
  EXPECT_FALSE(w->Quiet("b"));
  EXPECT_TRUE(w->Quiet("a"));

  // Replaced by rename: the entry's event names it.
  w->TakeChanged();
  EXPECT_TRUE(w->Quiet("a"));
  Touch(dir + "/.a.new");
  ASSERT_EQ(::rename((dir + "/.a.new").c_str(), a.c_str()), 0);
  EXPECT_TRUE(w->TakeChanged());
  EXPECT_FALSE(w->Quiet("a"));
  // Removed and created again.
  w->TakeChanged();
  ASSERT_EQ(::unlink(b.c_str()), 0);
  Touch(b);
  EXPECT_TRUE(w->TakeChanged());
  EXPECT_FALSE(w->Quiet("b"));
}

TEST(DirWatch, ALostWatchIsNeverQuiet) {
  const std::string dir = NewDir();
  Touch(dir + "/a");
  absl::StatusOr<DirWatch> w = DirWatch::Open(dir);
  ASSERT_TRUE(w.ok()) << w.status();
  w->TakeChanged();
  w->TakeChanged();
  EXPECT_TRUE(w->Quiet("a"));
  w->Lose();  // the path came to name another directory
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(w->Quiet("a"));
    EXPECT_FALSE(w->AllQuiet());
    EXPECT_TRUE(w->TakeChanged());
  }
}

TEST(DirWatch, AMissingDirectoryIsAnError) {
  EXPECT_FALSE(DirWatch::Open(NewDir() + "/none").ok());
}

}  // namespace
}  // namespace mmvlog::archiver

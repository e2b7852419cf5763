// DirWatch: a file created in the directory wakes the wait (also one created
// before the wait began); otherwise the deadline ends it.
#include "archiver/mmv/dir_watch.h"

#include <fcntl.h>
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

TEST(DirWatch, AMissingDirectoryIsAnError) {
  EXPECT_FALSE(DirWatch::Open(NewDir() + "/none").ok());
}

}  // namespace
}  // namespace mmvlog::archiver

// DirWatch: a file created in the directory wakes the wait (also one created
// before the wait began); otherwise the deadline ends it.
#include "archiver/dir_watch.h"

#include <fcntl.h>
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
  start = absl::Now();
  EXPECT_EQ(w->Wait(start + absl::Seconds(10)), DirWatch::Woken::kChanged);
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  // Drained: nothing new, so the deadline again.
  EXPECT_EQ(w->Wait(absl::Now() + absl::Milliseconds(50)), DirWatch::Woken::kDeadline);
  // A file moved in (as writers that create under a temporary name do).
  Touch(dir + "/.tmp");
  ASSERT_EQ(w->Wait(absl::Now() + absl::Seconds(1)), DirWatch::Woken::kChanged);
  ASSERT_EQ(::rename((dir + "/.tmp").c_str(), (dir + "/app2").c_str()), 0);
  EXPECT_EQ(w->Wait(absl::Now() + absl::Seconds(10)), DirWatch::Woken::kChanged);
}

TEST(DirWatch, AMissingDirectoryIsAnError) {
  EXPECT_FALSE(DirWatch::Open(NewDir() + "/none").ok());
}

}  // namespace
}  // namespace mmvlog::archiver

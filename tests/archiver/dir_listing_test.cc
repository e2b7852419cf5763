// DirListing: what it lists, that a quiet directory is not read again, and
// that no change is missed (including one in the same second as the read).
#include "archiver/dir_listing.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/archiver/recorder_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::NewTempDir;
using ::mmvlog::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Key;
using ::testing::Pair;

void Touch(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << path;
  ::close(fd);
}

// Moves the directory's mtime `seconds` into the past (its ctime becomes now).
void AgeDir(const std::string& dir, int seconds) {
  struct timespec times[2];
  ::clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= seconds;
  times[1] = times[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, dir.c_str(), times, 0), 0);
}

TEST(DirListingTest, ListsRegularFilesNotDotFilesOrDirectories) {
  const std::string dir = NewTempDir("mmv");
  Touch(dir + "/app");
  Touch(dir + "/.hidden");
  ASSERT_EQ(::mkdir((dir + "/sub").c_str(), 0755), 0);
  DirListing l(dir);
  ASSERT_OK(l.Refresh());
  EXPECT_THAT(l.files(), ElementsAre(Pair("app", dir + "/app")));
}

TEST(DirListingTest, ChangesInTheSameSecondAsTheReadAreSeen) {
  const std::string dir = NewTempDir("mmv");
  DirListing l(dir);
  ASSERT_OK(l.Refresh());
  EXPECT_THAT(l.files(), IsEmpty());
  for (int i = 0; i < 20; ++i) {
    Touch(dir + "/f" + std::to_string(i));
    ASSERT_OK(l.Refresh());
    EXPECT_EQ(l.files().size(), static_cast<size_t>(i + 1)) << "after creating f" << i;
  }
  ASSERT_EQ(::unlink((dir + "/f3").c_str()), 0);
  ASSERT_OK(l.Refresh());
  EXPECT_FALSE(l.files().contains("f3"));
  EXPECT_EQ(l.reads(), 22u);  // a recent change: read every time
}

TEST(DirListingTest, QuietDirectoryIsReadOnceUntilItChanges) {
  const std::string dir = NewTempDir("mmv");
  Touch(dir + "/app");
  AgeDir(dir, 10);
  DirListing l(dir);
  for (int i = 0; i < 5; ++i) ASSERT_OK(l.Refresh());
  EXPECT_EQ(l.reads(), 1u);
  EXPECT_THAT(l.files(), ElementsAre(Key("app")));
  // Every kind of entry change is seen at once.
  Touch(dir + "/new");
  ASSERT_OK(l.Refresh());
  EXPECT_THAT(l.files(), ElementsAre(Key("app"), Key("new")));
  AgeDir(dir, 10);
  ASSERT_OK(l.Refresh());
  ASSERT_EQ(::rename((dir + "/new").c_str(), (dir + "/renamed").c_str()), 0);
  ASSERT_OK(l.Refresh());
  EXPECT_THAT(l.files(), ElementsAre(Key("app"), Key("renamed")));
  AgeDir(dir, 10);
  ASSERT_OK(l.Refresh());
  ASSERT_EQ(::unlink((dir + "/app").c_str()), 0);
  ASSERT_OK(l.Refresh());
  EXPECT_THAT(l.files(), ElementsAre(Key("renamed")));
  EXPECT_EQ(l.reads(), 6u);
}

TEST(DirListingTest, MissingDirectoryIsAnErrorNamingItThenRecovers) {
  const std::string dir = NewTempDir("mmv") + "/later";
  DirListing l(dir);
  EXPECT_THAT(l.Refresh(), StatusIs(absl::StatusCode::kNotFound, HasSubstr(dir)));
  EXPECT_THAT(l.files(), IsEmpty());
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  Touch(dir + "/app");
  ASSERT_OK(l.Refresh());
  EXPECT_THAT(l.files(), ElementsAre(Key("app")));
}

}  // namespace
}  // namespace mmvlog::archiver

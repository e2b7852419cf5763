// DirListing: what it lists, that a quiet directory is not read again, and
// that no change is missed (including one in the same second as the read).
#include "archiver/mmv/dir_listing.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <memory>
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

// Symbolic links (to a regular file elsewhere, to a secret, to a device),
// FIFOs, sockets and directories are never listed as files, whatever they
// point at; each is listed apart with what it is.
TEST(DirListingTest, OnlyRegularFilesAreListedTheRestIsNamedAsSkipped) {
  const std::string dir = NewTempDir("mmv");
  const std::string elsewhere = NewTempDir("elsewhere");
  Touch(dir + "/app");
  Touch(elsewhere + "/valid");
  ASSERT_EQ(::symlink((elsewhere + "/valid").c_str(), (dir + "/tovalid").c_str()), 0);
  ASSERT_EQ(::symlink("/etc/shadow", (dir + "/secret").c_str()), 0);
  ASSERT_EQ(::symlink("/dev/zero", (dir + "/zero").c_str()), 0);
  ASSERT_EQ(::symlink("/nonexistent", (dir + "/dangling").c_str()), 0);
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0644), 0);
  ASSERT_EQ(::mkdir((dir + "/sub").c_str(), 0755), 0);
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  struct sockaddr_un addr {};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, "sock");  // relative: the test's path is too long for sun_path
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(::chdir(dir.c_str()), 0);
  const int bound = ::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ASSERT_EQ(::chdir(cwd), 0);
  ASSERT_EQ(bound, 0);
  DirListing l(dir);
  ASSERT_OK(l.Refresh());
  ::close(sock);
  EXPECT_THAT(l.files(), ElementsAre(Pair("app", dir + "/app")));
  EXPECT_THAT(l.skipped(), ElementsAre(Pair("dangling", "symbolic link"), Pair("fifo", "FIFO"),
                                       Pair("secret", "symbolic link"), Pair("sock", "socket"),
                                       Pair("sub", "directory"), Pair("tovalid", "symbolic link"),
                                       Pair("zero", "symbolic link")));
  ASSERT_NE(l.dir_fd(), nullptr);
  // A directory replaced by another of the same name is opened again.
  const std::shared_ptr<const FileDescriptor> first = l.dir_fd();
  ASSERT_EQ(::rename(dir.c_str(), (dir + ".old").c_str()), 0);
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  Touch(dir + "/other");
  ASSERT_OK(l.Refresh());
  EXPECT_THAT(l.files(), ElementsAre(Pair("other", dir + "/other")));
  EXPECT_THAT(l.skipped(), IsEmpty());
  EXPECT_NE(l.dir_fd(), first);
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

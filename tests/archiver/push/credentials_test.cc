// Tests of //archiver/push:credentials: the Basic header (RFC 7617's own
// example), files read, and files refused.
#include "archiver/push/credentials.h"

#include <sys/stat.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

std::string Write(const std::string& name, const std::string& text, mode_t mode) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
  return path;
}

TEST(Credentials, BasicAuthorizationAsRfc7617) {
  EXPECT_EQ(BasicAuthorization("Aladdin:open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
}

TEST(Credentials, FileSkipsCommentsAndBlankLines) {
  const std::string path = Write("ok", "# for pmproxy\n\n  mmvlog:pa:ss  \n", 0600);
  EXPECT_THAT(ReadCredentialsFile(path), ::mmvlog::testing::IsOkAndHolds("mmvlog:pa:ss"));
}

// Tests of the error paths follow.

TEST(Credentials, FileOthersMayReadIsRefused) {
  const std::string path = Write("open", "u:p\n", 0640);
  EXPECT_THAT(ReadCredentialsFile(path),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr(path + ": credentials readable by others (mode 0640)")));
}

TEST(Credentials, FileWithoutUserPasswordIsInvalidArgument) {
  EXPECT_THAT(ReadCredentialsFile(Write("none", "# nothing\n", 0600)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no USER:PASSWORD")));
  EXPECT_THAT(ReadCredentialsFile(Write("bad", "\njustauser\n", 0600)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 2")));
  EXPECT_THAT(ReadCredentialsFile(Write("nouser", ":pw\n", 0600)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 1")));
  EXPECT_THAT(ReadCredentialsFile("/nonexistent/creds"),
              StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace mmvlog::archiver

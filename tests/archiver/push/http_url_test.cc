// Tests of //archiver/push:http_url as tables: the parts of http:// and
// https:// URLs as a redirect's Location gives them, percent-decoding, and
// passwords kept out of messages.
#include "archiver/push/http_url.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

TEST(HttpUrl, Parts) {
  struct Case {
    const char* url;
    bool tls;
    const char* userinfo;
    const char* host;
    int port;
    const char* target;
  } cases[] = {
      {"http://h", false, "", "h", 0, ""},
      {"https://h:8443/logger/meta/9", true, "", "h", 8443, "/logger/meta/9"},
      {"https://[2001:db8::1]:1/a?b=c#frag", true, "", "2001:db8::1", 1, "/a?b=c"},
      {"http://h?client=x", false, "", "h", 0, "/?client=x"},
      {"http://u:p@10.0.0.1:44322/", false, "u:p", "10.0.0.1", 44322, "/"},
      {"HtTpS://H", true, "", "H", 0, ""},
  };
  for (const Case& c : cases) {
    absl::StatusOr<HttpUrl> u = ParseHttpUrl(c.url);
    ASSERT_OK(u.status());
    EXPECT_EQ(u->tls, c.tls) << c.url;
    EXPECT_EQ(u->userinfo, c.userinfo) << c.url;
    EXPECT_EQ(u->host, c.host) << c.url;
    EXPECT_EQ(u->port, c.port) << c.url;
    EXPECT_EQ(u->target, c.target) << c.url;
  }
}

TEST(HttpUrl, PercentDecode) {
  EXPECT_EQ(*PercentDecode("a%20b%2f%2F%40"), "a b//@");
  EXPECT_EQ(*PercentDecode("plain"), "plain");
  EXPECT_EQ(*PercentDecode(""), "");
  EXPECT_EQ(*PercentDecode("%00"), std::string(1, '\0'));
}

TEST(HttpUrl, Redacted) {
  EXPECT_EQ(RedactUserinfo("https://me:pw@host:1/x"), "https://***@host:1/x");
  EXPECT_EQ(RedactUserinfo("https://host:1/x"), "https://host:1/x");
  EXPECT_EQ(RedactUserinfo("no scheme@host"), "no scheme@host");
}

// Tests of the error paths follow.

TEST(HttpUrl, Refused) {
  for (const char* url : {"ftp://h", "http://", "https://:1", "http://h:0", "http://[::1"}) {
    EXPECT_THAT(ParseHttpUrl(url), StatusIs(absl::StatusCode::kInvalidArgument)) << url;
  }
  for (const char* bad : {"%", "%4", "%zz", "a%g0"}) {
    EXPECT_THAT(PercentDecode(bad),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("two hex digits")))
        << bad;
  }
}

}  // namespace
}  // namespace mmvlog::archiver

// Tests of //archiver/push:push_url as a table: pmlogger 7's http://HOST
// [:PORT], https://, user information as people write it (percent-encoded
// or not), and what is refused, never showing a password.
#include "archiver/push/push_url.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

TEST(PushUrl, Accepted) {
  struct Case {
    const char* url;
    const char* host;
    int port;
    const char* userinfo;
    bool tls = false;
  } cases[] = {
      {"http://pmproxy", "pmproxy", 44322, ""},
      {"http://127.0.0.1:44592", "127.0.0.1", 44592, ""},
      {"http://pmproxy.example.com:8080/", "pmproxy.example.com", 8080, ""},
      {"http://[::1]:44322", "::1", 44322, ""},
      {"http://[fe80::1]", "fe80::1", 44322, ""},
      {"http://me:s3cr:et@host:1", "host", 1, "me:s3cr:et"},
      {"https://pmproxy", "pmproxy", 44322, "", true},
      {"HTTPS://127.0.0.1:44323/", "127.0.0.1", 44323, "", true},
      {"https://[::1]:8443", "::1", 8443, "", true},
      // Percent-encoded user information is decoded (RFC 3986).
      {"https://me:p%40ss%2Fw%3Frd%23@host", "host", 44322, "me:p@ss/w?rd#", true},
      {"http://us%65r:pw@host", "host", 44322, "user:pw"},
      // ... and a password pasted as it is: its '/', '?', '#' and '@' too.
      {"https://me:pa/ss?wo#rd@host:1", "host", 1, "me:pa/ss?wo#rd", true},
      {"https://me:a@b@host:2/", "host", 2, "me:a@b", true},
  };
  for (const Case& c : cases) {
    absl::StatusOr<PushUrl> u = ParsePushUrl(c.url);
    ASSERT_OK(u.status());
    EXPECT_EQ(u->endpoint.host, c.host) << c.url;
    EXPECT_EQ(u->endpoint.port, c.port) << c.url;
    EXPECT_EQ(u->userinfo, c.userinfo) << c.url;
    EXPECT_EQ(u->endpoint.tls, c.tls) << c.url;
    EXPECT_TRUE(IsPushUrl(c.url));
  }
  EXPECT_FALSE(IsPushUrl("/var/log/pcp/mmvlog/archive"));
  EXPECT_FALSE(IsPushUrl("http:"));  // the directory the old mmvlog made
}

TEST(PushUrl, EndpointText) {
  HttpEndpoint e;
  e.host = "::1";
  EXPECT_EQ(e.ToString(), "http://[::1]:44322");
  e.tls = true;
  EXPECT_EQ(e.ToString(), "https://[::1]:44322");
  e.unix_socket = "/run/pcp/pmproxy.socket";
  EXPECT_EQ(e.ToString(), "unix:/run/pcp/pmproxy.socket");
}

// Tests of the error paths follow.

TEST(PushUrl, RefusedWithWhy) {
  struct Case {
    const char* url;
    const char* why;
  } cases[] = {
      {"ftp://host", "not http://"},          {"http://", "no host"},
      {"http://:80", "no host"},              {"http://host:0", "port"},
      {"http://host:65536", "port"},          {"http://host:80x", "port"},
      {"http://host/logger", "path"},         {"http://host?x=1", "query"},
      {"http://[::1", "no ']'"},              {"http://[::1]x", "junk"},
      {"http://user@host", "USER without"},   {"https://me:50%@host", "two hex digits"},
      {"https://me:pw@host/logger", "path"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(ParsePushUrl(c.url),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.why)))
        << c.url;
  }
}

TEST(PushUrl, ErrorsNeverShowThePassword) {
  for (const char* url : {"https://me:hunter2@host:0", "http://me:hunter2@host/x",
                          "https://me:hunter2%zz@host", "http://me:hunter2@[::1"}) {
    absl::StatusOr<PushUrl> u = ParsePushUrl(url);
    ASSERT_FALSE(u.ok()) << url;
    EXPECT_THAT(std::string(u.status().message()), ::testing::Not(HasSubstr("hunter2"))) << url;
    EXPECT_THAT(std::string(u.status().message()), HasSubstr("***@")) << url;
  }
}

}  // namespace
}  // namespace mmvlog::archiver

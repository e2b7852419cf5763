// Tests of //archiver/push:http_client against a small scripted server on a
// thread of the test (TCP and a Unix socket): one connection kept for many
// requests, a connection the server closed while idle, no answer, no
// server at all, a server too slow; whether each failed request may have
// been delivered; redirects followed as PCP's client follows them. (TLS:
// tests/cmd:push_tls_test, against pmproxy 7.2 and a Python TLS server.)
#include "archiver/push/http_client.h"

#include <sys/un.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/archiver/push/scripted_server.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::archiver::testing::kClose;
using ::mmvlog::archiver::testing::kHang;
using ::mmvlog::archiver::testing::Ok;
using ::mmvlog::archiver::testing::ScriptedServer;
using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

HttpEndpoint Local(int port) {
  HttpEndpoint e;
  e.host = "127.0.0.1";
  e.port = port;
  return e;
}

std::span<const uint8_t> Body(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(HttpClient, OneConnectionForManyRequests) {
  ScriptedServer server({{Ok("{\"a\":1}"), Ok("{\"a\":2}"), Ok("{\"a\":3}")}});
  HttpClientOptions o;
  o.authorization = "Basic dTpw";
  HttpClient c(Local(server.port()), o);
  for (int i = 1; i <= 3; ++i) {
    bool delivered = false;
    const std::string body(1000 * i, 'x');
    absl::StatusOr<HttpResponse> r =
        c.Exchange("POST", "/logger/meta/7", "application/octet-stream", Body(body), &delivered);
    ASSERT_OK(r.status());
    EXPECT_TRUE(delivered);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, absl::StrCat("{\"a\":", i, "}"));
  }
  EXPECT_EQ(c.connections(), 1u);
  const std::vector<std::string> seen = server.requests();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_THAT(seen[2], HasSubstr("POST /logger/meta/7 HTTP/1.1\r\nHost: 127.0.0.1:"));
  EXPECT_THAT(seen[2], HasSubstr("Authorization: Basic dTpw\r\n"));
  EXPECT_THAT(seen[2], HasSubstr("Content-Length: 3000\r\n\r\n" + std::string(3000, 'x')));
}

TEST(HttpClient, AConnectionTheServerClosedIsReplaced) {
  // The first connection serves one request and is closed by the server.
  ScriptedServer server({{Ok("{}")}, {Ok("{}")}});
  HttpClient c(Local(server.port()), HttpClientOptions());
  bool delivered = false;
  ASSERT_OK(c.Exchange("GET", "/logger/ping", "", {}, &delivered).status());
  ::usleep(100'000);
  absl::StatusOr<HttpResponse> r = c.Exchange("GET", "/logger/ping", "", {}, &delivered);
  ASSERT_OK(r.status());
  EXPECT_TRUE(delivered);
  EXPECT_EQ(c.connections(), 2u);
}

TEST(HttpClient, UnixSocketAndChunkedAnswer) {
  // A socket path must fit 108 bytes: not under $TEST_TMPDIR.
  char dir[] = "/tmp/http_client_test.XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/s";
  ScriptedServer server(
      {{"HTTP/1.1 200 OK\r\nTransfer-encoding: chunked\r\n\r\n4\r\n{\"ok\r\n2\r\n\"}\r\n0\r\n\r\n"}},
      path);
  HttpEndpoint e;
  e.unix_socket = path;
  HttpClient c(e, HttpClientOptions());
  bool delivered = false;
  absl::StatusOr<HttpResponse> r = c.Exchange("GET", "/logger/ping", "", {}, &delivered);
  ASSERT_OK(r.status());
  EXPECT_EQ(r->body, "{\"ok\"}");
  EXPECT_THAT(server.requests()[0], HasSubstr("Host: localhost\r\n"));
  ::unlink(path.c_str());
  ::rmdir(dir);
}

std::string Redirect(int code, const std::string& location) {
  return absl::StrCat("HTTP/1.1 ", code, " Moved\r\nLocation: ", location,
                      "\r\nContent-Length: 0\r\n\r\n");
}

TEST(HttpClient, FollowsARedirectOnTheSameServer) {
  ScriptedServer server({{Redirect(307, "/logger/label?client=b"), Ok("{\"success\":true}")}});
  HttpClient c(Local(server.port()), HttpClientOptions());
  bool delivered = false;
  absl::StatusOr<HttpResponse> r = c.Exchange("POST", "/logger/label", "application/octet-stream",
                                              Body("LABEL"), &delivered);
  ASSERT_OK(r.status());
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(delivered);
  EXPECT_EQ(c.redirects(), 1u);
  EXPECT_EQ(c.connections(), 1u);
  const std::vector<std::string> seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_THAT(seen[1], ::testing::StartsWith("POST /logger/label?client=b HTTP/1.1\r\n"));
  EXPECT_THAT(seen[1], ::testing::EndsWith("\r\n\r\nLABEL"));
}

TEST(HttpClient, FollowsARedirectToAnotherServerWithTheSameRequest) {
  ScriptedServer b({{Ok("{\"n\":1}"), Ok("{\"n\":2}")}});
  const std::string there = absl::StrCat("http://127.0.0.1:", b.port());
  ScriptedServer a({{Redirect(308, there + "/logger/meta/9"), Redirect(301, there + "/x")}});
  HttpClientOptions o;
  o.authorization = "Basic dTpw";
  HttpClient c(Local(a.port()), o);
  for (const char* want : {"{\"n\":1}", "{\"n\":2}"}) {
    bool delivered = false;
    absl::StatusOr<HttpResponse> r =
        c.Exchange("POST", "/logger/meta/1", "application/octet-stream", Body("META"), &delivered);
    ASSERT_OK(r.status());
    EXPECT_EQ(r->body, want);
  }
  const std::vector<std::string> seen = b.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_THAT(seen[0], ::testing::StartsWith("POST /logger/meta/9 HTTP/1.1\r\n"));
  EXPECT_THAT(seen[1], ::testing::StartsWith("POST /x HTTP/1.1\r\n"));
  for (const std::string& req : seen) {
    EXPECT_THAT(req, HasSubstr(absl::StrCat("Host: 127.0.0.1:", b.port(), "\r\n")));
    EXPECT_THAT(req, HasSubstr("Authorization: Basic dTpw\r\n"));
    EXPECT_THAT(req, ::testing::EndsWith("\r\n\r\nMETA"));
  }
  EXPECT_EQ(c.redirects(), 2u);
}

// Tests of the error paths follow: each says whether the request may have
// reached the server.

TEST(HttpClient, NoServerIsUnavailableAndNotDelivered) {
  int port;
  {
    ScriptedServer gone({});
    port = gone.port();
  }
  HttpClient c(Local(port), HttpClientOptions());
  bool delivered = true;
  EXPECT_THAT(c.Exchange("POST", "/logger/label", "x", Body("abc"), &delivered),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr(absl::StrCat("POST /logger/label: connect to http://127.0.0.1:",
                                              port, ": Connection refused"))));
  EXPECT_FALSE(delivered);
}

TEST(HttpClient, ClosedWithoutAnswerIsUnavailableAndMaybeDelivered) {
  ScriptedServer server({{kClose}});
  HttpClient c(Local(server.port()), HttpClientOptions());
  bool delivered = false;
  EXPECT_THAT(c.Exchange("POST", "/logger/meta/1", "x", Body("abc"), &delivered),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("closed after 0 bytes")));
  EXPECT_TRUE(delivered);
  EXPECT_FALSE(c.connected());
}

TEST(HttpClient, NoAnswerInTimeIsDeadlineExceededAndMaybeDelivered) {
  ScriptedServer server({{kHang}});
  HttpClientOptions o;
  o.timeout = absl::Milliseconds(300);
  HttpClient c(Local(server.port()), o);
  bool delivered = false;
  EXPECT_THAT(c.Exchange("POST", "/logger/meta/1", "x", Body("abc"), &delivered),
              StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("no response within")));
  EXPECT_TRUE(delivered);
}

TEST(HttpClient, GarbageIsDataLoss) {
  ScriptedServer server({{"SSH-2.0-OpenSSH\r\n\r\n"}});
  HttpClient c(Local(server.port()), HttpClientOptions());
  bool delivered = false;
  EXPECT_THAT(c.Exchange("GET", "/logger/ping", "", {}, &delivered),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not an HTTP/1.x status line")));
}

TEST(HttpClient, StopsAfterThreeRedirects) {
  ScriptedServer server(
      {{Redirect(302, "/1"), Redirect(302, "/2"), Redirect(302, "/3"), Redirect(302, "/4")}});
  HttpClient c(Local(server.port()), HttpClientOptions());
  bool delivered = false;
  absl::StatusOr<HttpResponse> r = c.Exchange("GET", "/logger/ping", "", {}, &delivered);
  ASSERT_OK(r.status());
  EXPECT_EQ(r->status, 302);
  EXPECT_EQ(r->location, "/4");
  EXPECT_EQ(c.redirects(), 3u);
  EXPECT_EQ(server.requests().size(), 4u);
}

TEST(HttpClient, ARedirectWithoutLocationIsTheAnswer) {
  ScriptedServer server({{"HTTP/1.1 303 See Other\r\nContent-Length: 0\r\n\r\n"}});
  HttpClient c(Local(server.port()), HttpClientOptions());
  bool delivered = false;
  absl::StatusOr<HttpResponse> r = c.Exchange("GET", "/logger/ping", "", {}, &delivered);
  ASSERT_OK(r.status());
  EXPECT_EQ(r->status, 303);
  EXPECT_EQ(c.redirects(), 0u);
}

TEST(HttpClient, ABadRedirectIsAnError) {
  ScriptedServer server({{Redirect(307, "gopher://elsewhere/")}});
  HttpClient c(Local(server.port()), HttpClientOptions());
  bool delivered = false;
  EXPECT_THAT(c.Exchange("GET", "/logger/ping", "", {}, &delivered),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("not http:// or https://")));
}

}  // namespace
}  // namespace mmvlog::archiver

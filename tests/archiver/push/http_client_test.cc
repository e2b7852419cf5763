// Tests of //archiver/push:http_client against a small scripted server on a
// thread of the test (TCP and a Unix socket): one connection kept for many
// requests, a connection the server closed while idle, no answer, no
// server at all, a server too slow; and whether each failed request may
// have been delivered.
#include "archiver/push/http_client.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

std::string Ok(const std::string& body) {
  return absl::StrCat("HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: ",
                      body.size(), "\r\nContent-Type: application/json\r\n\r\n", body);
}

constexpr char kHang[] = "hang";    // read the request, never answer
constexpr char kClose[] = "close";  // read the request, close without an answer

// Serves connections one after another; connection i answers its requests
// with script[i] in order, then closes.
class ScriptedServer {
 public:
  ScriptedServer(std::vector<std::vector<std::string>> script, const std::string& unix_path = "")
      : script_(std::move(script)) {
    if (unix_path.empty()) {
      listen_ = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a = {};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      ::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
      socklen_t n = sizeof(a);
      ::getsockname(listen_, reinterpret_cast<sockaddr*>(&a), &n);
      port_ = ntohs(a.sin_port);
    } else {
      listen_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un a = {};
      a.sun_family = AF_UNIX;
      std::strncpy(a.sun_path, unix_path.c_str(), sizeof(a.sun_path) - 1);
      ::unlink(unix_path.c_str());
      ::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    }
    ::listen(listen_, 8);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedServer() {
    done_ = true;
    ::shutdown(listen_, SHUT_RDWR);
    ::close(listen_);
    thread_.join();
  }
  int port() const { return port_; }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> l(mu_);
    return requests_;
  }

 private:
  // One request: the head and its Content-Length body; "" at EOF.
  static std::string ReadRequest(int fd) {
    std::string in;
    char buf[4096];
    for (;;) {
      const size_t head = in.find("\r\n\r\n");
      if (head != std::string::npos) {
        size_t length = 0;
        const size_t cl = in.find("Content-Length: ");
        if (cl != std::string::npos && cl < head) {
          (void)absl::SimpleAtoi(in.substr(cl + 16, in.find("\r\n", cl) - cl - 16), &length);
        }
        if (in.size() >= head + 4 + length) return in.substr(0, head + 4 + length);
      }
      const ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n <= 0) return "";
      in.append(buf, n);
    }
  }
  void Serve() {
    for (const std::vector<std::string>& answers : script_) {
      const int fd = ::accept(listen_, nullptr, nullptr);
      if (fd < 0) return;
      for (const std::string& answer : answers) {
        const std::string req = ReadRequest(fd);
        if (req.empty()) break;
        {
          std::lock_guard<std::mutex> l(mu_);
          requests_.push_back(req);
        }
        if (answer == kClose) break;
        if (answer == kHang) {
          while (!done_) ::usleep(10'000);
          break;
        }
        (void)::write(fd, answer.data(), answer.size());
      }
      ::close(fd);
    }
  }

  std::vector<std::vector<std::string>> script_;
  int listen_ = -1;
  int port_ = 0;
  std::atomic<bool> done_{false};
  std::mutex mu_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

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

}  // namespace
}  // namespace mmvlog::archiver

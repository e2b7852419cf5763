// A scripted HTTP server on a thread, for the client tests of
// archiver/push: serves connections one after another, connection i
// answering its requests with script[i] in order (kHang: read the request,
// never answer; kClose: read it, close without an answer), then closing.
// It is no stand-in for pmproxy: the protocol's real server is PCP 7.2's
// (tests/cmd:push_test); this one makes the failures a client must survive.
#ifndef MMVLOG_TESTS_ARCHIVER_PUSH_SCRIPTED_SERVER_H_
#define MMVLOG_TESTS_ARCHIVER_PUSH_SCRIPTED_SERVER_H_

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::archiver::testing {

// A 200 answer with `body`, as pmproxy sends it.
inline std::string Ok(const std::string& body) {
  return absl::StrCat("HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: ",
                      body.size(), "\r\nContent-Type: application/json\r\n\r\n", body);
}

inline constexpr char kHang[] = "hang";    // read the request, never answer
inline constexpr char kClose[] = "close";  // read the request, close without an answer

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
        // A client that hung up early is one of the scripts.
        if (::write(fd, answer.data(), answer.size()) < 0) break;
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

}  // namespace mmvlog::archiver::testing

#endif  // MMVLOG_TESTS_ARCHIVER_PUSH_SCRIPTED_SERVER_H_

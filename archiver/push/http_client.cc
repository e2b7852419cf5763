#include "archiver/push/http_client.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {
namespace {

// Milliseconds left until `deadline`, for poll(2): at least 0.
int MillisLeft(absl::Time deadline) {
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return 0;
  return static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 60'000));
}

// Waits for `events` on `fd` until `deadline`: true when ready (or an error
// condition is pending, which the next call reports), false on timeout.
bool WaitFor(int fd, short events, absl::Time deadline) {
  for (;;) {
    pollfd p = {fd, events, 0};
    const int n = ::poll(&p, 1, MillisLeft(deadline));
    if (n > 0) return true;
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 && absl::Now() < deadline) continue;  // poll's 60 s cap
    return false;
  }
}

}  // namespace

std::string HttpEndpoint::ToString() const {
  if (!unix_socket.empty()) return absl::StrCat("unix:", unix_socket);
  const bool v6 = host.find(':') != std::string::npos;
  return absl::StrCat("http://", v6 ? "[" : "", host, v6 ? "]" : "", ":", port);
}

HttpClient::HttpClient(HttpEndpoint endpoint, HttpClientOptions options)
    : endpoint_(std::move(endpoint)), options_(std::move(options)) {}

absl::Status HttpClient::Connect(absl::Time deadline) {
  fd_.reset();
  const std::string where = endpoint_.ToString();
  // A non-blocking connect, so that an unreachable host costs at most the
  // connect timeout.
  auto try_connect = [&](int family, const sockaddr* addr, socklen_t len) -> absl::Status {
    FileDescriptor fd(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd.valid()) return absl::ErrnoToStatus(errno, absl::StrCat("socket for ", where));
    if (::connect(fd.get(), addr, len) != 0) {
      if (errno != EINPROGRESS) return absl::ErrnoToStatus(errno, absl::StrCat("connect to ", where));
      if (!WaitFor(fd.get(), POLLOUT, deadline)) {
        return absl::UnavailableError(absl::StrCat("connect to ", where, ": no answer within ",
                                                   absl::FormatDuration(options_.connect_timeout)));
      }
      int err = 0;
      socklen_t n = sizeof(err);
      if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &n) != 0) err = errno;
      if (err != 0) return absl::ErrnoToStatus(err, absl::StrCat("connect to ", where));
    }
    if (family != AF_UNIX) {
      const int one = 1;
      (void)::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    fd_ = std::move(fd);
    ++connections_;
    return absl::OkStatus();
  };
  absl::Status last;
  if (!endpoint_.unix_socket.empty()) {
    sockaddr_un sun = {};
    sun.sun_family = AF_UNIX;
    if (endpoint_.unix_socket.size() >= sizeof(sun.sun_path)) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": socket path too long"));
    }
    std::memcpy(sun.sun_path, endpoint_.unix_socket.data(), endpoint_.unix_socket.size());
    last = try_connect(AF_UNIX, reinterpret_cast<const sockaddr*>(&sun), sizeof(sun));
  } else {
    addrinfo hints = {};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string port = absl::StrCat(endpoint_.port);
    const int rc = ::getaddrinfo(endpoint_.host.c_str(), port.c_str(), &hints, &found);
    if (rc != 0) {
      return absl::UnavailableError(absl::StrCat(where, ": ", ::gai_strerror(rc)));
    }
    last = absl::UnavailableError(absl::StrCat(where, ": no address"));
    for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
      last = try_connect(a->ai_family, a->ai_addr, a->ai_addrlen);
      if (last.ok()) break;
    }
    ::freeaddrinfo(found);
  }
  if (last.ok()) return last;
  // Every way of not reaching the server is one the caller retries.
  return absl::UnavailableError(last.message());
}

bool HttpClient::IdleConnectionBroken() const {
  pollfd p = {fd_.get(), POLLIN, 0};
  // Readable while idle: the server closed it (EOF) or sent something we
  // did not ask for; either way it cannot carry a request.
  return ::poll(&p, 1, 0) != 0;
}

absl::StatusOr<HttpResponse> HttpClient::Attempt(const std::string& head,
                                                 std::span<const uint8_t> body,
                                                 absl::Time deadline, bool* wrote_all,
                                                 bool* got_bytes) {
  *wrote_all = false;
  *got_bytes = false;
  const std::string where = endpoint_.ToString();
  size_t done = 0;
  const size_t total = head.size() + body.size();
  while (done < total) {
    iovec iov[2];
    int n = 0;
    if (done < head.size()) {
      iov[n++] = {const_cast<char*>(head.data()) + done, head.size() - done};
      if (!body.empty()) iov[n++] = {const_cast<uint8_t*>(body.data()), body.size()};
    } else {
      iov[n++] = {const_cast<uint8_t*>(body.data()) + (done - head.size()), total - done};
    }
    msghdr msg = {};
    msg.msg_iov = iov;
    msg.msg_iovlen = n;
    const ssize_t w = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL);
    if (w > 0) {
      done += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (WaitFor(fd_.get(), POLLOUT, deadline)) continue;
      return absl::DeadlineExceededError(
          absl::StrCat(where, ": request not taken within ", absl::FormatDuration(options_.timeout)));
    }
    return absl::UnavailableError(
        absl::StrCat(where, ": sending the request: ", std::strerror(w < 0 ? errno : EPIPE)));
  }
  *wrote_all = true;
  HttpResponseParser parser;
  uint8_t buf[16 << 10];
  while (!parser.done()) {
    const ssize_t r = ::recv(fd_.get(), buf, sizeof(buf), 0);
    if (r > 0) {
      *got_bytes = true;
      absl::StatusOr<size_t> used = parser.Feed(std::span<const uint8_t>(buf, r));
      if (!used.ok()) return absl::DataLossError(absl::StrCat(where, ": ", used.status().message()));
      // Bytes after the response: a server speaking out of turn.
      if (*used < static_cast<size_t>(r)) fd_.reset();
      continue;
    }
    if (r == 0) {
      if (absl::Status s = parser.Finish(); !s.ok()) {
        return absl::UnavailableError(absl::StrCat(where, ": ", s.message()));
      }
      break;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (WaitFor(fd_.get(), POLLIN, deadline)) continue;
      return absl::DeadlineExceededError(
          absl::StrCat(where, ": no response within ", absl::FormatDuration(options_.timeout)));
    }
    return absl::UnavailableError(
        absl::StrCat(where, ": reading the response: ", std::strerror(errno)));
  }
  HttpResponse response = parser.response();
  if (!response.keep_alive) fd_.reset();
  return response;
}

absl::StatusOr<HttpResponse> HttpClient::Exchange(absl::string_view method,
                                                  absl::string_view target,
                                                  absl::string_view content_type,
                                                  std::span<const uint8_t> body,
                                                  bool* delivered) {
  *delivered = false;
  HttpRequestHead h;
  h.method = std::string(method);
  h.target = std::string(target);
  const bool v6 = endpoint_.host.find(':') != std::string::npos;
  h.host = !endpoint_.unix_socket.empty()
               ? "localhost"
               : absl::StrCat(v6 ? "[" : "", endpoint_.host, v6 ? "]" : "", ":", endpoint_.port);
  h.content_type = std::string(content_type);
  h.authorization = options_.authorization;
  const std::string head = EncodeRequestHead(h, body.size());
  const std::string what = absl::StrCat(method, " ", target, ": ");
  for (int attempt = 0;; ++attempt) {
    const bool reused = fd_.valid() && !IdleConnectionBroken();
    if (!reused) {
      const absl::Time connect_deadline = absl::Now() + options_.connect_timeout;
      if (absl::Status s = Connect(connect_deadline); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat(what, s.message()));
      }
    }
    bool wrote_all = false, got_bytes = false;
    absl::StatusOr<HttpResponse> r =
        Attempt(head, body, absl::Now() + options_.timeout, &wrote_all, &got_bytes);
    if (r.ok()) {
      *delivered = true;
      return r;
    }
    fd_.reset();
    // A kept-alive connection the server closed just as we used it: the
    // request never got a byte of answer; once more on a fresh one.
    if (reused && attempt == 0 && !got_bytes && absl::IsUnavailable(r.status())) continue;
    *delivered = wrote_all;
    return absl::Status(r.status().code(), absl::StrCat(what, r.status().message()));
  }
}

}  // namespace mmvlog::archiver

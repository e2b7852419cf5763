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
#include "archiver/push/http_url.h"

namespace mmvlog::archiver {
namespace {

// The most plaintext one TLS record carries (RFC 8446 5.1, RFC 5246 6.2.1).
constexpr size_t kTlsRecordBytes = 16 << 10;

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
  return absl::StrCat(tls ? "https://" : "http://", v6 ? "[" : "", host, v6 ? "]" : "", ":", port);
}

HttpClient::HttpClient(HttpEndpoint endpoint, HttpClientOptions options)
    : endpoint_(std::move(endpoint)), options_(std::move(options)) {}

absl::Status HttpClient::Connect(absl::Time deadline) {
  Close();
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
  if (!last.ok()) {
    // Every way of not reaching the server is one the caller retries.
    return absl::UnavailableError(last.message());
  }
  if (endpoint_.tls) {
    if (absl::Status s = StartTls(deadline); !s.ok()) {
      Close();
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status HttpClient::StartTls(absl::Time deadline) {
  const std::string where = endpoint_.ToString();
  if (options_.tls == nullptr) {
    absl::StatusOr<std::shared_ptr<TlsContext>> context = TlsContext::Create(TlsOptions());
    if (!context.ok()) return context.status();
    options_.tls = *std::move(context);
  }
  absl::StatusOr<std::unique_ptr<TlsStream>> tls =
      TlsStream::Start(*options_.tls, fd_.get(), endpoint_.host);
  if (!tls.ok()) return absl::Status(tls.status().code(), absl::StrCat(where, ": ", tls.status().message()));
  tls_ = *std::move(tls);
  for (;;) {
    const TlsStream::Io io = tls_->Handshake();
    if (io.moved > 0) return absl::OkStatus();
    if (io.refused) return absl::UnauthenticatedError(absl::StrCat(where, ": ", io.error));
    if (!io.error.empty()) return absl::UnavailableError(absl::StrCat(where, ": ", io.error));
    if (!WaitFor(fd_.get(), io.wait, deadline)) {
      return absl::UnavailableError(absl::StrCat(where, ": no TLS handshake within ",
                                                 absl::FormatDuration(options_.connect_timeout)));
    }
  }
}

void HttpClient::Close() {
  tls_.reset();
  fd_.reset();
}

std::string HttpClient::tls_description() const {
  return tls_ != nullptr ? tls_->Describe() : std::string();
}

bool HttpClient::IdleConnectionBroken() const {
  pollfd p = {fd_.get(), POLLIN, 0};
  // Readable while idle: the server closed it (EOF) or sent something we
  // did not ask for; either way it cannot carry a request. Over TLS it may
  // be a record that is no data (a TLS 1.3 session ticket).
  if (::poll(&p, 1, 0) == 0) return false;
  return tls_ == nullptr || !tls_->IdleUsable();
}

TlsStream::Io HttpClient::SendSome(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  if (tls_ != nullptr) return a.empty() ? tls_->Write(b.data(), b.size()) : tls_->Write(a.data(), a.size());
  TlsStream::Io io;
  iovec iov[2];
  int n = 0;
  if (!a.empty()) iov[n++] = {const_cast<uint8_t*>(a.data()), a.size()};
  if (!b.empty()) iov[n++] = {const_cast<uint8_t*>(b.data()), b.size()};
  msghdr msg = {};
  msg.msg_iov = iov;
  msg.msg_iovlen = n;
  const ssize_t w = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL);
  if (w > 0) {
    io.moved = static_cast<size_t>(w);
  } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    io.wait = POLLOUT;
  } else if (!(w < 0 && errno == EINTR)) {
    io.error = std::strerror(w < 0 ? errno : EPIPE);
  }
  return io;
}

TlsStream::Io HttpClient::RecvSome(uint8_t* data, size_t size) {
  if (tls_ != nullptr) return tls_->Read(data, size);
  TlsStream::Io io;
  const ssize_t r = ::recv(fd_.get(), data, size, 0);
  if (r > 0) {
    io.moved = static_cast<size_t>(r);
  } else if (r == 0) {
    io.closed = true;
  } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
    io.wait = POLLIN;
  } else if (errno != EINTR) {
    io.error = std::strerror(errno);
  }
  return io;
}

absl::StatusOr<HttpResponse> HttpClient::Attempt(const std::string& head,
                                                 std::span<const uint8_t> body,
                                                 absl::Time deadline, bool* wrote_all,
                                                 bool* got_bytes) {
  *wrote_all = false;
  *got_bytes = false;
  const std::string where = endpoint_.ToString();
  // Over TLS a request that fits one TLS record goes as one (pmproxy 7.2
  // reads one record per read of its socket: logger_client.h kTlsPiece).
  std::string whole;
  std::span<const uint8_t> first(reinterpret_cast<const uint8_t*>(head.data()), head.size());
  std::span<const uint8_t> second = body;
  if (tls_ != nullptr && !body.empty() && head.size() + body.size() <= kTlsRecordBytes) {
    whole.reserve(head.size() + body.size());
    whole.append(head).append(reinterpret_cast<const char*>(body.data()), body.size());
    first = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(whole.data()), whole.size());
    second = {};
  }
  size_t done = 0;
  const size_t total = first.size() + second.size();
  while (done < total) {
    const TlsStream::Io io =
        done < first.size() ? SendSome(first.subspan(done), second)
                            : SendSome({}, second.subspan(done - first.size()));
    if (io.moved > 0) {
      done += io.moved;
      continue;
    }
    if (!io.error.empty()) {
      return absl::UnavailableError(absl::StrCat(where, ": sending the request: ", io.error));
    }
    if (io.wait == 0 || WaitFor(fd_.get(), io.wait, deadline)) continue;
    return absl::DeadlineExceededError(
        absl::StrCat(where, ": request not taken within ", absl::FormatDuration(options_.timeout)));
  }
  *wrote_all = true;
  HttpResponseParser parser;
  uint8_t buf[16 << 10];
  while (!parser.done()) {
    const TlsStream::Io io = RecvSome(buf, sizeof(buf));
    if (io.moved > 0) {
      *got_bytes = true;
      absl::StatusOr<size_t> used = parser.Feed(std::span<const uint8_t>(buf, io.moved));
      if (!used.ok()) return absl::DataLossError(absl::StrCat(where, ": ", used.status().message()));
      // Bytes after the response: a server speaking out of turn.
      if (*used < io.moved) Close();
      continue;
    }
    if (io.closed) {
      if (absl::Status s = parser.Finish(); !s.ok()) {
        return absl::UnavailableError(absl::StrCat(where, ": ", s.message()));
      }
      break;
    }
    if (!io.error.empty()) {
      return absl::UnavailableError(absl::StrCat(where, ": reading the response: ", io.error));
    }
    if (io.wait == 0 || WaitFor(fd_.get(), io.wait, deadline)) continue;
    return absl::DeadlineExceededError(
        absl::StrCat(where, ": no response within ", absl::FormatDuration(options_.timeout)));
  }
  HttpResponse response = parser.response();
  if (!response.keep_alive) Close();
  return response;
}

absl::StatusOr<HttpResponse> HttpClient::Exchange(absl::string_view method,
                                                  absl::string_view target,
                                                  absl::string_view content_type,
                                                  std::span<const uint8_t> body,
                                                  bool* delivered) {
  absl::StatusOr<HttpResponse> r = ExchangeOnce(method, target, content_type, body, delivered);
  HttpClient* at = this;
  for (int hops = 0; r.ok() && hops < options_.max_redirects; ++hops) {
    const int code = r->status;
    if ((code < 301 || code > 303) && code != 307 && code != 308) return r;
    if (r->location.empty()) return r;
    // Where to: a path on the same server, or another server (the same
    // request again there, as PCP's client does; the credentials go with
    // it, never in clear after https).
    HttpEndpoint next = at->endpoint_;
    std::string next_target = r->location;
    if (!r->location.starts_with("/")) {
      absl::StatusOr<HttpUrl> u = ParseHttpUrl(r->location);
      if (!u.ok()) {
        return absl::DataLossError(absl::StrCat(at->endpoint_.ToString(), " ", method, " ", target,
                                                ": a redirect to ", u.status().message()));
      }
      next = HttpEndpoint();
      next.host = u->host;
      next.tls = u->tls;
      next.port = u->port != 0 ? u->port : (u->tls ? 443 : 80);
      next_target = u->target.empty() ? "/" : u->target;
    }
    if ((endpoint_.tls || at->endpoint_.tls) && !next.tls) {
      *delivered = false;
      return absl::PermissionDeniedError(absl::StrCat(
          at->endpoint_.ToString(), " ", method, " ", target, ": a redirect from https to ",
          RedactUserinfo(r->location), " refused: the request would go in clear"));
    }
    ++redirects_;
    if (next == at->endpoint_ && at == this) {
      r = ExchangeOnce(method, next_target, content_type, body, delivered);
      continue;
    }
    if (redirected_ == nullptr || !(redirected_->endpoint_ == next)) {
      HttpClientOptions o = options_;
      o.max_redirects = 0;
      redirected_ = std::make_unique<HttpClient>(next, std::move(o));
    }
    at = redirected_.get();
    r = at->ExchangeOnce(method, next_target, content_type, body, delivered);
  }
  return r;
}

absl::StatusOr<HttpResponse> HttpClient::ExchangeOnce(absl::string_view method,
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
    Close();
    // A kept-alive connection the server closed just as we used it: the
    // request never got a byte of answer; once more on a fresh one.
    if (reused && attempt == 0 && !got_bytes && absl::IsUnavailable(r.status())) continue;
    *delivered = wrote_all;
    return absl::Status(r.status().code(), absl::StrCat(what, r.status().message()));
  }
}

}  // namespace mmvlog::archiver

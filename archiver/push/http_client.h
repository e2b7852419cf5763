// HttpClient: a minimal HTTP/1.1 client on plain sockets, TCP or a Unix
// domain socket (pmproxy's -s), one request at a time on a kept-alive
// connection. Bodies go with a Content-Length; responses are read by
// archiver/push/http_message.h. Every wait is bounded: connecting by
// `connect_timeout`, each request and its response by `timeout`.
//
// Why not a library: pushing needs POST with a length-delimited body, GET,
// a Unix socket and, above all, to know whether a failed request may have
// reached the server (see Exchange); that is a few hundred lines here,
// while Debian's libcurl would bring TLS stacks and some forty shared
// libraries into a binary that loads nine.
//
// Not thread-safe: one thread uses a client.
#ifndef MMVLOG_ARCHIVER_PUSH_HTTP_CLIENT_H_
#define MMVLOG_ARCHIVER_PUSH_HTTP_CLIENT_H_

#include <cstdint>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "archiver/push/http_message.h"
#include "archiver/file/posix_file.h"

namespace mmvlog::archiver {

// Where the server is: host and port, or a Unix socket path (then host and
// port only make the Host header).
struct HttpEndpoint {
  std::string host = "localhost";
  int port = 44322;  // pmproxy's
  std::string unix_socket;

  // "http://host:port" or "unix:/path", for messages.
  std::string ToString() const;
};

struct HttpClientOptions {
  absl::Duration connect_timeout = absl::Seconds(5);
  // From the first byte of a request to the last of its response.
  absl::Duration timeout = absl::Seconds(10);
  std::string authorization;  // Authorization header value, "" for none
};

class HttpClient {
 public:
  HttpClient(HttpEndpoint endpoint, HttpClientOptions options);

  // Sends one request (`body` may be empty) and reads its response.
  // `*delivered` says whether the server may have received the whole
  // request: false when it certainly did not (no connection could be made,
  // or the connection failed while the request was being written), true
  // otherwise, even when no response came. A kept-alive connection that the
  // server had closed is noticed before use, and a request it fails on
  // before any response byte is sent once more on a new connection.
  // Errors (the response's status is not one: a 500 is a response):
  // Unavailable (cannot connect, the connection failed or closed early),
  // DeadlineExceeded (no complete response within the timeout), DataLoss
  // (a malformed response); each names the endpoint and the target.
  absl::StatusOr<HttpResponse> Exchange(absl::string_view method, absl::string_view target,
                                        absl::string_view content_type,
                                        std::span<const uint8_t> body, bool* delivered);

  // Drops the connection (the next Exchange makes a new one).
  void Close() { fd_.reset(); }
  bool connected() const { return fd_.valid(); }
  const HttpEndpoint& endpoint() const { return endpoint_; }
  // Connections made so far.
  uint64_t connections() const { return connections_; }

 private:
  absl::Status Connect(absl::Time deadline);
  // One attempt on the current connection; `*wrote_all` and `*got_bytes`
  // say how far it went.
  absl::StatusOr<HttpResponse> Attempt(const std::string& head, std::span<const uint8_t> body,
                                       absl::Time deadline, bool* wrote_all, bool* got_bytes);
  // Whether the open connection has been closed (or has data) while idle.
  bool IdleConnectionBroken() const;

  HttpEndpoint endpoint_;
  HttpClientOptions options_;
  FileDescriptor fd_;
  uint64_t connections_ = 0;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_HTTP_CLIENT_H_

// HttpClient: a minimal HTTP/1.1 client over TCP or a Unix domain socket
// (pmproxy's -s), in clear or in TLS (https://: archiver/push/tls_stream.h),
// one request at a time on a kept-alive connection. Bodies go with a
// Content-Length; responses are read by archiver/push/http_message.h.
// Redirects are followed as PCP's own client follows them (libpcp_web's
// http_client.c): the same method and body, at most 3 a request; never
// from https to http. Every wait is bounded: connecting (with the TLS
// handshake) by `connect_timeout`, each request and its response by
// `timeout`.
//
// Why not libcurl: pushing needs to know whether a failed request may have
// reached the server (see Exchange); that is a few hundred lines here over
// OpenSSL, while libcurl would bring some forty shared libraries into a
// binary that loads nine.
//
// Not thread-safe: one thread uses a client.
#ifndef MMVLOG_ARCHIVER_PUSH_HTTP_CLIENT_H_
#define MMVLOG_ARCHIVER_PUSH_HTTP_CLIENT_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "archiver/file/posix_file.h"
#include "archiver/push/http_message.h"
#include "archiver/push/tls_stream.h"

namespace mmvlog::archiver {

// Where the server is: host and port, or a Unix socket path (then host and
// port only make the Host header).
struct HttpEndpoint {
  std::string host = "localhost";
  int port = 44322;  // pmproxy's
  std::string unix_socket;
  bool tls = false;  // https://

  // "http://host:port", "https://host:port" or "unix:/path", for messages.
  std::string ToString() const;
  bool operator==(const HttpEndpoint&) const = default;
};

struct HttpClientOptions {
  absl::Duration connect_timeout = absl::Seconds(5);
  // From the first byte of a request to the last of its response.
  absl::Duration timeout = absl::Seconds(10);
  std::string authorization;  // Authorization header value, "" for none
  // For an https:// endpoint (and a redirect to one): the trust store and
  // any client certificate. Without one, an https:// endpoint gets a
  // context with the system's trust store.
  std::shared_ptr<TlsContext> tls;
  int max_redirects = 3;  // as PCP's http_client.c
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
  // Unavailable (cannot connect, the TLS handshake failed, the connection
  // failed or closed early), Unauthenticated (the server's certificate is
  // refused: why), PermissionDenied (a redirect from https to http),
  // DeadlineExceeded (no complete response within the timeout), DataLoss
  // (a malformed response); each names the endpoint and the target. A
  // redirect (301, 302, 303, 307, 308 with a Location) is followed with the
  // same request, at most `max_redirects` times; past that the redirect is
  // the response.
  absl::StatusOr<HttpResponse> Exchange(absl::string_view method, absl::string_view target,
                                        absl::string_view content_type,
                                        std::span<const uint8_t> body, bool* delivered);

  // Drops the connection (the next Exchange makes a new one).
  void Close();
  bool connected() const { return fd_.valid(); }
  const HttpEndpoint& endpoint() const { return endpoint_; }
  // Connections made so far.
  uint64_t connections() const { return connections_; }
  // Redirects followed so far.
  uint64_t redirects() const { return redirects_; }
  // The TLS in use ("TLSv1.3 TLS_AES_256_GCM_SHA384"), "" in clear.
  std::string tls_description() const;

 private:
  absl::Status Connect(absl::Time deadline);
  absl::Status StartTls(absl::Time deadline);
  // One request to this client's endpoint, no redirects followed.
  absl::StatusOr<HttpResponse> ExchangeOnce(absl::string_view method, absl::string_view target,
                                            absl::string_view content_type,
                                            std::span<const uint8_t> body, bool* delivered);
  // A step of I/O on the connection, in clear or in TLS.
  TlsStream::Io SendSome(std::span<const uint8_t> a, std::span<const uint8_t> b);
  TlsStream::Io RecvSome(uint8_t* data, size_t size);
  // One attempt on the current connection; `*wrote_all` and `*got_bytes`
  // say how far it went.
  absl::StatusOr<HttpResponse> Attempt(const std::string& head, std::span<const uint8_t> body,
                                       absl::Time deadline, bool* wrote_all, bool* got_bytes);
  // Whether the open connection has been closed (or has data) while idle.
  bool IdleConnectionBroken() const;

  HttpEndpoint endpoint_;
  HttpClientOptions options_;
  FileDescriptor fd_;
  std::unique_ptr<TlsStream> tls_;  // over fd_, for https://
  // The server a redirect names, kept connected while it keeps naming it.
  std::unique_ptr<HttpClient> redirected_;
  uint64_t connections_ = 0;
  uint64_t redirects_ = 0;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_HTTP_CLIENT_H_

// LoggerClient: pmproxy's archive push API, PMWEBAPI(3) "ARCHIVE WEBHOOK"
// (PCP >= 7.0; read from PCP 7.2's src/pmproxy/src/logger.c and
// src/libpcp_web/src/loggroup.c):
//
//   GET  /logger/ping                       {"success":true}
//   POST /logger/label[?polltimeout=S&client=X]
//        body: one framed archive label record (v2 or v3; its volume is
//        ignored)                           {"archive":LOGID,"success":true}
//   POST /logger/meta/LOGID                 .meta records after the label
//   POST /logger/index/LOGID                .index entries after the label
//   POST /logger/volume/VOLID/LOGID         volume records after the label
//
// pmproxy writes each body as it comes after the labels it writes itself,
// and streams .meta and volume bodies into the key server, keeping a
// partial record for the next body; a body must be under 10 MiB
// (kMaxBody). It forgets a LOGID after `polltimeout` idle seconds (600 by
// default) and when it restarts: 410. Other answers: 400 (bad request, body
// too large), 403 (credentials wanted: [pmlogger] authenticate), 409, 422
// (bad label), 500 (a write or the stream into the key server failed).
//
// Each call returns what the pusher needs to decide:
//   OK
//   Unavailable       the request certainly did not reach pmproxy (no
//                     connection): send the same again later
//   Aborted           it may have been applied, but no answer says so (a
//                     timeout, a connection lost, a 5xx): resending could
//                     duplicate records, so a new remote archive is needed
//   NotFound          410: the LOGID is forgotten; a new remote archive
//   PermissionDenied  401, 403
//   InvalidArgument   400, 409, 422, any other 4xx, or an answer that is not
//                     the API's JSON
// Messages name the endpoint, the request and pmproxy's answer.
#ifndef MMVLOG_ARCHIVER_PUSH_LOGGER_CLIENT_H_
#define MMVLOG_ARCHIVER_PUSH_LOGGER_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "archiver/push/http_client.h"

namespace mmvlog::archiver {

class LoggerClient {
 public:
  // pmproxy refuses a body of this size or more (loggroup.c MAX_BUFFER_SIZE).
  static constexpr size_t kMaxBody = 10 << 20;
  // Over TLS a .meta, .index or volume body goes in pieces of at most this
  // many bytes, each request one TLS record (head and body under 16 KiB):
  // pmproxy 7.2 decrypts one TLS record per read of its socket (secure.c,
  // on_secure_client_read), so the rest of a request that arrives with the
  // first record waits there, unanswered, until the client's timeout.
  // pmproxy appends each body and keeps a partial record for the next, so
  // the pieces make the same files. A piece that fails after another was
  // taken is Aborted (the remote copy holds part of the body).
  static constexpr size_t kTlsPiece = 12 << 10;

  // `http` must outlive the client. `client_id`: sent as ?client= with the
  // label, echoed by pmproxy ("" for none). `poll_timeout`: seconds pmproxy
  // keeps an idle LOGID (0: its default).
  LoggerClient(HttpClient* http, std::string client_id = "", int poll_timeout = 0);

  absl::Status Ping();
  // A new remote archive for the framed label record `label`: its LOGID.
  absl::StatusOr<uint32_t> Label(std::span<const uint8_t> label);
  absl::Status Meta(uint32_t logid, std::span<const uint8_t> records);
  absl::Status Index(uint32_t logid, std::span<const uint8_t> entries);
  absl::Status Volume(uint32_t volume, uint32_t logid, std::span<const uint8_t> records);

  HttpClient& http() { return *http_; }
  // POSTs answered with success so far, and their body bytes.
  uint64_t posts() const { return posts_; }
  uint64_t bytes() const { return bytes_; }

 private:
  // One request; the response body when the API says success.
  // POST of a body pmproxy appends: in pieces over TLS (kTlsPiece).
  absl::Status Append(const std::string& target, std::span<const uint8_t> body);
  absl::StatusOr<std::string> Call(const char* method, const std::string& target,
                                   std::span<const uint8_t> body);

  HttpClient* http_;
  std::string client_id_;
  int poll_timeout_;
  uint64_t posts_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_LOGGER_CLIENT_H_

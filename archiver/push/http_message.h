// HTTP/1.1 messages as the pusher speaks them (RFC 9112), pure bytes in and
// out: the head of a request whose body has a Content-Length, and a parser
// for responses fed as they arrive, delimited by Content-Length, by chunked
// transfer coding, or by the end of the connection. pmproxy (PCP 7.2
// src/pmproxy/src/http.c) answers /logger requests with Content-Length
// JSON bodies and "Connection: Keep-Alive"; the other forms are read too,
// so that a proxy in between does not break the push.
//
// No I/O happens here (archiver/push/http_client.h does it).
#ifndef MMVLOG_ARCHIVER_PUSH_HTTP_MESSAGE_H_
#define MMVLOG_ARCHIVER_PUSH_HTTP_MESSAGE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmvlog::archiver {

// What a request says besides its body.
struct HttpRequestHead {
  std::string method;         // "GET", "POST"
  std::string target;         // origin form: "/logger/meta/42"
  std::string host;           // the Host header ("host:port")
  std::string content_type;   // sent with a body only
  std::string authorization;  // the Authorization header's value; "" for none
};

// The request line and headers, up to and including the blank line, for a
// body of `body_size` bytes (Content-Length is always sent with POST, and
// with any body).
std::string EncodeRequestHead(const HttpRequestHead& head, size_t body_size);

struct HttpResponse {
  int status = 0;            // 200, 410, ...
  std::string reason;        // "OK"
  std::string content_type;  // without parameters, lower case
  std::string location;      // the Location header (a redirect's target)
  std::string body;          // after any chunked coding is undone
  bool keep_alive = true;    // the connection may carry another request
};

// Reads one response from the bytes of a connection, in pieces of any size.
// Interim (1xx) responses are skipped. Bodies over kMaxBody, heads over
// kMaxHead, and anything that is not HTTP/1.x are DataLoss naming the byte
// offset in the stream; a connection that ends before the response does
// (Finish) is Unavailable.
class HttpResponseParser {
 public:
  static constexpr size_t kMaxHead = 64 << 10;
  static constexpr size_t kMaxBody = 1 << 20;

  // Consumes bytes of `in` (never more than belong to this response) and
  // returns how many it used; done() once the response is complete.
  absl::StatusOr<size_t> Feed(std::span<const uint8_t> in);
  // The connection ended: completes a response delimited by it, or fails.
  absl::Status Finish();
  bool done() const { return state_ == State::kDone; }
  // Whether any byte of a response has been seen.
  bool started() const { return offset_ > 0; }
  const HttpResponse& response() const { return response_; }

 private:
  enum class State { kHead, kBody, kChunkSize, kChunkData, kChunkEnd, kTrailer, kToClose, kDone };
  absl::Status ParseHead();
  // One CRLF-terminated line from `in` into line_; true once complete.
  bool TakeLine(std::span<const uint8_t> in, size_t* used);
  absl::Status Error(absl::string_view what) const;

  State state_ = State::kHead;
  std::string head_;   // bytes of the head so far
  std::string line_;   // a chunk-size or trailer line so far
  uint64_t remaining_ = 0;  // of the body (Content-Length) or of a chunk
  uint64_t offset_ = 0;     // bytes consumed so far
  HttpResponse response_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_HTTP_MESSAGE_H_

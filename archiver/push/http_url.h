// http:// and https:// URLs as the push meets them (RFC 3986's authority
// and path), pure text in and out: the pmproxy named on the command line
// (push_url.h) and the Location of a redirect.
#ifndef MMVLOG_ARCHIVER_PUSH_HTTP_URL_H_
#define MMVLOG_ARCHIVER_PUSH_HTTP_URL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmvlog::archiver {

struct HttpUrl {
  bool tls = false;      // https://
  std::string userinfo;  // before the last '@' of the authority, still percent-encoded
  std::string host;      // a name, an IPv4 address, or an IPv6 address without its []
  int port = 0;          // 0: none given
  std::string target;    // the path and query ("/logger/ping?x=1"), "" for none
};

// Errors: InvalidArgument saying what is wrong (another scheme, no host, a
// port that is not 1..65535, an unclosed '[').
absl::StatusOr<HttpUrl> ParseHttpUrl(absl::string_view url);

// `url` with its user information (a password) shown as "***", for messages.
std::string RedactUserinfo(absl::string_view url);

// RFC 3986 percent-decoding ("%2F" -> "/"). Errors: InvalidArgument for a
// '%' not followed by two hex digits.
absl::StatusOr<std::string> PercentDecode(absl::string_view s);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_HTTP_URL_H_

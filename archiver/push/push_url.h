// The pmproxy to push to, as pmlogger 7 takes it in place of an archive
// name: http://HOST[:PORT] (PCP 7.2 src/pmlogger/src/pmlogger.c: an
// argument starting "http://"), or https://HOST[:PORT] (pmproxy serves
// both on its one port), port 44322 by default. Also accepted:
// [IPV6]:PORT, a trailing "/", and USER:PASSWORD@HOST for HTTP Basic
// credentials, percent-encoded or not (a credentials file keeps them out
// of ps(1)).
//
// Pure: no I/O.
#ifndef MMVLOG_ARCHIVER_PUSH_PUSH_URL_H_
#define MMVLOG_ARCHIVER_PUSH_PUSH_URL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "archiver/push/http_client.h"

namespace mmvlog::archiver {

struct PushUrl {
  HttpEndpoint endpoint;
  std::string userinfo;  // "USER:PASSWORD" percent-decoded, "" for none
};

// Whether `arg` names a pmproxy rather than an archive.
bool IsPushUrl(absl::string_view arg);

// Errors: InvalidArgument saying what is wrong with `url` (no host, a port
// that is not 1..65535, a path, a query, another scheme, user information
// without a password or with a bad %-escape); the message never shows the
// password.
absl::StatusOr<PushUrl> ParsePushUrl(absl::string_view url);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_PUSH_URL_H_

// HTTP Basic credentials for pmproxy's [pmlogger] authenticate = true (PCP
// 7.2 src/pmproxy/src/logger.c: a /logger request without a user name and
// password in an "Authorization: Basic" header is refused, 403).
//
// A credentials file holds one line USER:PASSWORD (blank lines and lines
// starting with '#' are skipped), and must not be readable by group or
// others, as ssh(1) wants of its keys: a password file others can read is
// refused rather than used.
#ifndef MMVLOG_ARCHIVER_PUSH_CREDENTIALS_H_
#define MMVLOG_ARCHIVER_PUSH_CREDENTIALS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmvlog::archiver {

// "Basic <base64 of USER:PASSWORD>". REQUIRES: `userinfo` holds a ':'.
std::string BasicAuthorization(absl::string_view userinfo);

// USER:PASSWORD from `path`. Errors (each naming the file): the file cannot
// be read; PermissionDenied when group or others may read it;
// InvalidArgument when no line is USER:PASSWORD.
absl::StatusOr<std::string> ReadCredentialsFile(const std::string& path);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_CREDENTIALS_H_

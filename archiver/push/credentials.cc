#include "archiver/push/credentials.h"

#include <sys/stat.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "archiver/file/posix_file.h"

namespace mmvlog::archiver {

std::string BasicAuthorization(absl::string_view userinfo) {
  return absl::StrCat("Basic ", absl::Base64Escape(userinfo));
}

absl::StatusOr<std::string> ReadCredentialsFile(const std::string& path) {
  absl::StatusOr<struct stat> st = StatPath(path);
  if (!st.ok()) return st.status();
  if ((st->st_mode & 077) != 0) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "%s: credentials readable by others (mode %04o): chmod 600 it", path,
        st->st_mode & 07777));
  }
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  int n = 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    ++n;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    if (line.find(':') == absl::string_view::npos || line[0] == ':') {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": line ", n, ": not USER:PASSWORD"));
    }
    return std::string(line);
  }
  return absl::InvalidArgumentError(absl::StrCat(path, ": no USER:PASSWORD line"));
}

}  // namespace mmvlog::archiver

#include "cmd/config_file.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "archiver/posix_file.h"
#include "cmd/common.h"

namespace mmvlog::cmd {
namespace {

// Configurations are small; a larger file is a mistake (a log, /dev/zero).
constexpr off_t kMaxConfigBytes = 16 << 20;

absl::StatusOr<std::string> ReadConfigFile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::ErrnoToStatus(errno, path);  // ENOENT: NotFound, the next place is tried
  }
  if (!S_ISREG(st.st_mode)) return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  if (st.st_size > kMaxConfigBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", st.st_size, " bytes is too large for a configuration"));
  }
  return archiver::ReadWholeFile(path);
}

}  // namespace

std::string PcpVarDir() { return PcpConfValue("PCP_VAR_DIR", "/var/lib/pcp"); }

absl::StatusOr<format::LoggerConfig> LoadLoggerConfig(const std::string& path) {
  const std::string fallback = absl::StrCat(PcpVarDir(), "/config/pmlogger");
  std::string found = path;
  absl::StatusOr<std::string> text = ReadConfigFile(path);
  if (absl::IsNotFound(text.status()) && path.find('/') == std::string::npos) {
    found = absl::StrCat(fallback, "/", path);
    text = ReadConfigFile(found);
  }
  if (absl::IsNotFound(text.status())) {
    return absl::NotFoundError(absl::StrCat(
        "cannot find configuration ", path,
        path.find('/') == std::string::npos ? absl::StrCat(" (nor ", found, ")") : ""));
  }
  if (!text.ok()) return absl::InvalidArgumentError(text.status().message());
  format::PmcppOptions o;
  o.load = ReadConfigFile;
  o.include_dirs = {fallback};
  return format::ParseLoggerConfigText(*text, found, o);
}

}  // namespace mmvlog::cmd

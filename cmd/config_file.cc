#include "cmd/config_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "cmd/common.h"

namespace mmvlog::cmd {
namespace {

// Configurations are small; a larger file is a mistake (a log, /dev/zero).
constexpr size_t kMaxConfigBytes = 1 << 20;

absl::StatusOr<std::string> ReadConfigFile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::ErrnoToStatus(errno, path);  // ENOENT: NotFound, the next place is tried
  }
  // As pmcpp: a regular file or a character device (/dev/null); read with a
  // bound, so /dev/zero or a log named by mistake is refused, not eaten.
  if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::ErrnoToStatus(errno, path);
  std::string text(kMaxConfigBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxConfigBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": more than ", kMaxConfigBytes, " bytes is too large for a configuration"));
  }
  return text;
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

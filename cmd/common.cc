#include "cmd/common.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include <cstdio>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "archiver/file/posix_file.h"
#include "archiver/store/time_zone.h"
#include "cmd/cli.h"

namespace mmvlog::cmd {

std::atomic<bool> g_stop{false};
std::atomic<bool> g_new_volume{false};

std::string PcpConfValue(const char* name, const char* fallback) {
  const char* env = ::getenv(name);
  std::string value = env != nullptr && *env != '\0' ? env : "";
  if (value.empty()) {
    const char* conf = ::getenv("PCP_CONF");
    absl::StatusOr<std::string> text =
        archiver::ReadWholeFile(conf != nullptr && *conf ? conf : "/etc/pcp.conf");
    const std::string prefix = absl::StrCat(name, "=");
    if (text.ok()) {
      for (absl::string_view line : absl::StrSplit(*text, '\n')) {
        if (absl::ConsumePrefix(&line, prefix)) {
          value = std::string(absl::StripAsciiWhitespace(line));
        }
      }
    }
  }
  return value.empty() ? fallback : value;
}

std::string DefaultMmvDir() {
  return absl::StrCat(PcpConfValue("PCP_TMP_DIR", "/var/lib/pcp/tmp"), "/mmv");
}

namespace {
FILE* g_log = nullptr;  // nullptr: stderr
}  // namespace

absl::Status SetLogFile(const std::string& path) {
  if (path == "-") {
    g_log = stdout;
    return absl::OkStatus();
  }
  FILE* f = std::fopen(path.c_str(), "ae");
  if (f == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open log file ", path, ": ", std::strerror(errno)));
  }
  std::setvbuf(f, nullptr, _IOLBF, 0);  // whole lines, at once, as they happen
  g_log = f;
  return absl::OkStatus();
}

void LogLine(archiver::LogLevel level, const std::string& message) {
  const char* name = level == archiver::LogLevel::kInfo      ? "info"
                     : level == archiver::LogLevel::kWarning ? "warning"
                                                             : "error";
  std::fprintf(g_log != nullptr ? g_log : stderr, "%s %s: %s\n",
               absl::FormatTime("%Y-%m-%d %H:%M:%E3S", absl::Now(), archiver::LocalPcpTimeZone()).c_str(),
               name, message.c_str());
}

namespace {
void OnStop(int) { g_stop.store(true); }
void OnHup(int) { g_new_volume.store(true); }
}  // namespace

void InstallStopSignals() {
  struct sigaction sa {};
  sa.sa_handler = OnStop;  // no SA_RESTART: interrupt the sleep
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sa.sa_handler = OnHup;
  sigaction(SIGHUP, &sa, nullptr);
}

int FinishStandardOutput(const std::string& command, int rc) {
  int err = 0;
  if (std::fflush(stdout) != 0) {
    err = errno;
  } else if (std::ferror(stdout)) {
    err = errno != 0 ? errno : EIO;  // an earlier write failed
  }
  // A command that failed has said why (a failed write among it).
  if (err == 0 || err == EPIPE || rc != kExitOk) return rc;
  std::fprintf(stderr, "mmvlog%s%s: write standard output: %s\n", command.empty() ? "" : " ",
               command.c_str(), std::strerror(err));
  return rc == kExitOk ? kExitFailure : rc;
}

bool ProcessGone(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  // /proc/PID/stat: "PID (COMM) STATE ...", COMM may hold spaces and ')'.
  absl::StatusOr<std::string> stat = archiver::ReadWholeFile(absl::StrCat("/proc/", pid, "/stat"));
  if (!stat.ok()) return false;
  const size_t paren = stat->rfind(')');
  return paren != std::string::npos && paren + 2 < stat->size() && (*stat)[paren + 2] == 'Z';
}

bool SleepUntil(absl::Time deadline) {
  const timespec ts = absl::ToTimespec(deadline);
  while (!g_stop.load()) {
    int rc = ::clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nullptr);
    if (rc == 0) return true;
    if (rc != EINTR) return true;
    if (g_new_volume.load()) return true;  // let the caller switch volume now
  }
  return false;
}

}  // namespace mmvlog::cmd

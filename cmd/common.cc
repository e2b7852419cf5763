#include "cmd/common.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "archiver/posix_file.h"

namespace mmvlog::cmd {

std::atomic<bool> g_stop{false};
std::atomic<bool> g_new_volume{false};

absl::StatusOr<absl::Duration> ParsePcpInterval(absl::string_view text) {
  struct Unit {
    const char* names[4];
    absl::Duration scale;
  };
  static const Unit kUnits[] = {
      {{"nsec", "nanosec", "nanosecond", nullptr}, absl::Nanoseconds(1)},
      {{"usec", "microsec", "microsecond", nullptr}, absl::Microseconds(1)},
      {{"msec", "millisec", "millisecond", "ms"}, absl::Milliseconds(1)},
      {{"sec", "second", "s", nullptr}, absl::Seconds(1)},
      {{"min", "minute", "m", nullptr}, absl::Minutes(1)},
      {{"hour", "hr", "h", nullptr}, absl::Hours(1)},
      {{"day", "d", nullptr, nullptr}, absl::Hours(24)},
  };
  const std::string bad = absl::StrCat(
      "bad interval '", text, "': use PCP's syntax, e.g. 10sec, 1 min, 250msec or plain seconds");
  absl::string_view s = absl::StripAsciiWhitespace(text);
  if (s.empty()) return absl::InvalidArgumentError(bad);
  absl::Duration total = absl::ZeroDuration();
  while (!s.empty()) {
    size_t n = 0;
    while (n < s.size() && (absl::ascii_isdigit(s[n]) || s[n] == '.')) ++n;
    double number;
    if (n == 0 || !absl::SimpleAtod(s.substr(0, n), &number)) {
      return absl::InvalidArgumentError(bad);
    }
    s = absl::StripLeadingAsciiWhitespace(s.substr(n));
    size_t u = 0;
    while (u < s.size() && absl::ascii_isalpha(s[u])) ++u;
    std::string unit = absl::AsciiStrToLower(s.substr(0, u));
    s = absl::StripLeadingAsciiWhitespace(s.substr(u));
    absl::Duration scale = absl::Seconds(1);
    if (!unit.empty()) {
      if (unit.size() > 1 && unit.back() == 's' && unit != "ms") unit.pop_back();
      bool found = false;
      for (const Unit& k : kUnits) {
        for (const char* name : k.names) {
          if (name != nullptr && unit == name) {
            scale = k.scale;
            found = true;
          }
        }
      }
      if (!found) return absl::InvalidArgumentError(bad);
    }
    total += scale * number;
  }
  if (total <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat("interval '", text, "' must be positive"));
  }
  return total;
}

std::string DefaultMmvDir() {
  const char* env = ::getenv("PCP_TMP_DIR");
  std::string tmp = env != nullptr && *env != '\0' ? env : "";
  if (tmp.empty()) {
    const char* conf = ::getenv("PCP_CONF");
    absl::StatusOr<std::string> text =
        archiver::ReadWholeFile(conf != nullptr && *conf ? conf : "/etc/pcp.conf");
    if (text.ok()) {
      for (absl::string_view line : absl::StrSplit(*text, '\n')) {
        if (absl::ConsumePrefix(&line, "PCP_TMP_DIR=")) {
          tmp = std::string(absl::StripAsciiWhitespace(line));
        }
      }
    }
  }
  if (tmp.empty()) tmp = "/var/lib/pcp/tmp";
  return absl::StrCat(tmp, "/mmv");
}

void LogLine(archiver::LogLevel level, const std::string& message) {
  const char* name = level == archiver::LogLevel::kInfo      ? "info"
                     : level == archiver::LogLevel::kWarning ? "warning"
                                                             : "error";
  std::fprintf(stderr, "%s %s: %s\n",
               absl::FormatTime("%Y-%m-%d %H:%M:%E3S", absl::Now(), absl::LocalTimeZone()).c_str(),
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

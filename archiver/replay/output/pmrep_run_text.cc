#include "archiver/replay/output/pmrep_run_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace mmvlog::archiver {
namespace {

// A time as Python's float of a timeval: whole microseconds.
double TimevalSeconds(absl::Time t) {
  return static_cast<double>(absl::ToUnixMicros(t)) / 1e6;
}

// Python's str(float): the shortest digits that read back, fixed between
// 1e-4 and 1e16 ("1.0", "0.333333", "3000.0"), else with an exponent.
std::string PythonFloat(double v) {
  char buf[64];
  const double a = std::fabs(v);
  const bool fixed = a == 0 || (a >= 1e-4 && a < 1e16);
  const auto r = std::to_chars(buf, buf + sizeof buf, v,
                               fixed ? std::chars_format::fixed : std::chars_format::scientific);
  std::string s(buf, r.ptr);
  if (fixed && s.find('.') == std::string::npos) s += ".0";
  return s;
}

// pmrep's secs_to_readable: rounded half away from zero, as Python's
// timedelta prints it ("1 day, 2:03:04"), the hours given two digits.
std::string Readable(double seconds) {
  const int64_t s = static_cast<int64_t>(std::floor(seconds + std::copysign(0.5, seconds)));
  const int64_t days = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
  const int64_t rest = s - days * 86400;
  const std::string clock =
      absl::StrFormat("%02d:%02d:%02d", rest / 3600, rest % 3600 / 60, rest % 60);
  if (days == 0) return clock;
  return absl::StrCat(days, days == 1 || days == -1 ? " day, " : " days, ", clock);
}

// Python's time.asctime(time.localtime(t)) in `zone`.
std::string AscTime(absl::Time t, absl::TimeZone zone) {
  return absl::FormatTime("%a %b %e %H:%M:%S %Y", absl::FromUnixSeconds(absl::ToUnixSeconds(t)),
                          zone);
}

}  // namespace

std::string PmrepUtcOffset(absl::TimeZone zone, absl::Time t) {
  // get_current_tz: the zone's name, then (unless UTC) its offset in
  // seconds west as whole hours (truncated) and minutes (Python's modulo,
  // never negative), with "+" only when west: "EDT+4", "IST-5:30".
  const absl::TimeZone::CivilInfo at = zone.At(t);
  const int64_t west = -at.offset;
  std::string tz(at.zone_abbr);
  if (west != 0) {
    absl::StrAppend(&tz, west >= 0 ? "+" : "", west / 3600);
    if (const int64_t minutes = ((west % 3600) + 3600) % 3600 / 60; minutes != 0) {
      absl::StrAppend(&tz, ":", minutes);
    }
  }
  // posix_tz_to_utc_offset, word for word: what follows the first "+" (or
  // else "-"), signed "+" when the text has a "-" anywhere.
  const bool plus = tz.find('+') != std::string::npos;
  const bool minus = tz.find('-') != std::string::npos;
  if (!plus && !minus) return "UTC+0";
  const size_t at_sign = tz.find(plus ? '+' : '-');
  const size_t end = tz.find(plus ? '+' : '-', at_sign + 1);
  return absl::StrCat("UTC", minus ? "+" : "-", tz.substr(at_sign + 1, end - at_sign - 1));
}

PmrepRun PmrepRunOf(const PmrepRunAsked& asked, const ReplayHeader& header,
                    const PmrepCells& cells) {
  PmrepRun run;
  run.source = asked.source;
  run.host = header.host;
  run.zone = header.zone;
  run.local = asked.local;
  run.now = asked.now;
  run.origin = header.origin;
  run.finish = header.finish;
  run.finish_given = asked.finish_given;
  run.archive_end = header.last_record;
  run.interpolated = header.grid;
  run.interval = header.step;
  run.samples = asked.samples;
  run.dynamic = asked.dynamic;
  run.instances = cells.columns().size();
  for (const PmrepColumn& c : cells.columns()) run.metrics = std::max(run.metrics, c.metric + 1);
  return run;
}

std::string PmrepExtendedHeader(const PmrepRun& run, bool csv) {
  std::string zone = PmrepUtcOffset(run.zone, run.origin);
  if (const std::string current = PmrepUtcOffset(run.local, run.now); current != zone) {
    absl::StrAppend(&zone, " (reporting, current is ", current, ")");
  }
  // The samples and the time they span, in pmrep's order of rules: -T
  // (with -s it made the interval), else -s, else as many as fit.
  const double origin = TimevalSeconds(run.origin);
  const double finish = TimevalSeconds(run.finish);
  const double interval = static_cast<double>(absl::ToInt64Microseconds(run.interval)) / 1e6;
  // How many fit (Python's int(): towards zero); none without an
  // interval (-u, whose samples are not shown).
  auto fit = [&](double seconds) {
    return interval > 0 ? static_cast<int64_t>(std::clamp(seconds / interval + 1, -1e18, 1e18)) : 0;
  };
  int64_t samples = run.samples;
  double duration = 0;
  if (run.finish_given) {
    duration = finish - origin;
    samples = run.samples != 0 ? std::max<int64_t>(2, run.samples) : fit(duration);
  } else if (run.samples != 0) {
    duration = static_cast<double>(samples - 1) * interval;
  } else {
    samples = std::max<int64_t>(0, fit(finish - origin));
    duration = std::max(0.0, static_cast<double>(samples - 1) * interval);
  }
  std::string samples_text = absl::StrCat(samples);
  if (!run.interpolated) {
    duration = std::max(0.0, finish - origin);
    samples_text = run.samples != 0 ? absl::StrCat(samples, " (requested)") : "N/A";
  }
  const char* comm = csv ? "#" : "";
  const size_t n = run.instances;
  return absl::StrCat(
      comm, "\n",                                                              //
      comm, "  archive: ", run.source, "\n",                                   //
      comm, "     host: ", run.host, "\n",                                     //
      comm, " timezone: ", zone, "\n",                                         //
      comm, "    start: ", AscTime(run.origin, run.zone), "\n",                //
      comm, "      end: ", AscTime(run.archive_end, run.zone), "\n",           //
      comm, "  metrics: ", run.metrics, " (", n, n != 1 ? " instances" : " instance",
      run.dynamic ? " present in archive" : "", ")\n",
      comm, "  samples: ", samples_text, "\n",                                 //
      comm, " interval: ", run.interpolated ? PythonFloat(interval) + " sec" : "N/A", "\n",
      comm, " duration: ", Readable(duration), "\n",                           //
      comm, "\n");
}

}  // namespace mmvlog::archiver

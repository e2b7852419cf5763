// mmvlog replay ARCHIVE... [METRIC...]: offline analysis of PCP archives
// (ours or PCP's): a summary by default, or --dump, --csv, --json lines,
// --stats, and --plot FILE.svg. Counters are shown as rates, as pmval and
// pmrep do, unless --raw.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "archiver/posix_file.h"
#include "archiver/replay.h"
#include "cmd/common.h"
#include "cmd/replay_csv.h"
#include "cmd/subcommand.h"
#include "cmd/to_mmv.h"
#include "format/archive_format.h"
#include "format/json.h"
#include "format/pm_desc_text.h"
#include "format/pm_units.h"

ABSL_FLAG(bool, dump, false, "print every record, like pmdumplog -a");
ABSL_FLAG(bool, csv, false, "print the chosen metrics as CSV, one row per sample");
ABSL_DECLARE_FLAG(bool, json);
ABSL_FLAG(bool, stats, false, "print min, mean, max and last per metric and instance");
ABSL_FLAG(bool, raw, false, "show counters as stored instead of as rates per second");
ABSL_FLAG(std::string, start, "",
          "first time to show: \"YYYY-MM-DD HH:MM[:SS]\" (local), or +DURATION from the start");
ABSL_FLAG(std::string, finish, "",
          "last time to show: \"YYYY-MM-DD HH:MM[:SS]\" (local), or -DURATION from the end");
ABSL_FLAG(std::string, plot, "", "draw the chosen metrics over time into this SVG file");
ABSL_FLAG(bool, utc_times, false, "print times in UTC instead of local time");
ABSL_FLAG(bool, follow, false,
          "keep reading archives that are still being written, across volume switches, "
          "printing new samples as they arrive (like tail -f); with --csv, --json or --dump");
ABSL_FLAG(std::string, to_mmv, "",
          "play the recorded values back into MMV files in this directory at the recorded "
          "pace, so live MMV consumers see the past run");
ABSL_FLAG(double, speed, 1.0, "with --to_mmv: play back this many times faster");
ABSL_DECLARE_FLAG(std::string, interval);

namespace mmvlog::cmd {
namespace {

using archiver::Timeline;

std::string TimeText(format::Timestamp t, int digits = 3) {
  const absl::TimeZone tz = absl::GetFlag(FLAGS_utc_times) ? absl::UTCTimeZone() : absl::LocalTimeZone();
  return absl::FormatTime(digits == 9 ? "%Y-%m-%d %H:%M:%E9S" : "%Y-%m-%d %H:%M:%E3S",
                          format::ToAbslTime(t), tz);
}

absl::StatusOr<absl::Time> ParseWhen(const std::string& text, absl::Time first, absl::Time last,
                                     const char* flag) {
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    absl::StatusOr<absl::Duration> d = ParsePcpInterval(text.substr(1));
    if (!d.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", d.status().message()));
    return text[0] == '+' ? first + *d : last - *d;
  }
  absl::Time t;
  std::string err;
  for (const char* fmt : {"%Y-%m-%d %H:%M:%E*S", "%Y-%m-%d %H:%M"}) {
    if (absl::ParseTime(fmt, text, absl::LocalTimeZone(), &t, &err)) return t;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      flag, ": bad time '", text, "': use \"YYYY-MM-DD HH:MM[:SS]\", +10min or -1hour"));
}

std::string Num(double v) { return NumberText(v); }

// Writes `out` to stdout and empties it.
void Flush(std::string* out) {
  std::fwrite(out->data(), 1, out->size(), stdout);
  out->clear();
}

void PrintSummary(const Timeline& t) {
  std::printf("archives:  %s\n", absl::StrJoin(t.archives, ", ").c_str());
  std::printf("host:      %s\n", t.host.c_str());
  size_t samples = 0, marks = 0;
  std::vector<size_t> per_column(t.columns.size());  // values of each column
  for (size_t r = 0; r < t.rows.size(); ++r) {
    (t.rows[r].mark ? marks : samples)++;
    for (size_t c = 0; c < t.rows[r].width; ++c) per_column[c] += t.Has(r, c);
  }
  if (!t.rows.empty()) {
    const absl::Duration span =
        format::ToAbslTime(t.rows.back().time) - format::ToAbslTime(t.rows.front().time);
    std::printf("time:      %s to %s (%s)\n", TimeText(t.rows.front().time).c_str(),
                TimeText(t.rows.back().time).c_str(), absl::FormatDuration(span).c_str());
  }
  std::printf("samples:   %zu, marks (gaps): %zu\n", samples, marks);
  std::printf("\nmetrics (%zu):\n", t.descs.size());
  std::printf("  %-50s %-20s %-9s %-14s %9s %8s\n", "name", "type", "semantics", "units", "instances",
              "values");
  for (const format::Desc& d : t.descs) {
    size_t insts = 0, values = 0;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (t.columns[c].pmid != d.pmid) continue;
      ++insts;
      values += per_column[c];
    }
    const std::string units = format::UnitsToString(format::UnitsFromWord(d.units));
    std::printf("  %-50s %-20s %-9s %-14s %9zu %8zu\n", d.names.empty() ? "?" : d.names[0].c_str(),
                format::TypeName(d.type).c_str(), format::SemanticsName(d.sem).c_str(),
                units.empty() ? "none" : units.c_str(), insts, values);
  }
}

void PrintDump(const Timeline& t, const std::vector<size_t>& rows) {
  for (size_t r : rows) {
    const archiver::Row& row = t.rows[r];
    if (row.mark) {
      std::printf("%s  <mark>\n", TimeText(row.time, 9).c_str());
      continue;
    }
    std::printf("%s  %zu values\n", TimeText(row.time, 9).c_str(), t.ValueCount(r));
    for (size_t c = 0; c < row.width; ++c) {
      const archiver::StoredValue v = t.Value(r, c);
      if (!v.has_value()) continue;
      const archiver::Column& col = t.columns[c];
      std::printf("    %s (%s)%s value %s\n", format::PmidString(col.pmid).c_str(), col.metric.c_str(),
                  col.instance.empty()
                      ? ""
                      : absl::StrCat(" inst [", col.inst, " or \"", col.instance, "\"]").c_str(),
                  v.kind == archiver::StoredValue::kString ? format::JsonString(v.s).c_str()
                                                           : v.Text().c_str());
    }
  }
}

// Built in memory and written in large pieces: with 100k columns a row is
// over a megabyte.
void PrintCsv(const Timeline& t, const std::vector<size_t>& rows, bool raw, bool header_line = true) {
  std::string out;
  if (header_line) out = CsvHeader(t, raw) + "\n";
  archiver::RowNumbers numbers(t, raw);
  for (size_t r : rows) {
    if (t.rows[r].mark) continue;
    AppendCsvRow(t, r, raw, TimeText(t.rows[r].time), numbers, &out);
    if (out.size() >= (size_t{1} << 20)) Flush(&out);
  }
  Flush(&out);
}

void PrintJson(const Timeline& t, const std::vector<size_t>& rows, bool raw) {
  for (size_t r : rows) {
    const archiver::Row& row = t.rows[r];
    std::string o = absl::StrCat("{\"time\":", format::JsonString(TimeText(row.time, 9)),
                                 ",\"timestamp\":", row.time.sec, ".",
                                 absl::StrFormat("%09d", row.time.nsec));
    if (row.mark) {
      std::printf("%s,\"mark\":true}\n", o.c_str());
      continue;
    }
    o += ",\"values\":{";
    bool first = true;
    for (size_t c = 0; c < row.width; ++c) {
      const archiver::StoredValue value = t.Value(r, c);
      if (!value.has_value()) continue;
      std::string v;
      if (value.kind == archiver::StoredValue::kString) {
        v = format::JsonString(value.s);
      } else if (raw) {
        v = value.Text();
      } else {
        std::optional<double> n = archiver::NumericValue(t, r, c, raw);
        v = n ? format::JsonNumber(*n) : "null";
      }
      absl::StrAppend(&o, first ? "" : ",", format::JsonString(t.columns[c].label()), ":", v);
      first = false;
    }
    std::printf("%s}}\n", o.c_str());
  }
}

void PrintStats(const Timeline& t, const std::vector<size_t>& rows, bool raw) {
  std::printf("%-60s %14s %14s %14s %14s %7s  %s\n", "metric[instance]", "min", "mean", "max", "last",
              "count", "units");
  for (size_t c = 0; c < t.columns.size(); ++c) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0, last = 0;
    size_t n = 0;
    for (size_t r : rows) {
      std::optional<double> v = archiver::NumericValue(t, r, c, raw);
      if (!v) continue;
      lo = std::min(lo, *v);
      hi = std::max(hi, *v);
      sum += *v;
      last = *v;
      ++n;
    }
    if (n == 0) continue;
    std::printf("%-60s %14s %14s %14s %14s %7zu  %s\n", t.columns[c].label().c_str(), Num(lo).c_str(),
                Num(sum / n).c_str(), Num(hi).c_str(), Num(last).c_str(), n,
                archiver::DisplayUnits(t, c, raw).c_str());
  }
}

std::string Svg(const Timeline& t, const std::vector<size_t>& rows, bool raw) {
  constexpr double kW = 1140, kH = 480, kLeft = 90, kRight = 440, kTop = 40, kBottom = 50;
  static const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                  "#9467bd", "#8c564b", "#e377c2", "#17becf"};
  std::vector<size_t> cols;
  for (size_t c = 0; c < t.columns.size() && cols.size() < 8; ++c) {
    for (size_t r : rows) {
      if (archiver::NumericValue(t, r, c, raw)) {
        cols.push_back(c);
        break;
      }
    }
  }
  double t0 = 0, t1 = 1, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  auto secs = [&](size_t r) {
    return absl::ToDoubleSeconds(format::ToAbslTime(t.rows[r].time) - absl::UnixEpoch());
  };
  if (!rows.empty()) {
    t0 = secs(rows.front());
    t1 = std::max(secs(rows.back()), t0 + 1e-3);
  }
  for (size_t c : cols) {
    for (size_t r : rows) {
      if (auto v = archiver::NumericValue(t, r, c, raw)) {
        lo = std::min(lo, *v);
        hi = std::max(hi, *v);
      }
    }
  }
  if (!(lo <= hi)) lo = 0, hi = 1;
  if (hi - lo < 1e-12) hi = lo + 1;
  const double pad = (hi - lo) * 0.05;
  lo -= pad;
  hi += pad;
  auto x = [&](double s) { return kLeft + (s - t0) / (t1 - t0) * (kW - kLeft - kRight); };
  auto y = [&](double v) { return kTop + (hi - v) / (hi - lo) * (kH - kTop - kBottom); };
  std::string o = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
      "fill=\"white\"/>\n",
      kW, kH);
  absl::StrAppend(&o, "<text x=\"", kLeft, "\" y=\"22\" font-size=\"15\">", t.host, ": ",
                  raw ? "values as stored" : "counters as rates per second", "</text>\n");
  // Axes, grid and tick labels.
  absl::StrAppendFormat(&o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#333\"/>\n",
                        kLeft, kTop, kW - kLeft - kRight, kH - kTop - kBottom);
  for (int i = 0; i <= 5; ++i) {
    const double v = lo + (hi - lo) * i / 5;
    absl::StrAppendFormat(&o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                              "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                          kLeft, kW - kRight, y(v), y(v), kLeft - 6, y(v) + 4, Num(v));
    const double s = t0 + (t1 - t0) * i / 5;
    const std::string label = absl::FormatTime(
        t1 - t0 < 60 ? "%H:%M:%E1S" : "%H:%M:%S", absl::FromUnixNanos(static_cast<int64_t>(s * 1e9)),
        absl::GetFlag(FLAGS_utc_times) ? absl::UTCTimeZone() : absl::LocalTimeZone());
    absl::StrAppendFormat(&o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x(s),
                          kH - kBottom + 18, label);
  }
  absl::StrAppendFormat(&o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time</text>\n",
                        kLeft + (kW - kLeft - kRight) / 2, kH - 10);
  for (size_t k = 0; k < cols.size(); ++k) {
    const size_t c = cols[k];
    std::string points;
    auto flush = [&] {
      if (!points.empty()) {
        absl::StrAppend(&o, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"", kColors[k],
                        "\" points=\"", points, "\"/>\n");
      }
      points.clear();
    };
    for (size_t r : rows) {
      if (t.rows[r].mark) {
        flush();
        continue;
      }
      auto v = archiver::NumericValue(t, r, c, raw);
      if (!v) continue;
      absl::StrAppendFormat(&points, "%.1f,%.1f ", x(secs(r)), y(*v));
    }
    flush();
    const std::string units = archiver::DisplayUnits(t, c, raw);
    absl::StrAppendFormat(&o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"4\" fill=\"%s\"/>"
                              "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                          kW - kRight + 16, kTop + 10 + 20 * k, kColors[k], kW - kRight + 36,
                          kTop + 15 + 20 * k,
                          format::JsonString(absl::StrCat(t.columns[c].label(),
                                                          units.empty() ? "" : " (" + units + ")"))
                              .substr(1)
                              .c_str());
  }
  // JsonString quoting leaves a trailing quote in the legend: strip it.
  absl::StrReplaceAll({{"\"</text>", "</text>"}}, &o);
  o += "</svg>\n";
  return o;
}

bool IsArchiveArg(const std::string& a) {
  struct stat st;
  return ::stat(a.c_str(), &st) == 0 || ::stat((a + ".meta").c_str(), &st) == 0 ||
         ::stat((a + ".0").c_str(), &st) == 0;
}

}  // namespace

int RunReplay(const Invocation& inv) {
  std::vector<std::string> archives, metrics;
  for (const std::string& a : inv.args) (IsArchiveArg(a) ? archives : metrics).push_back(a);
  if (archives.empty()) {
    std::fprintf(stderr, "mmvlog replay: name an archive (base name, any of its files, or a "
                         "directory of archives)%s\n",
                 inv.args.empty() ? "" : absl::StrCat("; not found: ", inv.args[0]).c_str());
    return kExitUsage;
  }
  absl::StatusOr<Timeline> t = archiver::ReadTimeline(archives, metrics);
  if (!t.ok()) {
    std::fprintf(stderr, "mmvlog replay: %s\n", std::string(t.status().message()).c_str());
    return kExitFailure;
  }
  for (const std::string& p : t->problems) std::fprintf(stderr, "mmvlog replay: warning: %s\n", p.c_str());
  if (!metrics.empty() && t->columns.empty()) {
    std::fprintf(stderr, "mmvlog replay: no metric matches %s; 'mmvlog replay ARCHIVE' lists them\n",
                 absl::StrJoin(metrics, ", ").c_str());
    return kExitFailure;
  }
  absl::Time from = absl::InfinitePast(), to = absl::InfiniteFuture();
  if (!t->rows.empty()) {
    const absl::Time first = format::ToAbslTime(t->rows.front().time);
    const absl::Time last = format::ToAbslTime(t->rows.back().time);
    if (!absl::GetFlag(FLAGS_start).empty()) {
      absl::StatusOr<absl::Time> s = ParseWhen(absl::GetFlag(FLAGS_start), first, last, "--start");
      if (!s.ok()) {
        std::fprintf(stderr, "mmvlog replay: %s\n", std::string(s.status().message()).c_str());
        return kExitUsage;
      }
      from = *s;
    }
    if (!absl::GetFlag(FLAGS_finish).empty()) {
      absl::StatusOr<absl::Time> f = ParseWhen(absl::GetFlag(FLAGS_finish), first, last, "--finish");
      if (!f.ok()) {
        std::fprintf(stderr, "mmvlog replay: %s\n", std::string(f.status().message()).c_str());
        return kExitUsage;
      }
      to = *f;
    }
    if (!absl::GetFlag(FLAGS_interval).empty()) {
      absl::StatusOr<absl::Duration> step = ParsePcpInterval(absl::GetFlag(FLAGS_interval));
      if (!step.ok()) {
        std::fprintf(stderr, "mmvlog replay: --interval: %s\n",
                     std::string(step.status().message()).c_str());
        return kExitUsage;
      }
      *t = archiver::Interpolate(*t, std::max(from, first), std::min(to, last), *step);
    }
  }
  auto select = [&](const Timeline& tl, std::optional<format::Timestamp> after) {
    std::vector<size_t> rows;
    for (size_t r = 0; r < tl.rows.size(); ++r) {
      const absl::Time when = format::ToAbslTime(tl.rows[r].time);
      if (when < from || when > to) continue;
      if (after && !(*after < tl.rows[r].time)) continue;
      rows.push_back(r);
    }
    return rows;
  };
  std::vector<size_t> rows = select(*t, std::nullopt);
  const std::string to_mmv = absl::GetFlag(FLAGS_to_mmv);
  if (!to_mmv.empty()) {
    if (absl::GetFlag(FLAGS_speed) <= 0) {
      std::fprintf(stderr, "mmvlog replay: --speed must be positive\n");
      return kExitUsage;
    }
    InstallStopSignals();
    if (absl::Status s = PlayToMmv(*t, rows, to_mmv, absl::GetFlag(FLAGS_speed)); !s.ok()) {
      std::fprintf(stderr, "mmvlog replay: --to_mmv: %s\n", std::string(s.message()).c_str());
      return kExitFailure;
    }
    return kExitOk;
  }
  if (absl::GetFlag(FLAGS_follow)) {
    if (!absl::GetFlag(FLAGS_csv) && !absl::GetFlag(FLAGS_json) && !absl::GetFlag(FLAGS_dump)) {
      std::fprintf(stderr, "mmvlog replay: --follow needs --csv, --json or --dump\n");
      return kExitUsage;
    }
    InstallStopSignals();
    const bool raw = absl::GetFlag(FLAGS_raw);
    bool header = true;
    std::optional<format::Timestamp> printed;
    for (;;) {
      std::vector<size_t> fresh = select(*t, printed);
      if (absl::GetFlag(FLAGS_dump)) PrintDump(*t, fresh);
      if (absl::GetFlag(FLAGS_csv)) PrintCsv(*t, fresh, raw, header);
      if (absl::GetFlag(FLAGS_json)) PrintJson(*t, fresh, raw);
      std::fflush(stdout);
      header = false;
      if (!fresh.empty()) printed = t->rows[fresh.back()].time;
      if (!SleepUntil(absl::Now() + absl::Seconds(1))) return kExitOk;
      // Re-read: new records, new volumes, new archives in a directory.
      absl::StatusOr<Timeline> again = archiver::ReadTimeline(archives, metrics);
      if (again.ok()) *t = std::move(*again);
    }
  }
  const bool raw = absl::GetFlag(FLAGS_raw);
  int outputs = 0;
  if (absl::GetFlag(FLAGS_dump)) ++outputs, PrintDump(*t, rows);
  if (absl::GetFlag(FLAGS_csv)) ++outputs, PrintCsv(*t, rows, raw);
  if (absl::GetFlag(FLAGS_json)) ++outputs, PrintJson(*t, rows, raw);
  if (absl::GetFlag(FLAGS_stats)) ++outputs, PrintStats(*t, rows, raw);
  const std::string plot = absl::GetFlag(FLAGS_plot);
  std::fflush(stdout);
  if (!plot.empty()) {
    ++outputs;
    const std::string svg = Svg(*t, rows, raw);
    if (absl::Status s = archiver::WriteFileAtomically(
            plot, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(svg.data()), svg.size()));
        !s.ok()) {
      std::fprintf(stderr, "mmvlog replay: --plot: %s\n", s.ToString().c_str());
      return kExitFailure;
    }
    std::fprintf(stderr, "mmvlog replay: plot written to %s\n", plot.c_str());
  }
  if (outputs == 0) PrintSummary(*t);
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace mmvlog::cmd

// mmvlog replay [-a] ARCHIVE... [METRIC...]: offline analysis of PCP archives
// (ours or PCP's): a summary by default, or -o dump|csv|json|stats, and
// --plot FILE.svg. Counters are shown as rates, as pmval and pmrep do, unless
// -r. The time window, sampling and zone options are pmval's and pmrep's
// (-S -T -O -A -t -s -z -Z -i), with PCP's syntax.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "archiver/store/archive_reader.h"
#include "archiver/replay/plot_html.h"
#include "archiver/replay/plot_panels.h"
#include "archiver/replay/plot_svg.h"
#include "archiver/store/posix_file.h"
#include "archiver/replay/replay.h"
#include "cmd/cli.h"
#include "cmd/common.h"
#include "cmd/replay_csv.h"
#include "cmd/subcommand.h"
#include "cmd/time_zone.h"
#include "cmd/to_mmv.h"
#include "format/archive_format.h"
#include "format/json.h"
#include "format/pcp_interval.h"
#include "format/pcp_time.h"
#include "format/pm_desc_text.h"
#include "format/pm_units.h"

namespace mmvlog::cmd {
namespace {

using archiver::Timeline;

// The zone times are shown in: local, -z (the archive's) or -Z TZ.
absl::TimeZone g_zone = absl::LocalTimeZone();

std::string TimeText(format::Timestamp t, int digits = 3) {
  return absl::FormatTime(digits == 9 ? "%Y-%m-%d %H:%M:%E9S" : "%Y-%m-%d %H:%M:%E3S",
                          format::ToAbslTime(t), g_zone);
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
      const int32_t type = t.ColumnDesc(c).type;
      std::string value;
      if (v.kind != archiver::StoredValue::kString) {
        value = absl::StrCat("value ", v.Text());
      } else if (IsDecodedType(type)) {
        value = DecodedValueText(t, type, v.s, g_zone);
      } else {
        value = absl::StrCat("value ", format::JsonString(v.s));
      }
      std::printf("    %s (%s)%s %s\n", format::PmidString(col.pmid).c_str(), col.metric.c_str(),
                  col.instance.empty()
                      ? ""
                      : absl::StrCat(" inst [", col.inst, " or \"", col.instance, "\"]").c_str(),
                  value.c_str());
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
        const int32_t type = t.ColumnDesc(c).type;
        v = IsDecodedType(type) ? DecodedValueJson(t, type, value.s) : format::JsonString(value.s);
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

bool IsArchiveArg(const std::string& a) {
  struct stat st;
  return ::stat(a.c_str(), &st) == 0 || archiver::ArchiveFileExists(a, ".meta") ||
         archiver::ArchiveFileExists(a, ".0");
}

struct ReplayFlags {
  std::vector<std::string> archives;  // -a
  std::string interval;               // -t
  int64_t samples = 0;                // -s
  std::string start, finish, origin, align;  // -S -T -O -A
  bool hostzone = false;              // -z
  std::string timezone;               // -Z
  bool raw = false;                   // -r
  std::vector<std::string> instances; // -i
  std::vector<std::string> output;    // -o
  bool dump = false, csv = false, json = false, stats = false;
  std::string plot;
  std::string html;
  bool follow = false;
  std::string to_mmv;
  double speed = 1.0;
  bool utc_times = false;             // old spelling of -Z UTC
  std::vector<std::string> args;      // [ARCHIVE...] [METRIC...]
};

void AddReplayOptions(CLI::App* app, ReplayFlags* f) {
  const char* kSource = "Archives and metrics (as pmval, pmrep)";
  app->add_option("-a,--archive", f->archives,
                  "an archive: base name, any of its files, or a directory of archives read as "
                  "one timeline (repeatable; archives may also be given as arguments)")
      ->type_name("ARCHIVE")
      ->allow_extra_args(false)
      ->group(kSource);
  app->add_option("-i,--instances", f->instances,
                  "only these instances, by external name (comma separated or repeated)")
      ->type_name("INSTANCES")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->group(kSource);

  const char* kWindow = "Time window and sampling (PCPIntro(1) syntax)";
  app->add_option("-S,--start", f->start,
                  "start of the time window: an interval from the archive's start (30min), "
                  "-interval from its end (-1hour), or @datetime (@10:05, @\"2026-11-24 10:05\")")
      ->type_name("TIME")
      ->group(kWindow);
  app->add_option("-T,--finish", f->finish,
                  "end of the time window: an interval from its start (2h30m), -interval from "
                  "the archive's end, or @datetime")
      ->type_name("TIME")
      ->group(kWindow);
  app->add_option("-O,--origin", f->origin,
                  "first sample time within the window (with -t), same syntax as -S")
      ->type_name("TIME")
      ->group(kWindow);
  app->add_option("-A,--align", f->align,
                  "align the window's start to a multiple of this interval (with -t)")
      ->type_name("INTERVAL")
      ->group(kWindow);
  app->add_option("-t,--interval", f->interval,
                  "resample every INTERVAL (2sec, 1.5 min), interpolating as pmval -t does "
                  "(default: the recorded samples)")
      ->type_name("INTERVAL")
      ->group(kWindow);
  app->add_option("-s,--samples", f->samples, "show at most this many samples")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber)
      ->group(kWindow);
  app->add_flag("-z,--hostzone", f->hostzone,
                "show and read times in the archive host's time zone")
      ->group(kWindow);
  app->add_option("-Z,--timezone", f->timezone,
                  "show and read times in this time zone (UTC, Europe/Berlin, AEST-10)")
      ->type_name("TZ")
      ->group(kWindow);

  const char* kOutput = "Output";
  app->add_option("-o,--output", f->output,
                  "summary (the default), dump (every record, like pmdumplog -a), csv, json "
                  "(one object per sample) or stats; comma separated for several")
      ->type_name("FORMAT")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::IsMember({"summary", "dump", "csv", "json", "stats"}))
      ->group(kOutput);
  app->add_flag("--dump", f->dump, "-o dump")->group(kOutput);
  app->add_flag("--csv", f->csv, "-o csv")->group(kOutput);
  app->add_flag("--json", f->json, "-o json")->group(kOutput);
  app->add_flag("--stats", f->stats, "-o stats: min, mean, max and last per metric and instance")
      ->group(kOutput);
  app->add_flag("-r,--raw", f->raw, "show counters as stored, not as rates per second")
      ->group(kOutput);
  app->add_option("--plot", f->plot,
                  "draw the chosen metrics into this SVG file: one panel per unit, counters as "
                  "rates")
      ->type_name("FILE.svg")
      ->group(kOutput);
  app->add_option("--html", f->html,
                  "write one self-contained HTML page with interactive, zoomable charts, one per "
                  "unit, and the metrics' help text")
      ->type_name("FILE.html")
      ->group(kOutput);
  app->add_flag("--follow", f->follow,
                "keep reading archives still being written, across volume switches, printing "
                "new samples as they arrive (like tail -f); with csv, json or dump")
      ->group(kOutput);

  const char* kPlay = "Playing back as MMV";
  app->add_option("--to-mmv", f->to_mmv,
                  "play the recorded values back into MMV files in this directory at the "
                  "recorded pace, so live MMV consumers see the past run")
      ->type_name("DIR")
      ->group(kPlay);
  app->add_option("--speed", f->speed, "with --to-mmv: play back this many times faster")
      ->type_name("FACTOR")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->group(kPlay);

  app->add_option("args", f->args, "archives, then metric names or globs")->group("");
  HiddenAlias(app, "--to_mmv", f->to_mmv);
  HiddenFlagAlias(app, "--utc_times", f->utc_times);
}

// The zone of the first archive's label (-z): its zoneinfo, else its TZ.
absl::StatusOr<absl::TimeZone> ArchiveZone(const std::string& name) {
  std::string path = name;
  struct stat st;
  if (::stat(name.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    // A directory of archives: the first by name, as they sort in time.
    std::vector<std::string> metas;
    if (DIR* d = ::opendir(name.c_str())) {
      while (dirent* e = ::readdir(d)) {
        const std::string base = archiver::MetaFileBase(e->d_name);
        if (!base.empty()) metas.push_back(absl::StrCat(name, "/", base));
      }
      ::closedir(d);
    }
    if (metas.empty()) return absl::NotFoundError(absl::StrCat("no archive in ", name));
    path = *std::min_element(metas.begin(), metas.end());
  }
  absl::StatusOr<std::unique_ptr<archiver::ArchiveReader>> r = archiver::ArchiveReader::Open(path);
  if (!r.ok()) return r.status();
  const format::LogLabel& label = (*r)->label();
  return LoadPcpTimeZone(label.zoneinfo.empty() ? label.timezone : label.zoneinfo);
}

int RunReplayShowing(const ReplayFlags& f, const Invocation& inv, bool* damaged);

// Damage met while reading is reported with what came before it, then the
// exit status says so (1), as for any run-time failure.
int RunReplay(const ReplayFlags& f, const Invocation& inv) {
  bool damaged = false;
  const int rc = RunReplayShowing(f, inv, &damaged);
  return rc == kExitOk && damaged ? kExitFailure : rc;
}

int RunReplayShowing(const ReplayFlags& f, const Invocation& inv, bool* damaged) {
  if (!inv.command.empty()) return UsageError("replay", "takes no command after --");
  std::vector<std::string> archives = f.archives, metrics;
  for (const std::string& a : f.args) (IsArchiveArg(a) ? archives : metrics).push_back(a);
  if (archives.empty() && f.args.empty()) {
    return UsageError("replay", "name an archive: -a ARCHIVE (base name, any of its files, or a "
                                "directory of archives)");
  }
  if (archives.empty()) {
    // The first argument was meant as the archive: it is not there.
    std::fprintf(stderr, "mmvlog replay: cannot open archive %s: no such archive\n",
                 f.args[0].c_str());
    return kExitFailure;
  }
  for (const std::string& a : f.archives) {
    if (!IsArchiveArg(a)) {
      std::fprintf(stderr, "mmvlog replay: -a %s: no such archive\n", a.c_str());
      return kExitFailure;
    }
  }
  // Syntax first, so that a bad option is a usage error before any reading.
  std::optional<absl::Duration> step;
  if (!f.interval.empty()) {
    absl::StatusOr<absl::Duration> d = format::ParsePcpInterval(f.interval);
    if (!d.ok()) return UsageError("replay", absl::StrCat("-t: ", d.status().message()));
    step = *d;
  }
  if (!f.timezone.empty() && f.hostzone) return UsageError("replay", "-z and -Z exclude each other");
  if (!f.timezone.empty()) {
    absl::StatusOr<absl::TimeZone> zone = LoadPcpTimeZone(f.timezone);
    if (!zone.ok()) return UsageError("replay", absl::StrCat("-Z: ", zone.status().message()));
    g_zone = *zone;
  } else if (f.utc_times) {
    g_zone = absl::UTCTimeZone();
  }
  bool dump = f.dump, csv = f.csv, json = f.json, stats = f.stats;
  for (const std::string& o : f.output) {
    dump |= o == "dump", csv |= o == "csv", json |= o == "json", stats |= o == "stats";
  }
  const bool summary = std::find(f.output.begin(), f.output.end(), "summary") != f.output.end();

  // The window's start found first, from the recording's ends, so that the
  // archives are entered there (by their .index) rather than read whole.
  // The dump shows every record, as pmdumplog does.
  format::TimeWindowSpec spec;
  spec.start = f.start;
  spec.end = f.finish;
  spec.align = f.align;
  spec.origin = f.origin;
  std::optional<archiver::TimelineEnds> ends;
  std::optional<absl::StatusOr<Timeline>> seeked;
  if (!f.start.empty() && !f.follow) {
    ends = archiver::ReadTimelineEnds(archives, metrics, dump);
    if (ends) {
      absl::StatusOr<format::TimeWindow> window = format::ResolveTimeWindow(
          spec, format::ToAbslTime(ends->first), format::ToAbslTime(ends->last), g_zone);
      if (window.ok()) {
        const absl::Time start = step ? std::min(window->start, window->origin) : window->start;
        seeked = archiver::ReadTimelineFrom(archives, metrics, dump, format::ToTimestamp(start));
      }
    }
  }
  absl::StatusOr<Timeline> t =
      seeked ? std::move(*seeked) : archiver::ReadTimeline(archives, metrics, dump);
  if (!t.ok()) {
    std::fprintf(stderr, "mmvlog replay: %s\n", std::string(t.status().message()).c_str());
    return kExitFailure;
  }
  for (const std::string& p : t->problems) std::fprintf(stderr, "mmvlog replay: warning: %s\n", p.c_str());
  for (const std::string& p : t->damaged) std::fprintf(stderr, "mmvlog replay: %s\n", p.c_str());
  *damaged = !t->damaged.empty();
  if (!metrics.empty() && t->columns.empty()) {
    std::fprintf(stderr, "mmvlog replay: no metric matches %s; 'mmvlog replay -a ARCHIVE' lists them\n",
                 absl::StrJoin(metrics, ", ").c_str());
    return kExitFailure;
  }
  if (f.hostzone) {
    absl::StatusOr<absl::TimeZone> zone = ArchiveZone(archives.front());
    if (!zone.ok()) {
      std::fprintf(stderr, "mmvlog replay: -z: %s\n", std::string(zone.status().message()).c_str());
      return kExitFailure;
    }
    g_zone = *zone;
  }
  if (!f.instances.empty()) {
    std::vector<std::string> unmatched;
    *t = archiver::KeepInstances(*t, f.instances, &unmatched);
    if (!unmatched.empty()) {
      std::fprintf(stderr, "mmvlog replay: -i: no instance %s in the chosen metrics\n",
                   absl::StrJoin(unmatched, ", ").c_str());
      return kExitFailure;
    }
  }
  absl::Time from = absl::InfinitePast(), to = absl::InfiniteFuture();
  if (!t->rows.empty()) {
    // (Rows before the window may not have been read: the ends as found.)
    const absl::Time first = format::ToAbslTime(ends ? ends->first : t->rows.front().time);
    const absl::Time last = format::ToAbslTime(ends ? ends->last : t->rows.back().time);
    absl::StatusOr<format::TimeWindow> window = format::ResolveTimeWindow(spec, first, last, g_zone);
    if (!window.ok()) return UsageError("replay", window.status().message());
    if (!window->warning.empty()) {
      std::fprintf(stderr, "mmvlog replay: warning: %s\n", window->warning.c_str());
    }
    // Unbounded unless asked: --follow shows what is recorded after now.
    if (!f.start.empty() || !f.align.empty()) from = window->start;
    if (!f.finish.empty()) to = window->end;
    if (step) {
      *t = archiver::Interpolate(*t, window->origin, window->end, *step);
      // As pmval and pmrep: a rate needs two grid points, so with counters
      // shown as rates the table starts at the second one.
      bool rates = false;
      for (size_t c = 0; c < t->columns.size(); ++c) {
        rates |= !f.raw && t->ColumnDesc(c).sem == format::kSemCounter;
      }
      if (rates && !t->rows.empty()) from = std::max(from, window->origin + absl::Nanoseconds(1));
    }
  } else if (!f.start.empty() || !f.finish.empty()) {
    // Nothing recorded: no window to place the times in, but their syntax
    // can still be checked.
    format::TimeWindowSpec spec;
    spec.start = f.start;
    spec.end = f.finish;
    const absl::Time now = absl::Now();
    absl::StatusOr<format::TimeWindow> window = format::ResolveTimeWindow(spec, now, now, g_zone);
    if (!window.ok()) return UsageError("replay", window.status().message());
  }
  auto select = [&](const Timeline& tl, std::optional<format::Timestamp> after) {
    std::vector<size_t> rows;
    int64_t samples = 0;
    for (size_t r = 0; r < tl.rows.size(); ++r) {
      const absl::Time when = format::ToAbslTime(tl.rows[r].time);
      if (when < from || when > to) continue;
      if (after && !(*after < tl.rows[r].time)) continue;
      if (!tl.rows[r].mark && f.samples > 0 && samples++ >= f.samples) break;
      rows.push_back(r);
    }
    return rows;
  };
  std::vector<size_t> rows = select(*t, std::nullopt);
  if (!f.to_mmv.empty()) {
    InstallStopSignals();
    if (absl::Status s = PlayToMmv(*t, rows, f.to_mmv, f.speed); !s.ok()) {
      std::fprintf(stderr, "mmvlog replay: --to-mmv: %s\n", std::string(s.message()).c_str());
      return kExitFailure;
    }
    return kExitOk;
  }
  if (f.follow) {
    if (!csv && !json && !dump) {
      return UsageError("replay", "--follow needs -o csv, json or dump");
    }
    InstallStopSignals();
    bool header = true;
    std::optional<format::Timestamp> printed;
    for (;;) {
      std::vector<size_t> fresh = select(*t, printed);
      if (dump) PrintDump(*t, fresh);
      if (csv) PrintCsv(*t, fresh, f.raw, header);
      if (json) PrintJson(*t, fresh, f.raw);
      std::fflush(stdout);
      header = false;
      if (!fresh.empty()) printed = t->rows[fresh.back()].time;
      if (!SleepUntil(absl::Now() + absl::Seconds(1))) return kExitOk;
      // Re-read: new records, new volumes, new archives in a directory.
      absl::StatusOr<Timeline> again = archiver::ReadTimeline(archives, metrics, dump);
      if (again.ok()) *t = std::move(*again);
    }
  }
  int outputs = 0;
  if (dump) ++outputs, PrintDump(*t, rows);
  if (csv) ++outputs, PrintCsv(*t, rows, f.raw);
  if (json) ++outputs, PrintJson(*t, rows, f.raw);
  if (stats) ++outputs, PrintStats(*t, rows, f.raw);
  std::fflush(stdout);
  archiver::PlotOptions plot_options;
  plot_options.raw = f.raw;
  plot_options.zone = g_zone;
  for (const auto& [file, what] : {std::pair{f.plot, "--plot"}, std::pair{f.html, "--html"}}) {
    if (file.empty()) continue;
    ++outputs;
    const std::string page = std::string(what) == "--plot"
                                 ? archiver::RenderSvg(*t, rows, plot_options)
                                 : archiver::RenderHtml(*t, rows, plot_options);
    if (absl::Status s = archiver::WriteFileAtomically(
            file, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(page.data()),
                                           page.size()));
        !s.ok()) {
      std::fprintf(stderr, "mmvlog replay: %s: %s\n", what, s.ToString().c_str());
      return kExitFailure;
    }
    std::fprintf(stderr, "mmvlog replay: %s written to %s\n",
                 std::string(what) == "--plot" ? "plot" : "page", file.c_str());
  }
  if (outputs == 0 || summary) PrintSummary(*t);
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace

Runner DefineReplay(CLI::App* app) {
  auto f = std::make_shared<ReplayFlags>();
  AddReplayOptions(app, f.get());
  return [f](const Invocation& inv) { return RunReplay(*f, inv); };
}

}  // namespace mmvlog::cmd

// mmvlog replay [-a] ARCHIVE... [METRIC...]: offline analysis of PCP archives
// (ours or PCP's): a summary by default, or -o dump|csv|json|stats|text,
// --plot FILE.svg and --html FILE.html. Counters are shown as rates, as pmval
// and pmrep do, unless -r. The time window, sampling and zone options are
// pmval's and pmrep's (-S -T -O -A -t -s -z -Z -i), with PCP's syntax. This
// file parses the options and wires the outputs; the pipeline is
// archiver/replay/replay.h.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "archiver/replay/output/csv_output.h"
#include "archiver/replay/output/pmrep_rank_output.h"
#include "archiver/replay/output/pmrep_run_text.h"
#include "archiver/replay/output/pmrep_csv_output.h"
#include "archiver/replay/output/pmrep_text_output.h"
#include "archiver/replay/output/dump_output.h"
#include "archiver/replay/output/json_output.h"
#include "archiver/replay/output/mmv_playback.h"
#include "archiver/replay/plot/plot_output.h"
#include "archiver/replay/replay.h"
#include "archiver/replay/output/stats_output.h"
#include "archiver/replay/output/summary_output.h"
#include "archiver/replay/output/text_output.h"
#include "archiver/store/archive_reader.h"
#include "archiver/store/time_zone.h"
#include "cmd/cli.h"
#include "cmd/pmrep_sets.h"
#include "cmd/common.h"
#include "cmd/derived_files.h"
#include "cmd/subcommand.h"
#include "format/archive/archive_format.h"
#include "format/derive/derive_config.h"
#include "format/text/pcp_interval.h"
#include "format/text/pcp_time.h"

namespace mmvlog::cmd {
namespace {

bool IsArchiveArg(const std::string& a) {
  struct stat st;
  return ::stat(a.c_str(), &st) == 0 || archiver::ArchiveFileExists(a, ".meta") ||
         archiver::ArchiveFileExists(a, ".0");
}

struct ReplayFlags {
  std::vector<std::string> archives;  // -a
  std::string interval;               // -t
  int64_t samples = -1;               // -s (-1: not given)
  std::string start, finish, origin, align;  // -S -T -O -A
  bool hostzone = false;              // -z
  std::string timezone;               // -Z
  bool raw = false;                   // -r
  std::vector<std::string> instances; // -i
  std::vector<std::string> derived;   // -e
  std::vector<std::string> output;    // -o
  bool dump = false, csv = false, json = false, stats = false, text = false;
  std::string plot;
  std::string html;
  std::string output_file;  // -F
  bool follow = false;
  std::string to_mmv;
  double speed = 1.0;
  bool check = false;                 // -C
  bool delay = false;                 // -d
  bool utc_times = false;             // old spelling of -Z UTC
  std::vector<std::string> args;      // [ARCHIVE...] [METRIC...]
  std::string interpolation = "auto";  // --interpolation
  // pmrep's metric sets and report options (cmd/pmrep_sets.h).
  PmrepCommandLine pmrep;
};

// pmrep's options for its metric sets, spelled as pmrep spells them.
void AddPmrepOptions(CLI::App* app, ReplayFlags* f) {
  const char* kSets = "pmrep metric sets (:SET arguments, pmrep.conf(5))";
  app->add_option("-c,--config", f->pmrep.config,
                  "pmrep.conf file or directory of *.conf files (default: as pmrep searches: "
                  "./pmrep.conf, ~/.pmrep.conf, ~/.pcp/pmrep.conf, $PCP_SYSCONF_DIR/pmrep)")
      ->type_name("FILE")
      ->group(kSets);
  app->add_flag("-H,--no-header", f->pmrep.no_header, "omit the CSV header line")->group(kSets);
  app->add_option("-6,--sort-metric", f->pmrep.sort_metric,
                  "with -X, order each row's instances by these metrics' values (-METRIC: "
                  "lowest first), as pmrep")
      ->type_name("METRIC[,...]")
      ->group(kSets);
  app->add_option("-4,--names-change", f->pmrep.names_change,
                  "as pmrep: update (as -1); ignore and abort change nothing in an archive")
      ->type_name("ACTION")
      ->group(kSets);
  app->add_option("-l,--delimiter", f->pmrep.delimiter, "separate CSV columns with STR")
      ->type_name("STR")
      ->group(kSets);
  app->add_option("-f,--timestamp-format", f->pmrep.timefmt, "strftime format of the CSV times")
      ->type_name("STR")
      ->group(kSets);
  app->add_option("-P,--precision", f->pmrep.precision, "prefer N digits after the decimal point")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber)
      ->group(kSets);
  app->add_option("-0,--precision-force", f->pmrep.precision_force, "force N digits after the decimal point")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber)
      ->group(kSets);
  // pmrep's switches, each a flag.
  for (auto [name, to, what] : {
           std::tuple{"-k,--extended-csv", &f->pmrep.extended_csv,
                      "CSV rows begin with the host and the seconds since the last row, and "
                      "their times end with the zone's offset, as pmrep -k"},
           {"-x,--extended-header", &f->pmrep.extended_header,
            "begin with pmrep's extended header (archive, host, zone, window, metrics, "
            "samples, interval, duration)"},
           {"-g,--separate-header", &f->pmrep.separate_header,
            "pmrep's table headed by its columns' numbers, each listed first with its "
            "metric, instance and units"},
           {"-2,--overall-rank", &f->pmrep.overall_rank,
            "no rows: at the end, each metric's -J best instances over the whole replay"},
           {"-3,--overall-rank-alt", &f->pmrep.overall_rank_alt,
            "as -2, a line per metric: metric,,\"'instance',...\""},
           {"-1,--dynamic-header", &f->pmrep.dynamic_header,
            "pmrep's report of the instances each row has values for, the header again "
            "when they change (not with -X)"},
           {"-j,--live-filter", &f->pmrep.live_filter,
            "every instance a column, each row's values only of instances whose current name "
            "-i (or the spec) matches"},
           {"-7,--fixed-header", &f->pmrep.fixed_header,
            "as pmrep -7 (without -X it changes nothing; with -X it is not supported)"},
           {"-R,--raw-prefer", &f->pmrep.raw_prefer,
            "counters as stored where a metric's spec does not say"},
           {"-5,--ignore-unknown", &f->pmrep.ignore_unknown, "leave out metrics the archives lack"},
           {"-I,--ignore-incompat", &f->pmrep.ignore_incompat,
            "leave out metrics pmrep cannot show (their type, instances or units)"},
           {"-G,--no-globals", &f->pmrep.no_globals, "leave out the [global] metrics"},
           {"-C,--check", &f->check, "print the headers only (pmrep's check of a set)"},
           {"-d,--delay", &f->delay, "pause the interval between rows on a grid, as pmrep -d"}}) {
    app->add_flag(name, *to, what)->group(kSets);
  }
  app->add_flag("-n,--invert-filter", f->pmrep.invert_filter,
                "with -j, the live filter after the ranking (as pmrep)")
      ->group(kSets);
  for (auto [name, to, what] :
       {std::tuple{"-8,--limit-filter", &f->pmrep.limit_filter,
                   "hide values below N (above -N) where a metric does not say"},
        {"-9,--limit-filter-force", &f->pmrep.limit_filter_force,
         "hide values below N (above -N) in every column"},
        {"-J,--rank", &f->pmrep.rank,
         "show each metric's N highest values a row (-N: lowest)"}}) {
    app->add_option(name, *to, what)->type_name("N")->group(kSets);
  }
  // pmrep's options for reports replay does not print: refused, naming
  // the option, rather than read as metric names or unknown options.
  for (const char* name : {"-m,--include-labels", "--include-texts", "--daemonize"}) {
    app->add_flag_callback(name, [f, name] { f->pmrep.refused.push_back(name); },
                           "pmrep's; not supported by replay")
        ->group("");  // not in --help: refused
  }
  app->add_option("-N,--predicate", f->pmrep.predicate,
                  "show only the instances these metrics (comma separated) keep after -J of "
                  "the other metrics of their instance domains")
      ->type_name("METRIC")
      ->group(kSets);
  for (const char* name : {"-K,--spec-local"}) {
    app->add_option_function<std::string>(
           name, [f, name](const std::string&) { f->pmrep.refused.push_back(name); },
           "pmrep's; not supported by replay")
        ->type_name("ARG")
        ->group("");  // not in --help: refused
  }
  app->add_flag("-p,--timestamps", f->pmrep.timestamps, "times in pmrep's table")->group(kSets);
  app->add_flag("-U,--no-unit-info", f->pmrep.no_unit_info, "no units line in pmrep's table")
      ->group(kSets);
  app->add_flag("--no-inst-info", f->pmrep.no_inst_info, "no instances line in pmrep's table")
      ->group(kSets);
  app->add_option("-w,--width", f->pmrep.width, "column width in pmrep's table where a metric does not say")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber)
      ->group(kSets);
  app->add_option("-W,--width-force", f->pmrep.width_force, "every column's width in pmrep's table")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber)
      ->group(kSets);
  app->add_flag("-v,--omit-flat", f->pmrep.omit_flat, "leave out the set's metrics without instances")
      ->group(kSets);
  app->add_flag("-u,--no-interpolation", f->pmrep.no_interpolation,
                "a set's rows at the archive's records, as pmrep -u (not on a grid)")
      ->group(kSets);
  app->add_option("-X,--colxrow", f->pmrep.colxrow,
                  "pmrep's table with columns and rows swapped, STR heading the instances")
      ->type_name("STR")
      ->group(kSets);
  app->add_option("-E,--repeat-header", f->pmrep.repeat_header,
                  "repeat pmrep's table header every N rows (or auto)")
      ->type_name("N")
      ->group(kSets);
  for (auto [name, to, what] :
       {std::tuple{"-q,--count-scale", &f->pmrep.count_scale, "default count unit"},
        {"-b,--space-scale", &f->pmrep.space_scale, "default space unit (KB, MB, ...)"},
        {"-y,--time-scale", &f->pmrep.time_scale, "default time unit (ms, s, ...)"},
        {"-Q,--count-scale-force", &f->pmrep.count_scale_force, "forced count unit"},
        {"-B,--space-scale-force", &f->pmrep.space_scale_force, "forced space unit"},
        {"-Y,--time-scale-force", &f->pmrep.time_scale_force, "forced time unit"}}) {
    app->add_option(name, *to, what)->type_name("SCALE")->group(kSets);
  }
}

// One piece: a list of option declarations.
void AddReplayOptions(CLI::App* app, ReplayFlags* f) {
  const char* kSource = "Archives and metrics (as pmval, pmrep)";
  app->add_option("-a,--archive", f->archives,
                  "an archive: base name, any of its files, or a directory of archives read as "
                  "one timeline (comma separated or repeatable, as pmval's and pmrep's -a; "
                  "archives may also be given as arguments)")
      ->type_name("ARCHIVE")
      ->allow_extra_args(false)
      ->group(kSource);
  app->add_option("-i,--instances", f->instances,
                  "only these instances, by external name (comma separated or repeated)")
      ->type_name("INSTANCES")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->group(kSource);

  app->add_option("-e,--derived", f->derived,
                  "derived metrics as pmrep takes them: \"name=expression\" (several separated "
                  "by ';'), or a file of them (a path starting with / or ., as "
                  "pmLoadDerivedConfig reads); name them as metrics to show them "
                  "(pmRegisterDerived(3) language)")
      ->type_name("FILE|DFNT")
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
  app->add_option("-s,--samples", f->samples,
                  "show at most this many samples (0: pmrep's all, but none in the text "
                  "table, as pmval -s 0)")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber)
      ->group(kWindow);
  app->add_option("--interpolation", f->interpolation,
                  "instant and discrete values between samples (with -t): nearest (the nearer "
                  "sample, PCP 6.3.2 and later), prior (the sample before, earlier PCP), or "
                  "auto: as the installed PCP (PCP_VERSION in $PCP_CONF or /etc/pcp.conf; "
                  "nearest without one)")
      ->type_name("RULE")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "nearest", "prior"}))
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
                  "summary (the default), dump (every record, like pmdumplog -a), csv (rows as "
                  "pmrep -o csv), json (one object per row), stats, or text (a table as pmval "
                  "prints one; stdout, pmrep's name for it); comma separated for several")
      ->type_name("FORMAT")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::IsMember({"summary", "dump", "csv", "json", "stats", "text", "stdout"}))
      ->group(kOutput);
  app->add_flag("--dump", f->dump, "-o dump")->group(kOutput);
  app->add_flag("--csv", f->csv, "-o csv")->group(kOutput);
  app->add_flag("--json", f->json, "-o json")->group(kOutput);
  app->add_flag("--stats", f->stats, "-o stats: min, mean, max and last per metric and instance")
      ->group(kOutput);
  app->add_flag("--text", f->text, "-o text: a table as pmval prints one")->group(kOutput);
  app->add_flag("-r,--raw", f->raw, "show counters as stored, not as rates per second")
      ->group(kOutput);
  app->add_option("-F,--output-file", f->output_file,
                  "write what would go to standard output to this new file instead, as "
                  "pmrep -F (an existing one is refused)")
      ->type_name("FILE")
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
                "new samples as they arrive (like tail -f); with csv, json, text or dump")
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

  AddPmrepOptions(app, f);
  app->add_option("args", f->args,
                  "archives, then metric names or globs, pmrep metric sets (:vmstat) or "
                  "pmrep's compact specs (metric,label,instances,unit,type,width,precision,limit)")
      ->group("");
  HiddenAlias(app, "--to_mmv", f->to_mmv);
  HiddenFlagAlias(app, "--utc_times", f->utc_times);
}

int RunReplayShowing(const ReplayFlags& f, const Invocation& inv, bool* damaged);

// Damage met while reading is reported with what came before it, then the
// exit status says so (1), as for any run-time failure.
int RunReplay(const ReplayFlags& f, const Invocation& inv) {
  bool damaged = false;
  const int rc = RunReplayShowing(f, inv, &damaged);
  return rc == kExitOk && damaged ? kExitFailure : rc;
}

// -e's definitions, in the order given. NotFound for a file that cannot be
// read, InvalidArgument for text that is not definitions.
absl::StatusOr<std::vector<format::DerivedDefinition>> DerivedDefinitions(
    const std::vector<std::string>& args) {
  std::vector<format::DerivedDefinition> out;
  for (const std::string& e : args) {
    absl::StatusOr<std::vector<format::DerivedDefinition>> defs = DerivedFromArgument(e);
    if (!defs.ok()) {
      if (absl::IsNotFound(defs.status())) {
        return absl::NotFoundError(absl::StrCat("-e ", defs.status().message()));
      }
      return defs.status();
    }
    out.insert(out.end(), defs->begin(), defs->end());
  }
  return out;
}

// Whether the PCP installed here (PCP_VERSION in $PCP_CONF or
// /etc/pcp.conf) is older than major.minor.patch: its pmval and pmrep are
// what a user compares replay with, where PCP's versions differ.
bool InstalledPcpBefore(int major, int minor, int patch) {
  const std::string v = PcpConfValue("PCP_VERSION", "");
  std::vector<int> parts;
  for (absl::string_view p : absl::StrSplit(v, '.')) {
    int n = 0;
    if (!absl::SimpleAtoi(p, &n)) return false;
    parts.push_back(n);
  }
  parts.resize(3, 0);
  return v.size() > 0 &&
         std::make_tuple(parts[0], parts[1], parts[2]) < std::make_tuple(major, minor, patch);
}

// The command line's part of a pmrep report.
PmrepCommandLine PmrepLine(const ReplayFlags& f, const std::vector<std::string>& items) {
  PmrepCommandLine cl = f.pmrep;
  cl.items = items;
  cl.raw = f.raw;
  cl.instances = f.instances;
  return cl;
}

// The archives as pmrep names them (libpcp's pmGetOptions: each -a's text
// added after a comma, unless the list already holds it whole; the first
// place strstr finds it decides).
std::string PmrepSource(const std::vector<std::string>& args) {
  std::string list;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (i > 0) {
      const size_t found = list.find(a);
      if (found != std::string::npos && (found == 0 || list[found - 1] == ',') &&
          (found + a.size() == list.size() || list[found + a.size()] == ',')) {
        continue;
      }
      list += ",";
    }
    list += a;
  }
  return list;
}

int Fail(absl::string_view what) {
  std::fprintf(stderr, "mmvlog replay: %s\n", std::string(what).c_str());
  return kExitFailure;
}

// One piece: pmval's and pmrep's checks in their order, each a few lines
// (usage errors before any reading, then the archives, then the outputs).
int RunReplayShowing(const ReplayFlags& f, const Invocation& inv, bool* damaged) {
  if (!inv.command.empty()) return UsageError("replay", "takes no command after --");
  // With -a every argument is a metric, as for pmrep and pmval (a file or
  // directory of that name in the working directory, an "mmv" directory or
  // a PCP QA archive named "pmproxy", is not taken for an archive).
  // -a's names, comma separated as pmval's and pmrep's.
  std::vector<std::string> archives, metrics;
  for (const std::string& a : f.archives) {
    for (absl::string_view name : absl::StrSplit(a, ',', absl::SkipEmpty())) {
      archives.emplace_back(name);
    }
  }
  for (const std::string& a : f.args) {
    (f.archives.empty() && IsArchiveArg(a) ? archives : metrics).push_back(a);
  }
  if (archives.empty() && f.args.empty()) {
    return UsageError("replay", "name an archive: -a ARCHIVE (base name, any of its files, or a "
                                "directory of archives)");
  }
  if (archives.empty()) {
    // The first argument was meant as the archive: it is not there.
    return Fail(absl::StrCat("cannot open archive ", f.args[0], ": no such archive"));
  }
  for (const std::string& a : archives) {
    if (!IsArchiveArg(a)) return Fail(absl::StrCat("-a ", a, ": no such archive"));
  }
  // Syntax first, so that a bad option is a usage error before any reading.
  archiver::ReplayPlan plan;
  if (!f.interval.empty()) {
    absl::StatusOr<absl::Duration> d = format::ParsePcpInterval(f.interval);
    if (!d.ok()) return UsageError("replay", absl::StrCat("-t: ", d.status().message()));
    plan.interval = *d;
  }
  if (!f.timezone.empty() && f.hostzone) return UsageError("replay", "-z and -Z exclude each other");
  plan.zone = archiver::LocalPcpTimeZone();
  if (!f.timezone.empty()) {
    absl::StatusOr<absl::TimeZone> zone = archiver::LoadPcpTimeZone(f.timezone);
    if (!zone.ok()) return UsageError("replay", absl::StrCat("-Z: ", zone.status().message()));
    plan.zone = *zone;
  } else if (f.utc_times) {
    plan.zone = absl::UTCTimeZone();
  }
  bool dump = f.dump, csv = f.csv, json = f.json, stats = f.stats, text = f.text;
  for (const std::string& o : f.output) {
    dump |= o == "dump", csv |= o == "csv", json |= o == "json", stats |= o == "stats";
    text |= o == "text" || o == "stdout";
  }
  const bool summary = std::find(f.output.begin(), f.output.end(), "summary") != f.output.end();
  if (f.follow && !csv && !json && !dump && !text) {
    return UsageError("replay", "--follow needs -o csv, json, text or dump");
  }

  absl::StatusOr<std::vector<format::DerivedDefinition>> derived = DerivedDefinitions(f.derived);
  if (!derived.ok()) {
    return absl::IsNotFound(derived.status()) ? Fail(derived.status().message())
                                              : UsageError("replay", derived.status().message());
  }
  if (!derived->empty() && dump) {
    return UsageError("replay", "-e: derived metrics are shown in rows (csv, json, text, stats, "
                                "summary, plots), not in the dump of records");
  }
  if (!f.pmrep.refused.empty()) {
    std::string option = f.pmrep.refused.front();  // "-J,--rank" as declared
    if (const size_t comma = option.find(','); comma != std::string::npos) {
      option = absl::StrCat(option.substr(0, comma), " (", option.substr(comma + 1), ")");
    }
    return Fail(absl::StrCat("pmrep option ", option,
                             " is not supported by replay: its report would not be pmrep's; "
                             "leave it out, or use pmrep"));
  }
  // A pmrep metric set: its metrics, formulas and options, pmrep's 1 s
  // grid unless -t or the set says otherwise, and pmrep's CSV.
  std::optional<PmrepResolved> pmrep;
  int64_t samples = std::max<int64_t>(f.samples, 0);
  if (WantsPmrepReport(f.pmrep, metrics)) {
    absl::StatusOr<PmrepResolved> r = ResolvePmrep(PmrepLine(f, metrics));
    if (!r.ok()) return Fail(r.status().message());
    pmrep = *std::move(r);
    derived->insert(derived->begin(), pmrep->derived.begin(), pmrep->derived.end());
    metrics.clear();
    for (const format::PmrepMetric& m : pmrep->options.metrics) metrics.push_back(m.name);
    for (const PmrepUnsupported& u : pmrep->unsupported) {
      // What pmrep would print differs from what replay can: nothing
      // rather than another report.
      const bool applies = u.key != "fixed_header";
      if (applies || (text && pmrep->colxrow.has_value())) {
        return Fail(absl::StrCat("pmrep option ", u.key, " (set in ", u.where,
                                 ") is not supported by replay: its report would not be "
                                 "pmrep's; remove it, or use pmrep"));
      }
    }
    const bool chosen = dump || json || stats || csv || text || !f.plot.empty() || !f.html.empty();
    if (pmrep->output && !chosen) {
      if (*pmrep->output == "csv") {
        csv = true;
      } else if (*pmrep->output == "stdout") {
        text = true;
      } else if (*pmrep->output == "archive") {
        return Fail("output = archive: replay writes no archives (pmrep -o archive does; "
                    "mmvlog capture and record write them from MMV files)");
      } else {
        return Fail("Error while parsing options: Invalid output target specified.");
      }
    }
    // -u (or interpol = no): the records, whatever -t says (pmapi.py's
    // get_mode_step takes no step then).
    const bool no_interpolation = f.pmrep.no_interpolation || !pmrep->interpolate;
    if (no_interpolation) plan.interval.reset();
    if (!plan.interval && !no_interpolation) {
      const std::string t = pmrep->interval.empty() ? "1" : pmrep->interval;
      absl::StatusOr<absl::Duration> d = format::ParsePcpInterval(t);
      if (!d.ok()) return UsageError("replay", absl::StrCat("interval: ", d.status().message()));
      plan.interval = *d;
    }
    if (f.samples < 0 && !pmrep->samples.empty() && !absl::SimpleAtoi(pmrep->samples, &samples)) {
      return UsageError("replay", absl::StrCat("samples: not a number: ", pmrep->samples));
    }
    // pmrep's table by default, as pmrep's stdout output.
    if (!dump && !json && !stats && !csv && f.plot.empty() && f.html.empty()) text = true;
    if (pmrep->overall_rank && pmrep->options.rank == 0) {
      return Fail("Overall ranking requires ranking enabled.");
    }
    if (pmrep->overall_rank && (csv || json || dump || stats)) {
      return Fail("Overall ranking supported only with archive input and stdout output.");
    }
    if (pmrep->dynamic_header && text && pmrep->colxrow) {
      return Fail("pmrep option -1 (--dynamic-header) with -X is not supported by replay: its "
                  "report would not be pmrep's; leave it out, or use pmrep");
    }
    if (f.pmrep.fixed_header && text && pmrep->colxrow) {
      // Rows of the instances each fetch has: not replay's table.
      return Fail("pmrep option -7 (--fixed-header) with -X is not supported by replay: its "
                  "report would not be pmrep's; leave it out, or use pmrep");
    }
  }
  if (!metrics.empty() && !dump) {
    // Named metrics may be PCP's global derived ones (kernel.cpu.util.user);
    // they come first, as libpcp's lookup finds them first.
    std::vector<format::DerivedDefinition> global = GlobalDerivedDefinitions();
    derived->insert(derived->begin(), global.begin(), global.end());
  }
  archiver::Selection selection;
  selection.metrics = metrics;
  selection.logger_records = dump;  // the dump shows every record, as pmdumplog does
  if (!pmrep) selection.instances = f.instances;
  // ?: binds lazily from PCP 6.2.2 (format::CheckDerived), extra units are
  // PCP 7.2's: the installed PCP's rules.
  archiver::DeriveRules rules;
  rules.lazy_ternary = !InstalledPcpBefore(6, 2, 2);
  rules.extra_units = !InstalledPcpBefore(7, 2, 0);
  absl::StatusOr<archiver::Replay> replay =
      archiver::Replay::Open(archives, selection, *derived, rules);
  if (!replay.ok()) return Fail(replay.status().message());
  std::vector<archiver::PmrepColumn> pmrep_columns;
  std::vector<std::pair<size_t, bool>> sort_metrics;  // -6
  if (pmrep) {
    absl::StatusOr<std::vector<archiver::PmrepColumn>> laid =
        archiver::LayOutPmrepColumns(pmrep->options, replay->columns(), replay->unbound_derived());
    if (!laid.ok()) return Fail(laid.status().message());
    pmrep_columns = *std::move(laid);
    // -6's metrics, checked as pmrep checks them.
    for (absl::string_view s : absl::StrSplit(pmrep->sort_metric, ',', absl::SkipEmpty())) {
      const bool highest = !absl::ConsumePrefix(&s, "-");
      auto it = std::find_if(pmrep_columns.begin(), pmrep_columns.end(),
                             [&](const archiver::PmrepColumn& c) { return c.metric_name == s; });
      if (it == pmrep_columns.end()) {
        return Fail(absl::StrCat("Sort reference metric ", s, " not part of metrics."));
      }
      if (it->instance.empty()) return Fail("Sort reference metric must have instances.");
      sort_metrics.emplace_back(it->metric, highest);
    }
  }
  if (!metrics.empty() && replay->columns().metrics().empty()) {
    return Fail(absl::StrCat("no metric matches ", absl::StrJoin(metrics, ", "),
                             "; 'mmvlog replay -a ARCHIVE' lists them"));
  }
  if (const std::vector<std::string>& unmatched = replay->columns().unmatched_instances();
      !unmatched.empty()) {
    // pmrep shows the instances that exist and ignores the others; pmval
    // (the text table alone) refuses an instance its metric does not have,
    // and ignores -i for a metric without instances.
    const std::string what = absl::StrCat("-i: no instance ", absl::StrJoin(unmatched, ", "),
                                          " in the chosen metrics");
    bool instances = false;
    for (const archiver::ReplayMetric& m : replay->columns().metrics()) {
      instances |= m.desc.indom != format::kIndomNull;
    }
    if (replay->columns().size() == 0 || (text && !csv && !json && instances)) return Fail(what);
    std::fprintf(stderr, "mmvlog replay: warning: %s (ignored)\n", what.c_str());
  }
  if (!metrics.empty() && replay->columns().size() == 0) {
    return Fail(absl::StrCat("no metric matches ", absl::StrJoin(metrics, ", "),
                             "; 'mmvlog replay -a ARCHIVE' lists them"));
  }
  if (f.hostzone) {
    // The zone of the first archive's label: its timezone (the recorder's
    // $TZ), as libpcp's pmNewContextZone takes it; the v3 zoneinfo (the
    // host's /etc/localtime) only when the timezone cannot be read.
    const format::LogLabel& label = replay->archives().archives().front().label;
    absl::StatusOr<absl::TimeZone> zone = archiver::LoadPcpTimeZone(label.timezone);
    if (!zone.ok() && !label.zoneinfo.empty()) zone = archiver::LoadPcpTimeZone(label.zoneinfo);
    if (!zone.ok()) return Fail(absl::StrCat("-z: ", zone.status().message()));
    plan.zone = *zone;
  }
  plan.window.start = f.start;
  plan.window.end = f.finish;
  plan.window.align = f.align;
  plan.window.origin = f.origin;
  // -s 0: pmrep's every sample, pmval's none (its text table prints only
  // the header); not given: every sample.
  plan.samples = samples;
  plan.raw = f.raw;
  plan.prior_values = f.interpolation == "prior" ||
                      (f.interpolation == "auto" && InstalledPcpBefore(6, 3, 2));
  plan.rate_wraps_backwards = InstalledPcpBefore(6, 2, 1);
  plan.follow = f.follow;
  plan.pmval_rows = text && !csv && !json && !pmrep;
  plan.strict_singular = pmrep.has_value();
  plan.sleep_until = SleepUntil;
  plan.headers_only = f.check;
  plan.delay = f.delay;
  plan.wants_end = pmrep && pmrep->extheader;
  // -x: what pmrep's extended header says that only the command line knows.
  std::optional<archiver::PmrepRunAsked> run;
  if (pmrep && pmrep->extheader) {
    run = archiver::PmrepRunAsked{PmrepSource(f.archives.empty() ? archives : f.archives), samples,
                                  !f.finish.empty(), pmrep->dynamic_header,
                                  archiver::LocalPcpTimeZone(), absl::Now()};
  }

  // pmrep's cells, each output its own, with the instances its
  // fetchgroup names (pmrep_instance_names.h).
  absl::Status predicate_status;
  auto pmrep_cells = [&] {
    archiver::PmrepCells cells(pmrep_columns);
    cells.SetRank(pmrep->options.rank);
    cells.SetInvertFilter(pmrep->options.invert_filter);
    if (!pmrep->overall_rank) {  // pmrep's overall ranking takes no predicate
      predicate_status.Update(cells.SetPredicate(pmrep->options.predicate, replay->columns()));
    }
    std::vector<uint32_t> indoms;
    for (const archiver::ReplayMetric& m : replay->columns().metrics()) {
      if (m.desc.indom != format::kIndomNull) indoms.push_back(m.desc.indom);
    }
    cells.NameInstances(std::make_unique<archiver::PmrepInstanceNames>(
        archiver::InDomTimeline(replay->archives(), indoms)));
    return cells;
  };
  std::vector<std::unique_ptr<archiver::Output>> owned;
  if (!f.to_mmv.empty()) {
    InstallStopSignals();
    owned.push_back(std::make_unique<archiver::MmvPlayback>(f.to_mmv, f.speed, SleepUntil, LogLine));
  } else {
    if (dump) owned.push_back(std::make_unique<archiver::DumpOutput>(stdout));
    if (csv && pmrep) {
      archiver::PmrepCsvFormat format{pmrep->header, pmrep->delimiter.value_or(","),
                                      pmrep->timefmt.value_or("%Y-%m-%d %H:%M:%S"), pmrep->extcsv,
                                      run, pmrep->dynamic_header,
                                      std::max(pmrep->header ? pmrep->repeat_header : 0, 0)};
      owned.push_back(std::make_unique<archiver::PmrepCsvOutput>(stdout, std::move(format),
                                                                 pmrep_cells(), samples));
    } else if (csv) {
      owned.push_back(std::make_unique<archiver::CsvOutput>(stdout, samples));
    }
    if (json) owned.push_back(std::make_unique<archiver::JsonOutput>(stdout, samples));
    if (stats) owned.push_back(std::make_unique<archiver::StatsOutput>(stdout, samples));
    if (text && pmrep && pmrep->overall_rank) {
      owned.push_back(std::make_unique<archiver::PmrepRankOutput>(
          stdout, pmrep_cells(), pmrep->options.rank, pmrep->overall_rank_alt,
          pmrep->delimiter.value_or("  "), samples, run));
    } else if (text && pmrep) {
      archiver::PmrepTextFormat format;
      format.header = pmrep->header;
      format.unitinfo = pmrep->unitinfo;
      format.instinfo = pmrep->instinfo;
      format.timestamp = pmrep->timestamp;
      format.delimiter = pmrep->delimiter.value_or("  ");
      format.timefmt = pmrep->timefmt.value_or("%H:%M:%S");
      format.repeat_header = pmrep->repeat_header;
      format.colxrow = pmrep->colxrow;
      format.run = run;
      format.separate_header = pmrep->separate_header;
      format.dynamic_header = pmrep->dynamic_header;
      format.sort_metrics = sort_metrics;
      format.width_option = pmrep->options.width;
      owned.push_back(std::make_unique<archiver::PmrepTextOutput>(stdout, std::move(format),
                                                                  pmrep_cells(), samples));
    } else if (text) {
      // pmval -s 0: no row (TextOutput's negative count).
      owned.push_back(std::make_unique<archiver::TextOutput>(stdout, f.samples == 0 ? -1 : samples));
    }
    if (!f.plot.empty() || !f.html.empty()) {
      archiver::PlotOptions plot_options;
      plot_options.raw = f.raw;
      plot_options.zone = plan.zone;
      owned.push_back(
          std::make_unique<archiver::PlotOutput>(f.plot, f.html, plot_options, samples));
    }
    if (owned.empty() || summary) owned.push_back(std::make_unique<archiver::SummaryOutput>(stdout));
  }
  if (!predicate_status.ok()) return Fail(predicate_status.message());
  if (!f.output_file.empty()) {
    // Standard output becomes the file, so every output writes there. As
    // pmrep, nothing is overwritten: an archive's name, a file or a
    // directory there is refused.
    struct stat st;
    if (::stat((f.output_file + ".index").c_str(), &st) == 0) {
      return Fail(absl::StrCat("Archive ", f.output_file, " already exists."));
    }
    const int fd = ::open(f.output_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) {
      const bool dir = ::stat(f.output_file.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
      return Fail(absl::StrCat(dir ? "Directory " : "File ", f.output_file, " already exists."));
    }
    if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0) {
      return Fail(absl::StrCat(f.output_file, ": ", std::strerror(errno)));
    }
    ::close(fd);
  }
  if (f.follow) InstallStopSignals();
  std::vector<archiver::Output*> outputs;
  for (const auto& o : owned) outputs.push_back(o.get());
  archiver::ReplayReport report;
  auto log = [](archiver::LogLevel, const std::string& line) {
    std::fprintf(stderr, "mmvlog replay: warning: %s\n", line.c_str());
  };
  absl::Status status = replay->Run(plan, outputs, log, &report);
  if (std::fflush(stdout) != 0 && status.ok()) {
    status = archiver::WriteError(errno, f.output_file.empty() ? "standard output" : f.output_file);
  }
  // A reader that went away (replay ... | head): quietly, as pmrep.
  if (absl::IsCancelled(status)) return kExitOk;
  if (!report.window_warning.empty()) {
    std::fprintf(stderr, "mmvlog replay: warning: %s\n", report.window_warning.c_str());
  }
  for (const std::string& d : report.damaged) std::fprintf(stderr, "mmvlog replay: %s\n", d.c_str());
  *damaged = !report.damaged.empty();
  if (absl::IsInvalidArgument(status)) return UsageError("replay", status.message());
  if (!status.ok()) {
    const char* what = !f.to_mmv.empty() ? "--to-mmv: " : "";
    return Fail(absl::StrCat(what, status.message()));
  }
  for (const auto& [file, what] : {std::pair{f.plot, "plot"}, std::pair{f.html, "page"}}) {
    if (!file.empty() && f.to_mmv.empty()) {
      std::fprintf(stderr, "mmvlog replay: %s written to %s\n", what, file.c_str());
    }
  }
  return kExitOk;
}

}  // namespace

Runner DefineReplay(CLI::App* app) {
  auto f = std::make_shared<ReplayFlags>();
  AddReplayOptions(app, f.get());
  return [f](const Invocation& inv) { return RunReplay(*f, inv); };
}

}  // namespace mmvlog::cmd

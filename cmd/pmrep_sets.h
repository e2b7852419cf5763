// pmrep's metric sets for replay: finding pmrep.conf as pmrep finds it,
// reading it, and merging its options with the command line's.
//
// The configuration is -c's file or directory, else the first of
// ./pmrep.conf, $HOME/.pmrep.conf, $HOME/.pcp/pmrep.conf,
// $PCP_SYSCONF_DIR/pmrep/pmrep.conf and $PCP_SYSCONF_DIR/pmrep that can be
// read; a directory means its *.conf files in name order. Options apply
// in pmrep's order: built-in defaults, each file's [options], the options
// of each :SET named (in the order named), then the command line.
#ifndef MMVLOG_CMD_PMREP_SETS_H_
#define MMVLOG_CMD_PMREP_SETS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "archiver/replay/pmrep_report.h"
#include "format/derive/derive_config.h"

namespace mmvlog::cmd {

// What the command line said (unset: std::nullopt or empty). replay's
// options are bound to these fields directly; `items`, `raw` and
// `instances` it fills from its own arguments.
struct PmrepCommandLine {
  std::string config;                   // -c
  std::vector<std::string> items;       // ":SET", "metric" or "metric,label,..." in order
  bool no_header = false;               // -H
  bool extended_csv = false;            // -k
  bool extended_header = false;         // -x
  bool separate_header = false;         // -g
  bool fixed_header = false;            // -7 (refused with colxrow)
  bool dynamic_header = false;          // -1
  bool live_filter = false, invert_filter = false;  // -j, -n
  std::optional<std::string> sort_metric;           // -6
  bool overall_rank = false, overall_rank_alt = false;  // -2, -3
  std::optional<std::string> names_change;  // -4: ignore, abort, update
  std::optional<std::string> delimiter; // -l
  std::optional<std::string> timefmt;   // -f
  std::optional<int> precision, precision_force;  // -P, -0
  bool raw = false, raw_prefer = false; // -r, -R
  std::vector<std::string> instances;   // -i
  bool ignore_unknown = false;          // -5
  std::string count_scale, space_scale, time_scale;              // -q -b -y
  std::string count_scale_force, space_scale_force, time_scale_force;  // -Q -B -Y
  bool timestamps = false;              // -p
  bool no_unit_info = false;            // -U
  bool no_inst_info = false;            // --no-inst-info
  std::optional<int> width, width_force;  // -w, -W
  std::optional<std::string> repeat_header;  // -E: N or auto
  std::optional<std::string> colxrow;        // -X
  bool no_interpolation = false;             // -u
  bool omit_flat = false;                    // -v
  bool no_globals = false;                   // -G
  bool ignore_incompat = false;              // -I
  std::optional<int64_t> limit_filter, limit_filter_force;  // -8, -9
  std::optional<int64_t> rank;                             // -J
  std::optional<std::string> predicate;                    // -N
  // pmrep's options given whose report replay does not print ("-m
  // (--include-labels)"): refused.
  std::vector<std::string> refused;
};

// A pmrep option that is set (true, non-zero, named) but whose report
// replay cannot print as pmrep does (labels; a fixed header of swapped
// columns): refused by replay, which prints nothing rather than what pmrep
// would not.
struct PmrepUnsupported {
  std::string key;    // "include_labels"
  std::string where;  // the file that set it
};

struct PmrepResolved {
  archiver::PmrepOptions options;
  std::vector<format::DerivedDefinition> derived;  // formulas and the derived option
  std::string interval;  // the sets' interval option ("" none)
  std::string samples;   // the sets' samples option
  // Unset: the output's default (CSV: "," and "%Y-%m-%d %H:%M:%S"; the
  // table: two spaces and "%H:%M:%S").
  std::optional<std::string> delimiter, timefmt;
  bool header = true;
  bool extcsv = false;  // -k: CSV rows begin with the host and the interval
  bool extheader = false;  // -x: pmrep's extended header first
  bool separate_header = false;  // -g: the table's columns numbered, listed first
  bool dynamic_header = false;   // -1 (or names_change = 2): each row's instances
  bool overall_rank = false, overall_rank_alt = false;  // -2 (or -3), -3: no rows, the best at the end
  std::string names_change = "0";
  std::string sort_metric;  // -6: "metric,-metric" ordering colxrow's instances  // as pmrep keeps it: "0", "1" (abort), "2" (update)
  // The table's (pmrep's stdout output).
  bool unitinfo = true, instinfo = true, timestamp = false;
  int repeat_header = 0;  // -1: auto
  std::optional<std::string> colxrow;
  bool interpolate = true;            // interpol = no: as -u
  std::optional<std::string> output;  // output = csv | stdout | archive
  std::vector<PmrepUnsupported> unsupported;
};

// Whether the command line asks for pmrep's report: a :SET or a spec with
// a comma among the metric arguments, -c, or an option only pmrep has
// (-k, -J, -N, -E; not those pmval spells otherwise, as -x and -X).
bool WantsPmrepReport(const PmrepCommandLine& cl, const std::vector<std::string>& metric_args);

// Reads the configuration and resolves the report. Errors as pmrep's:
// NotFound "Metricset definition ':NAME' not found", FailedPrecondition
// for a file that cannot be read ("Failed to read configuration from
// 'F'"), InvalidArgument "Failed to read configuration file 'F', line N:
// ..." and bad option values.
absl::StatusOr<PmrepResolved> ResolvePmrep(const PmrepCommandLine& cl);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_PMREP_SETS_H_

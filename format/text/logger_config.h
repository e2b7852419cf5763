// pmlogger's configuration language, as pmlogger(1) "CONFIGURATION FILE
// SYNTAX" and PCP's grammar (src/pmlogger/src/gram.y, lex.l) define it, read
// from pmcpp's output (format/text/pmcpp.h):
//
//   config     := clause* [ "[" "access" "]" rule+ ]
//   clause     := ["log"] action metrics
//   action     := ["mandatory" | "advisory"] "on" frequency
//               | ["mandatory" | "advisory"] "off"
//               | "mandatory" "maybe"
//   frequency  := ["every"] NUMBER unit | "once" | "default"
//   unit       := msec | millisecond | sec | second | min | minute | hour,
//                 each also plural (msecs, seconds, ...)
//   metrics    := "{" spec ([","] spec)* "}" | spec
//   spec       := NAME [ "[" instance ([","] instance)* "]" ]
//   instance   := NAME | NUMBER | "quoted string"
//   rule       := ("allow" | "disallow") host ("," host)* ":" operations ";"
//
// No controller word means advisory. "every 0 sec" means once. Intervals
// are whole numbers of their unit and at most 0x0fffffff msec (about 74
// hours), as pmlogger's. Keywords are words only where the grammar expects
// one: inside "{...}" every word is a metric or instance name. `#` starts a
// comment. The [access] section is parsed (pmlc's access control) and kept
// only as its position: mmvlog has no pmlc.
//
// Pure. Errors are InvalidArgument "FILE:LINE:COL: what is wrong".
#ifndef MMVLOG_FORMAT_TEXT_LOGGER_CONFIG_H_
#define MMVLOG_FORMAT_TEXT_LOGGER_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "format/text/pmcpp.h"

namespace mmvlog::format {

struct ConfigPosition {
  std::string file;
  int line = 0;
  int column = 0;  // 1-based
  std::string ToString() const;  // FILE:LINE:COL
};

enum class LogControl { kMandatory, kAdvisory };
enum class LogState { kOn, kOff, kMaybe };

struct InstanceSpec {
  std::optional<int32_t> id;  // a number: the internal identifier
  std::string name;           // otherwise the external name
};

struct MetricSpec {
  std::string name;  // a leaf or a subtree (non-leaf) name
  std::vector<InstanceSpec> instances;  // empty: all instances
  ConfigPosition where;
};

struct LogClause {
  LogControl control = LogControl::kAdvisory;
  LogState state = LogState::kOn;
  // For kOn: the interval; zero means once. Unset means "default" (the -t
  // interval, else 60 seconds).
  std::optional<absl::Duration> interval;
  std::vector<MetricSpec> metrics;
  ConfigPosition where;
};

struct LoggerConfig {
  std::vector<LogClause> clauses;
  std::optional<ConfigPosition> access;  // where an [access] section starts
};

absl::StatusOr<LoggerConfig> ParseLoggerConfig(const std::vector<SourceLine>& lines);

// Preprocesses (pmcpp -rs) and parses `text`, read from `file`.
absl::StatusOr<LoggerConfig> ParseLoggerConfigText(absl::string_view text,
                                                   const std::string& file,
                                                   const PmcppOptions& options);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_TEXT_LOGGER_CONFIG_H_

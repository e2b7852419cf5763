// pmrep.conf(5): pmrep's metric sets, as pmrep (pcp/pmconfig.py) reads them.
//
// The file is what Python's configparser reads (pmrep's reader): [section]
// lines, "key = value" or "key: value" (keys keep their case, both sides
// are stripped), comment lines starting with '#' or ';', an indented line
// continuing the value above it; a section or key twice in one file is an
// error; values are interpolated as configparser's BasicInterpolation does
// ("%%" is "%", "%(key)s" another key's value). Section [options] holds options; [global] metrics shown with every
// set (unless "globals = no"); any other section is a metric set, named on
// pmrep's command line as ":section".
//
// A set's entries are options (keys pmrep knows, `is_option`) or metrics,
// in two spellings:
//   compact:  metric = label,instances,unit/scale,type,width,precision,limit
//   verbose:  key = metric          (a key without a dot, or whose second
//             key.label = ...        dotted part is none of the attributes)
//             key.formula = expr    (a derived metric: the name is defined
//             key.unit = ...         as this expression)
// (pmconfig.py's parse_metric_info; its quirks kept: the attribute is the
// second dotted part of the key, a value with a comma is compact but for a
// formula, instances in a compact spec may be quoted and hold commas).
#ifndef MMVLOG_FORMAT_TEXT_PMREP_CONF_H_
#define MMVLOG_FORMAT_TEXT_PMREP_CONF_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmvlog::format {

struct IniEntry {
  std::string key, value;
  int line = 0;
};

struct IniSection {
  std::string name;
  int line = 0;
  std::vector<IniEntry> entries;
};

// Parses one file. InvalidArgument "line N: what" (configparser's errors).
absl::StatusOr<std::vector<IniSection>> ParseIni(absl::string_view text);

// One metric of a set, its attributes as typed ("" where not given).
struct PmrepMetric {
  std::string name;  // the metric, or the derived metric's name
  std::string label;
  std::vector<std::string> instances;
  std::string unit, type, width, precision, limit;
  std::string formula;  // a derived metric's expression, "" otherwise
};

// A compact spec "metric,label,instances,unit,type,width,precision,limit"
// (fields may be left out at the end), as pmrep takes one in a file or on
// its command line.
PmrepMetric ParseCompactSpec(absl::string_view spec);

struct PmrepSet {
  std::vector<std::pair<std::string, std::string>> options;  // in order
  std::vector<PmrepMetric> metrics;                          // in order, each name once
};

// The options and metrics of a section. InvalidArgument for an attribute
// of a key never declared ("Undeclared metric key K"), an empty value.
absl::StatusOr<PmrepSet> ReadSet(const IniSection& section,
                                 const std::function<bool(absl::string_view)>& is_option);

// Whether `key` is one of pmrep's configuration options (header,
// delimiter, precision, ...: its PMReporter.keys), not a metric.
bool IsPmrepOption(absl::string_view key);

// An option's value as pmrep keeps it: surrounding double quotes removed.
std::string OptionValue(absl::string_view value);
// pmrep's yes/no: "true", "True", "y", "yes", "Yes" -> 1; "false",
// "False", "n", "no", "No" -> 0; -1 for anything else.
int OptionBool(absl::string_view value);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_TEXT_PMREP_CONF_H_

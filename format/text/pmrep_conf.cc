#include "format/text/pmrep_conf.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace mmvlog::format {
namespace {

constexpr absl::string_view kAttributes[] = {"label", "instances", "unit",  "type",
                                             "width", "precision", "limit", "formula"};

// pmrep's configuration keys (pmrep's PMReporter.keys, PCP 6.0.3).
constexpr absl::string_view kPmrepOptionKeys[] = {
    "source", "output", "derived", "header", "globals", "samples", "interval", "type",
    "precision", "daemonize", "timestamp", "unitinfo", "colxrow", "separate_header",
    "fixed_header", "delay", "width", "delimiter", "extcsv", "width_force", "extheader",
    "repeat_header", "timefmt", "interpol", "dynamic_header", "overall_rank",
    "overall_rank_alt", "sort_metric", "count_scale", "space_scale", "time_scale", "version",
    "count_scale_force", "space_scale_force", "time_scale_force", "type_prefer",
    "precision_force", "limit_filter", "limit_filter_force", "live_filter", "rank",
    "invert_filter", "predicate", "names_change", "speclocal", "instances", "ignore_incompat",
    "ignore_unknown", "omit_flat", "instinfo", "include_labels", "include_texts"};

bool IsAttribute(absl::string_view s) {
  return std::find(std::begin(kAttributes), std::end(kAttributes), s) != std::end(kAttributes);
}

// The second dotted part of a key, as Python's key.rsplit(".")[1] is: ""
// for a key without a dot.
absl::string_view SecondPart(absl::string_view key) {
  std::vector<absl::string_view> parts = absl::StrSplit(key, '.');
  return parts.size() > 1 ? parts[1] : absl::string_view();
}

absl::Status LineError(int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("line ", line, ": ", what));
}

// The instances of a compact spec's third field: Python's csv reader over
// the quoted text, each item's outer quotes dropped.
std::vector<std::string> SplitInstances(absl::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' && (quoted || cur.empty())) {
      if (quoted && i + 1 < text.size() && text[i + 1] == '"') {
        cur.push_back('"');
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  for (std::string& s : out) {
    if (!s.empty() && (s.front() == '"' || s.front() == '\'')) s.erase(0, 1);
    if (!s.empty() && (s.back() == '"' || s.back() == '\'')) s.pop_back();
  }
  return out;
}

// configparser's BasicInterpolation of `value` within `section`: "%%" is
// "%", "%(key)s" the key's value (interpolated in turn), any other '%' an
// error.
absl::StatusOr<std::string> Interpolate(const IniSection& section, absl::string_view value,
                                        int depth) {
  if (depth > 10) return absl::InvalidArgumentError("interpolation too deep");
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] != '%') {
      out.push_back(value[i]);
      continue;
    }
    if (i + 1 < value.size() && value[i + 1] == '%') {
      out.push_back('%');
      ++i;
      continue;
    }
    const size_t close = value.find(")s", i);
    if (i + 1 >= value.size() || value[i + 1] != '(' || close == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'%' must be followed by '%' or '(', found: '", value.substr(i), "'"));
    }
    const absl::string_view key = value.substr(i + 2, close - i - 2);
    const IniEntry* ref = nullptr;
    for (const IniEntry& e : section.entries) {
      if (absl::AsciiStrToLower(e.key) == absl::AsciiStrToLower(key)) ref = &e;
    }
    if (ref == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("Bad value substitution: option '", key,
                                                     "' in section '", section.name, "'"));
    }
    absl::StatusOr<std::string> v = Interpolate(section, ref->value, depth + 1);
    if (!v.ok()) return v.status();
    out += *v;
    i = close + 1;
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<IniSection>> ParseIni(absl::string_view text) {
  std::vector<IniSection> sections;
  std::set<std::string> names;
  std::set<std::string> keys;  // of the current section
  IniEntry* last = nullptr;    // the entry an indented line continues
  int number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++number;
    absl::ConsumeSuffix(&raw, "\r");
    const absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') {
      if (line.empty()) last = nullptr;
      continue;
    }
    const bool indented = absl::ascii_isspace(static_cast<unsigned char>(raw[0]));
    if (indented && last != nullptr) {
      absl::StrAppend(&last->value, "\n", line);
      continue;
    }
    if (line[0] == '[') {
      const size_t close = line.rfind(']');
      if (close == absl::string_view::npos || close < 2) {
        return LineError(number, absl::StrCat("not a section header: '", line, "'"));
      }
      std::string name(line.substr(1, close - 1));
      if (!names.insert(name).second) {
        return LineError(number, absl::StrCat("section '", name, "' already exists"));
      }
      sections.push_back({name, number, {}});
      keys.clear();
      last = nullptr;
      continue;
    }
    if (sections.empty()) {
      return LineError(number, "File contains no section headers");
    }
    const size_t at = line.find_first_of("=:");
    if (at == absl::string_view::npos || at == 0) {
      return LineError(number, absl::StrCat("not a 'key = value' line: '", line, "'"));
    }
    IniEntry entry;
    entry.key = std::string(absl::StripAsciiWhitespace(line.substr(0, at)));
    entry.value = std::string(absl::StripAsciiWhitespace(line.substr(at + 1)));
    entry.line = number;
    if (!keys.insert(entry.key).second) {
      return LineError(number, absl::StrCat("option '", entry.key, "' in section '",
                                            sections.back().name, "' already exists"));
    }
    sections.back().entries.push_back(std::move(entry));
    last = &sections.back().entries.back();
  }
  // Values as configparser gives them (every section's, as pmrep reads
  // them all).
  for (IniSection& section : sections) {
    std::vector<std::string> values;
    for (const IniEntry& e : section.entries) {
      absl::StatusOr<std::string> v = Interpolate(section, e.value, 0);
      if (!v.ok()) return LineError(e.line, v.status().message());
      values.push_back(*std::move(v));
    }
    for (size_t i = 0; i < values.size(); ++i) section.entries[i].value = std::move(values[i]);
  }
  return sections;
}

PmrepMetric ParseCompactSpec(absl::string_view spec_in) {
  std::string spec(spec_in);
  std::vector<std::string> instances;
  if (std::count(spec.begin(), spec.end(), ',') >= 2) {
    std::vector<std::string> fields = absl::StrSplit(spec, ',');
    const std::string& third = fields[2];
    const bool quoted = third.size() > 2 && (third[0] == '\'' || third[0] == '"');
    if (spec.find_first_of("\"'") != std::string::npos) {
      // The instances run from the third field to the last of its quote.
      const size_t from = fields[0].size() + fields[1].size() + 2;
      std::string text = spec.substr(from);
      if (!text.empty()) {
        const size_t end = text.rfind(text[0]);
        text = text.substr(0, end + 1);
        instances = SplitInstances(quoted ? absl::string_view(text).substr(1, text.size() - 2)
                                          : absl::string_view(text));
        const size_t at = spec.find(text);
        if (at != std::string::npos && !text.empty()) spec.erase(at, text.size());
      }
    } else if (!third.empty()) {
      instances.push_back(third);
    }
  }
  std::vector<std::string> f = absl::StrSplit(spec, ',');
  f.resize(std::max<size_t>(f.size(), 8));
  PmrepMetric m;
  m.name = f[0];
  m.label = f[1];
  m.instances = std::move(instances);
  m.unit = f[3];
  m.type = f[4];
  m.width = f[5];
  m.precision = f[6];
  m.limit = f[7];
  return m;
}

absl::StatusOr<PmrepSet> ReadSet(const IniSection& section,
                                 const std::function<bool(absl::string_view)>& is_option) {
  PmrepSet set;
  // Keyed by the entry's key, as pmconfig.py keys them; shown by name.
  std::vector<std::pair<std::string, PmrepMetric>> by_key;
  auto find = [&](absl::string_view key) -> PmrepMetric* {
    for (auto& [k, m] : by_key) {
      if (k == key) return &m;
    }
    return nullptr;
  };
  for (const IniEntry& e : section.entries) {
    if (e.value.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("No value set for ", e.key, " in [", section.name, "]"));
    }
    if (is_option(e.key)) {
      set.options.emplace_back(e.key, e.value);
      continue;
    }
    const absl::string_view second = SecondPart(e.key);
    const bool dotted = e.key.find('.') != std::string::npos;
    bool compact = e.value.find(',') != std::string::npos || (dotted && !IsAttribute(second));
    if (e.value.find(',') != std::string::npos && dotted && second == "formula") compact = false;
    if (compact) {
      PmrepMetric m = ParseCompactSpec(absl::StrCat(e.key, ",", e.value));
      if (PmrepMetric* old = find(e.key)) {
        *old = std::move(m);
      } else {
        by_key.emplace_back(e.key, std::move(m));
      }
      continue;
    }
    if (!dotted || !IsAttribute(second)) {
      PmrepMetric m;
      m.name = e.value;
      by_key.emplace_back(e.key, std::move(m));
      continue;
    }
    const std::vector<absl::string_view> parts = absl::StrSplit(e.key, '.');
    PmrepMetric* m = parts.size() == 2 ? find(parts[0]) : nullptr;
    if (m == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("Undeclared metric key ", parts[0]));
    }
    std::string value = e.value;
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    if (second == "label") m->label = value;
    if (second == "instances") m->instances = {value};
    if (second == "unit") m->unit = value;
    if (second == "type") m->type = value;
    if (second == "width") m->width = value;
    if (second == "precision") m->precision = value;
    if (second == "limit") m->limit = value;
    if (second == "formula") m->formula = value;
  }
  for (auto& entry : by_key) {
    PmrepMetric& m = entry.second;  // (clang 14 cannot capture a structured binding)
    auto same = std::find_if(set.metrics.begin(), set.metrics.end(),
                             [&](const PmrepMetric& o) { return o.name == m.name; });
    if (same != set.metrics.end()) {
      *same = std::move(m);  // a later entry of the same metric wins, in the first's place
    } else {
      set.metrics.push_back(std::move(m));
    }
  }
  return set;
}

std::string OptionValue(absl::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    value = value.substr(1, value.size() - 2);
  }
  return std::string(value);
}

bool IsPmrepOption(absl::string_view key) {
  return std::find(std::begin(kPmrepOptionKeys), std::end(kPmrepOptionKeys), key) !=
         std::end(kPmrepOptionKeys);
}

int OptionBool(absl::string_view value) {
  for (absl::string_view t : {"true", "True", "y", "yes", "Yes"}) {
    if (value == t) return 1;
  }
  for (absl::string_view f : {"false", "False", "n", "no", "No"}) {
    if (value == f) return 0;
  }
  return -1;
}

}  // namespace mmvlog::format

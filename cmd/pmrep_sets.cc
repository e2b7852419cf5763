#include "cmd/pmrep_sets.h"

#include "cmd/derived_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "cmd/common.h"
#include "cmd/derived_files.h"
#include "format/text/pmrep_conf.h"

namespace mmvlog::cmd {
namespace {

bool Readable(const std::string& path, bool* dir) {
  struct stat st;
  if (::access(path.c_str(), R_OK) != 0 || ::stat(path.c_str(), &st) != 0) return false;
  *dir = S_ISDIR(st.st_mode);
  return S_ISDIR(st.st_mode) || S_ISREG(st.st_mode);
}

absl::StatusOr<std::vector<std::string>> ConfigFiles(const std::string& flag) {
  std::string config = flag;
  bool dir = false;
  if (!config.empty()) {
    if (!Readable(config, &dir)) {
      struct stat st;
      const char* why = ::stat(config.c_str(), &st) != 0 ? "No such file or directory"
                        : ::access(config.c_str(), R_OK) != 0 ? "Permission denied"
                                                              : "Not a regular file";
      return absl::FailedPreconditionError(
          absl::StrCat("Failed to read configuration from '", config, "':\n", why, "."));
    }
  } else {
    const char* home = std::getenv("HOME");
    const std::string h = home != nullptr ? home : "";
    const std::string sys = PcpConfValue("PCP_SYSCONF_DIR", "/etc/pcp");
    for (const std::string& c : {std::string("./pmrep.conf"), h + "/.pmrep.conf",
                                 h + "/.pcp/pmrep.conf", sys + "/pmrep/pmrep.conf", sys + "/pmrep"}) {
      if (Readable(c, &dir)) {
        config = c;
        break;
      }
    }
    if (config.empty()) return std::vector<std::string>{};
  }
  if (!dir) return std::vector<std::string>{config};
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(config, ec)) {
    const std::string p = e.path().string();
    bool sub = false;
    if (absl::EndsWith(p, ".conf") && Readable(p, &sub) && !sub) files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct ConfFile {
  std::string path;
  std::vector<format::IniSection> sections;
  const format::IniSection* Find(absl::string_view name) const {
    for (const format::IniSection& s : sections) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }
};

absl::Status BadOption(absl::string_view key, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("Error while reading option ", key, ": ", what, "."));
}

// Whether pmrep takes an option's value as off: set_attr makes the words
// of false 0, and any other integer text an int.
bool Off(const std::string& v) {
  int64_t n = 1;
  return format::OptionBool(v) == 0 || (absl::SimpleAtoi(v, &n) && n == 0);
}

// Options that change what pmrep prints in ways replay does not follow.
constexpr absl::string_view kUnsupported[] = {
    "fixed_header", "include_labels",
};

// One option read from a file (pmconfig.py's set_attr, the keys replay
// uses; the others shape pmrep's terminal output or its live mode and are
// read, not used).
absl::Status SetOption(const std::string& key, const std::string& raw, const std::string& where,
                       PmrepResolved* r) {
  const std::string v = format::OptionValue(raw);
  if (std::find(std::begin(kUnsupported), std::end(kUnsupported), key) != std::end(kUnsupported)) {
    const bool on = !Off(v);
    std::erase_if(r->unsupported, [&](const PmrepUnsupported& u) { return u.key == key; });
    if (on) r->unsupported.push_back({key, where});
    return absl::OkStatus();
  }
  archiver::PmrepOptions& o = r->options;
  auto integer = [&](int64_t* out) {
    return absl::SimpleAtoi(v, out) ? absl::OkStatus() : BadOption(key, "Integer expected");
  };
  int64_t n = 0;
  if (key == "sort_metric") {
    r->sort_metric = v;
  } else if (key == "live_filter") {
    r->options.live_filter = !Off(v);
  } else if (key == "invert_filter") {
    r->options.invert_filter = !Off(v);
  } else if (key == "overall_rank") {
    r->overall_rank = !Off(v);
  } else if (key == "overall_rank_alt") {
    r->overall_rank_alt = !Off(v);
  } else if (key == "dynamic_header") {
    r->dynamic_header = !Off(v);
  } else if (key == "names_change") {
    // 2, pmrep's "update": -1's header; 0 and 1 (abort) change nothing in
    // an archive, whose names do not change between fetches.
    r->names_change = v;
  } else if (key == "extheader") {
    r->extheader = !Off(v);
  } else if (key == "separate_header") {
    r->separate_header = !Off(v);
  } else if (key == "header") {
    r->header = format::OptionBool(v) != 0 && v != "0";
  } else if (key == "delimiter") {
    r->delimiter = v;
  } else if (key == "timefmt") {
    r->timefmt = v;
  } else if (key == "precision" || key == "precision_force") {
    absl::Status s = integer(&n);
    if (!s.ok() || n < 0) return BadOption(key, "Non-negative integer expected");
    if (key == "precision") o.precision = static_cast<int>(n); else o.precision_force = static_cast<int>(n);
  } else if (key == "type") {
    o.raw = v == "raw";
  } else if (key == "type_prefer") {
    o.raw_prefer = v == "raw";
  } else if (key == "instances") {
    o.instances = absl::StrSplit(v, ',');
  } else if (key == "interval") {
    r->interval = v;
  } else if (key == "samples") {
    r->samples = v;
  } else if (key == "colxrow") {
    r->colxrow = v;
  } else if (key == "unitinfo" || key == "instinfo" || key == "timestamp") {
    const bool on = format::OptionBool(v) == 1 || v == "1";
    (key == "unitinfo" ? r->unitinfo : key == "instinfo" ? r->instinfo : r->timestamp) = on;
  } else if (key == "repeat_header") {
    if (v == "auto") {
      r->repeat_header = -1;
    } else {
      absl::Status s = integer(&n);
      if (!s.ok() || n < 0) return BadOption(key, "Non-negative integer expected");
      r->repeat_header = static_cast<int>(n);
    }
  } else if (key == "width" || key == "width_force") {
    absl::Status s = integer(&n);
    if (!s.ok() || n < 0) return BadOption(key, "Non-negative integer expected");
    if (key == "width") o.width = static_cast<int>(n); else o.width_force = static_cast<int>(n);
  } else if (key == "ignore_unknown") {
    o.ignore_unknown = format::OptionBool(v) == 1 || v == "1";
  } else if (key == "ignore_incompat") {
    o.ignore_incompat = format::OptionBool(v) == 1 || v == "1";
  } else if (key == "limit_filter" || key == "limit_filter_force" || key == "rank") {
    absl::Status s = integer(&n);
    if (!s.ok()) return s;
    (key == "rank" ? o.rank : key == "limit_filter" ? o.limit_filter : o.limit_filter_force) = n;
  } else if (key == "predicate") { o.predicate = v;
  } else if (key == "count_scale") { o.count_scale = v;
  } else if (key == "space_scale") { o.space_scale = v;
  } else if (key == "time_scale") { o.time_scale = v;
  } else if (key == "count_scale_force") { o.count_scale_force = v;
  } else if (key == "space_scale_force") { o.space_scale_force = v;
  } else if (key == "time_scale_force") { o.time_scale_force = v;
  } else if (key == "extcsv") {
    r->extcsv = !Off(v);
  } else if (key == "interpol") {
    r->interpolate = !Off(v);
  } else if (key == "omit_flat") {
    o.omit_flat = !Off(v);
  } else if (key == "output") {
    r->output = v;
  } else if (key == "version") {
    if (v != "1") {
      return absl::InvalidArgumentError(
          absl::StrCat("Incompatible configuration file version (read v", v, ", need v1)"));
    }
  } else if (key == "derived") {
    const std::string list = v.find(';') != std::string::npos ? v : absl::StrReplaceAll(v, {{",", ";"}});
    for (absl::string_view piece : absl::StrSplit(list, ';', absl::SkipWhitespace())) {
      absl::StatusOr<std::vector<format::DerivedDefinition>> defs = DerivedFromArgument(piece);
      if (absl::IsNotFound(defs.status())) {
        return absl::NotFoundError(absl::StrCat("derived: ", defs.status().message()));
      }
      if (!defs.ok()) return defs.status();
      r->derived.insert(r->derived.end(), defs->begin(), defs->end());
    }
  }
  return absl::OkStatus();
}

absl::Status ApplyOptions(const format::IniSection& s, bool options_section, const std::string& where,
                          PmrepResolved* r, bool* globals) {
  for (const format::IniEntry& e : s.entries) {
    if (!format::IsPmrepOption(e.key)) {
      if (options_section) {
        return absl::InvalidArgumentError(absl::StrCat("Unknown option ", e.key, " in [options]"));
      }
      continue;
    }
    if (e.value.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("No value set for option ", e.key, " in [", s.name, "]"));
    }
    if (e.key == "globals") *globals = format::OptionBool(format::OptionValue(e.value)) == 1;
    absl::Status st = SetOption(e.key, e.value, where, r);
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status FileError(const std::string& path, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("Failed to read configuration file '", path, "':\n", what, "."));
}

void AddMetrics(const format::PmrepSet& set, const std::string& where, PmrepResolved* r) {
  for (const format::PmrepMetric& m : set.metrics) {
    if (!m.formula.empty()) r->derived.push_back({m.name, m.formula, where, /*optional=*/true});
    r->options.metrics.push_back(m);
  }
}

}  // namespace

bool WantsPmrepReport(const PmrepCommandLine& cl, const std::vector<std::string>& metric_args) {
  if (!cl.config.empty() || cl.extended_csv || cl.rank || cl.predicate || cl.repeat_header) {
    return true;
  }
  return std::any_of(metric_args.begin(), metric_args.end(), [](const std::string& a) {
    return (!a.empty() && a[0] == ':') || a.find(',') != std::string::npos;
  });
}

absl::StatusOr<PmrepResolved> ResolvePmrep(const PmrepCommandLine& cl) {
  absl::StatusOr<std::vector<std::string>> paths = ConfigFiles(cl.config);
  if (!paths.ok()) return paths.status();
  std::vector<ConfFile> files;
  for (const std::string& p : *paths) {
    std::ifstream in(p);
    if (!in) return absl::FailedPreconditionError(absl::StrCat("Failed to read configuration from '", p, "'"));
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<std::vector<format::IniSection>> sections = format::ParseIni(text.str());
    if (!sections.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("Failed to read configuration file '", p,
                                                     "', ", sections.status().message()));
    }
    files.push_back({p, *std::move(sections)});
  }
  std::vector<std::string> sets;
  for (const std::string& item : cl.items) {
    if (!item.empty() && item[0] == ':') sets.push_back(item.substr(1));
  }
  PmrepResolved r;
  bool globals = true;
  for (const ConfFile& f : files) {
    if (const format::IniSection* s = f.Find("options")) {
      absl::Status st = ApplyOptions(*s, true, f.path, &r, &globals);
      if (!st.ok()) return FileError(f.path, st.message());
    }
    for (const std::string& name : sets) {
      if (const format::IniSection* s = f.Find(name)) {
        absl::Status st = ApplyOptions(*s, false, f.path, &r, &globals);
        if (!st.ok()) return FileError(f.path, st.message());
      }
    }
  }
  // The command line last.
  archiver::PmrepOptions& o = r.options;
  if (cl.no_header) r.header = false;
  if (cl.extended_csv) r.extcsv = true;
  if (cl.extended_header) r.extheader = true;
  if (cl.separate_header) r.separate_header = true;
  if (cl.dynamic_header) r.dynamic_header = true;
  if (cl.names_change) {
    const std::string& a = *cl.names_change;
    if (a != "ignore" && a != "abort" && a != "update") {
      return absl::InvalidArgumentError(
          absl::StrCat("Unknown names-change action '", a, "' specified."));
    }
    r.names_change = a == "update" ? "2" : a == "abort" ? "1" : "0";
  }
  if (r.names_change == "2") r.dynamic_header = true;
  if (cl.sort_metric) r.sort_metric = *cl.sort_metric;
  if (cl.live_filter) o.live_filter = true;
  if (cl.invert_filter) o.invert_filter = true;
  if (cl.overall_rank) r.overall_rank = true;
  if (cl.overall_rank_alt) r.overall_rank_alt = true;
  if (r.overall_rank_alt) r.overall_rank = true;
  if (cl.omit_flat) o.omit_flat = true;
  if (cl.delimiter) r.delimiter = *cl.delimiter;
  if (cl.timefmt) r.timefmt = *cl.timefmt;
  if (cl.precision) o.precision = *cl.precision;
  if (cl.precision_force) o.precision_force = *cl.precision_force;
  if (cl.raw) o.raw = true;
  if (cl.raw_prefer) o.raw_prefer = true;
  if (!cl.instances.empty()) o.instances = cl.instances;
  if (cl.ignore_unknown) o.ignore_unknown = true;
  if (cl.ignore_incompat) o.ignore_incompat = true;
  if (cl.limit_filter) o.limit_filter = *cl.limit_filter;
  if (cl.limit_filter_force) o.limit_filter_force = *cl.limit_filter_force;
  if (cl.rank) o.rank = *cl.rank;
  if (cl.predicate) o.predicate = *cl.predicate;
  if (cl.no_globals) globals = false;
  if (cl.timestamps) r.timestamp = true;
  if (cl.no_unit_info) r.unitinfo = false;
  if (cl.no_inst_info) r.instinfo = false;
  if (cl.width) o.width = *cl.width;
  if (r.separate_header && o.width == 0) o.width = 8;  // pmrep's, for the columns' numbers
  if (cl.width_force) o.width_force = *cl.width_force;
  if (cl.colxrow) r.colxrow = *cl.colxrow;
  if (cl.repeat_header) {
    int n = 0;
    if (*cl.repeat_header == "auto") {
      r.repeat_header = -1;
    } else if (absl::SimpleAtoi(*cl.repeat_header, &n) && n >= 0) {
      r.repeat_header = n;
    } else {
      return absl::InvalidArgumentError(
          "Error while reading option repeat_header: Non-negative integer expected.");
    }
  }
  for (auto [to, from] : {std::pair{&o.count_scale, &cl.count_scale}, {&o.space_scale, &cl.space_scale},
                          {&o.time_scale, &cl.time_scale}, {&o.count_scale_force, &cl.count_scale_force},
                          {&o.space_scale_force, &cl.space_scale_force},
                          {&o.time_scale_force, &cl.time_scale_force}}) {
    if (!from->empty()) *to = *from;
  }
  // Metrics: [global]'s, then each item's.
  if (globals) {
    for (const ConfFile& f : files) {
      const format::IniSection* g = f.Find("global");
      if (g == nullptr) continue;
      for (const format::IniEntry& e : g->entries) {
        if (format::IsPmrepOption(e.key)) {
          return FileError(f.path, "Section [global] contains options");
        }
      }
      absl::StatusOr<format::PmrepSet> set = format::ReadSet(*g, format::IsPmrepOption);
      if (!set.ok()) return FileError(f.path, set.status().message());
      AddMetrics(*set, f.path, &r);
    }
  }
  for (const std::string& item : cl.items) {
    if (item.empty() || item[0] != ':') {
      o.metrics.push_back(format::ParseCompactSpec(item));
      continue;
    }
    const std::string name = item.substr(1);
    const ConfFile* from = nullptr;
    const format::IniSection* section = nullptr;
    for (const ConfFile& f : files) {  // the last file's section wins
      if (const format::IniSection* s = f.Find(name); s != nullptr && name != "options" && name != "global") {
        from = &f;
        section = s;
      }
    }
    if (section == nullptr) {
      return absl::NotFoundError(absl::StrCat("Metricset definition ':", name, "' not found."));
    }
    absl::StatusOr<format::PmrepSet> set = format::ReadSet(*section, format::IsPmrepOption);
    if (!set.ok()) return FileError(from->path, set.status().message());
    AddMetrics(*set, from->path, &r);
  }
  if (o.metrics.empty()) return absl::InvalidArgumentError("No metrics specified.");
  // A predicate not among the metrics is shown too, after them (pmconfig.py).
  if (!o.predicate.empty()) {
    for (absl::string_view name : absl::StrSplit(o.predicate, ',')) {
      if (std::none_of(o.metrics.begin(), o.metrics.end(),
                       [&](const format::PmrepMetric& m) { return m.name == name; })) {
        o.metrics.push_back(format::ParseCompactSpec(name));
      }
    }
  }
  return r;
}

}  // namespace mmvlog::cmd

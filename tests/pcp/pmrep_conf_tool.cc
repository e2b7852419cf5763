// Reads a pmrep.conf file (argv[1]) with format::ParseIni and prints it as
// JSON: {"sections": [[name, [[key, value], ...]], ...], "sets": {name:
// [[metric, label, [instances], unit, type, width, precision, limit,
// formula], ...]}} (every section but [options] read as a set, options
// being pmrep's keys: format::IsPmrepOption), or {"error": "..."}.
// pmrep_conf_oracle_test compares it with Python's configparser and pmrep's
// pmconfig.py.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/strings/string_view.h"
#include "format/text/pmrep_conf.h"
#include "nlohmann/json.hpp"


int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json out;
  absl::StatusOr<std::vector<mmvlog::format::IniSection>> ini =
      mmvlog::format::ParseIni(text.str());
  if (!ini.ok()) {
    out["error"] = std::string(ini.status().message());
    std::cout << out.dump() << "\n";
    return 0;
  }
  out["sections"] = nlohmann::json::array();
  out["sets"] = nlohmann::json::object();
  for (const auto& s : *ini) {
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& e : s.entries) entries.push_back({e.key, e.value});
    out["sections"].push_back({s.name, entries});
    if (s.name == "options") continue;
    absl::StatusOr<mmvlog::format::PmrepSet> set =
        mmvlog::format::ReadSet(s, mmvlog::format::IsPmrepOption);
    if (!set.ok()) {
      out["sets"][s.name] = std::string(set.status().message());
      continue;
    }
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& m : set->metrics) {
      metrics.push_back({m.name, m.label, m.instances, m.unit, m.type, m.width, m.precision,
                         m.limit, m.formula});
    }
    out["sets"][s.name] = metrics;
  }
  std::cout << out.dump() << "\n";
  return 0;
}

#include "cmd/derived_files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cmd/common.h"

namespace mmvlog::cmd {

absl::StatusOr<std::vector<format::DerivedDefinition>> ReadDerivedFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot read the file"));
  return format::ParseDerivedConfig(text.str(), path);
}

absl::StatusOr<std::vector<format::DerivedDefinition>> DerivedFromArgument(absl::string_view arg) {
  if (!arg.empty() && (arg[0] == '/' || arg[0] == '.')) return ReadDerivedFile(std::string(arg));
  return format::ParseDerivedList(arg);
}

std::vector<format::DerivedDefinition> GlobalDerivedDefinitions() {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("PCP_DERIVED_CONFIG"); env != nullptr) {
    for (absl::string_view p : absl::StrSplit(env, ':', absl::SkipEmpty())) paths.emplace_back(p);
  } else {
    paths = {PcpConfValue("PCP_SYSCONF_DIR", "/etc/pcp") + "/derived",
             PcpConfValue("PCP_VAR_DIR", "/var/lib/pcp") + "/config/derived"};
  }
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> in;
      for (const auto& e : std::filesystem::directory_iterator(p, ec)) {
        if (e.is_regular_file(ec)) in.push_back(e.path().string());
      }
      std::sort(in.begin(), in.end());
      files.insert(files.end(), in.begin(), in.end());
    } else if (std::filesystem::is_regular_file(p, ec)) {
      files.push_back(p);
    }
  }
  // libpcp's own derived metrics (PMIDs 511.0.1 and 511.0.2), there in
  // every context, whatever the configuration: the flags and missed count
  // of event records, which have values only inside unpacked records, so
  // in pmrep and pmval always none; stated in the language as U32 discrete
  // metrics with no value.
  std::vector<format::DerivedDefinition> out;
  for (const char* name : {"event.flags", "event.missed"}) {
    out.push_back({name,
                   "0 ? mkconst(0, type=u32, semantics=discrete) : "
                   "novalue(type=u32, semantics=discrete)",
                   "libpcp", /*optional=*/true});
  }
  for (const std::string& file : files) {
    absl::StatusOr<std::vector<format::DerivedDefinition>> defs = ReadDerivedFile(file);
    if (!defs.ok()) continue;
    for (format::DerivedDefinition& d : *defs) {
      d.optional = true;
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace mmvlog::cmd

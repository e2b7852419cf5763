// mmvlog check ARCHIVE... [--repair]: validates archives the way pmlogcheck
// does (framing, labels, metadata, time order, descriptors and instances of
// every value, the temporal index) and, with --repair, runs the recovery
// step that a crash needs (cut torn tails, repair and close the index).
#include <cstdio>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "archiver/store/archive_reader.h"
#include "archiver/store/recovery.h"
#include "cmd/cli.h"
#include "cmd/subcommand.h"
#include "format/archive/archive_format.h"
#include "format/archive/pm_desc_text.h"

namespace mmvlog::cmd {
namespace {

// Returns the number of findings for one archive, printing each.
int CheckOne(const std::string& name, bool repair) {
  int findings = 0;
  auto finding = [&](const std::string& what) {
    std::printf("%s\n", what.c_str());
    ++findings;
  };
  if (repair) {
    archiver::RecoveryReport report;
    absl::Status s = archiver::RecoverArchive(name, false, &report);
    for (const std::string& a : report.actions) std::printf("repaired: %s\n", a.c_str());
    if (!s.ok()) {
      finding(absl::StrCat("cannot repair: ", s.message()));
      return findings;
    }
  }
  absl::StatusOr<std::unique_ptr<archiver::ArchiveReader>> r = archiver::ArchiveReader::Open(name);
  if (!r.ok()) {
    finding(std::string(r.status().message()));
    return findings;
  }
  const archiver::ArchiveMetadata& meta = (*r)->meta();
  format::Timestamp last;
  bool have_last = false;
  uint64_t results = 0, marks = 0, values = 0;
  absl::flat_hash_set<uint32_t> reported_pmids;
  for (;;) {
    absl::StatusOr<std::optional<format::DecodedResult>> next = (*r)->Next();
    if (!next.ok()) {
      finding(std::string(next.status().message()));
      break;
    }
    if (!next->has_value()) break;
    const format::DecodedResult& res = **next;
    if (have_last && res.timestamp < last) {
      finding(absl::StrCat((*r)->base(), ": result at ", res.timestamp.sec, ".", res.timestamp.nsec,
                           " is earlier than the one before it"));
    }
    last = res.timestamp;
    have_last = true;
    res.is_mark() ? ++marks : ++results;
    for (const format::DecodedValueSet& set : res.sets) {
      const format::Desc* desc = meta.Desc(set.pmid);
      if (desc == nullptr) {
        if (reported_pmids.insert(set.pmid).second) {
          finding(absl::StrCat((*r)->base(), ": PMID ", format::PmidString(set.pmid),
                               " has values but no descriptor"));
        }
        continue;
      }
      for (const format::DecodedValue& v : set.values) {
        ++values;
        absl::StatusOr<format::ResultValue> rv = format::ValueFromDecoded(v, set.valfmt, desc->type);
        if (!rv.ok()) {
          finding(absl::StrCat((*r)->base(), ": ", desc->names.empty() ? "?" : desc->names[0], ": ",
                               rv.status().message()));
        }
        if (desc->indom != format::kIndomNull) {
          const format::InDom* indom = meta.InDomAt(desc->indom, res.timestamp);
          bool known = false;
          if (indom != nullptr) {
            for (const auto& i : indom->instances) known |= i.inst == v.inst;
          }
          if (!known && reported_pmids.insert(set.pmid ^ 0x80000000u).second) {
            finding(absl::StrCat((*r)->base(), ": ", desc->names.empty() ? "?" : desc->names[0],
                                 ": instance ", v.inst, " is not in indom ",
                                 format::InDomString(desc->indom), " at that time"));
          }
        }
      }
    }
  }
  for (const std::string& w : (*r)->warnings()) finding(w);
  std::printf("%s: %llu results, %llu marks, %llu values, %zu metrics, %zu volumes, %zu index "
              "entries: %s\n",
              (*r)->base().c_str(), static_cast<unsigned long long>(results),
              static_cast<unsigned long long>(marks), static_cast<unsigned long long>(values),
              meta.descs.size(), (*r)->volumes().size(), (*r)->index().size(),
              findings == 0 ? "ok" : absl::StrCat(findings, " problems").c_str());
  return findings;
}

struct CheckFlags {
  bool repair = false;
  std::vector<std::string> archives;
};

int RunCheck(const CheckFlags& f, const Invocation& inv) {
  if (f.archives.empty() || !inv.command.empty()) {
    return UsageError("check", "name one or more archives, e.g. mmvlog check /tmp/run1");
  }
  int findings = 0;
  for (const std::string& a : f.archives) findings += CheckOne(a, f.repair);
  if (findings > 0 && !f.repair) {
    std::printf("(a crash leaves a torn tail: 'mmvlog check --repair' fixes that)\n");
  }
  return findings == 0 ? kExitOk : kExitFailure;
}

}  // namespace

Runner DefineCheck(CLI::App* app) {
  auto f = std::make_shared<CheckFlags>();
  app->add_flag("--repair", f->repair,
                "repair what a crash leaves (torn tails, the index) before checking")
      ->group("Checking");
  app->add_option("ARCHIVE", f->archives, "archives: base names or any of their files")
      ->type_name("");
  return [f](const Invocation& inv) { return RunCheck(*f, inv); };
}

}  // namespace mmvlog::cmd

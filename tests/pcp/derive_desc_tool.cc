// derive_desc_tool ARCHIVE: for each line of standard input, a derived
// metric's expression over ARCHIVE's metrics, prints what
// format/derive infers, one line each:
//   desc TYPE|INDOM|SEMANTICS|UNITS   as pminfo -d spells them
//   error TEXT                        libpcp's semantic error after "derived metric NAME: "
//   syntax POSITION MESSAGE           a syntax error
#include <iostream>
#include <string>

#include "archiver/store/archive_reader.h"
#include "format/archive/pm_desc_text.h"
#include "format/derive/derive_desc.h"
#include "format/derive/derive_parser.h"
#include "format/pm_units.h"

namespace {

using mmvlog::format::DeriveDesc;

std::string Show(const DeriveDesc& d) {
  const std::string units = mmvlog::format::UnitsToString(d.units);
  return mmvlog::format::TypeName(d.type) + "|" + mmvlog::format::InDomString(d.indom) + "|" +
         mmvlog::format::SemanticsName(d.sem) + "|" + (units.empty() ? "none" : units);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: derive_desc_tool ARCHIVE\n";
    return 2;
  }
  auto reader = mmvlog::archiver::ArchiveReader::Open(argv[1]);
  if (!reader.ok()) {
    std::cerr << reader.status() << "\n";
    return 1;
  }
  const mmvlog::archiver::ArchiveMetadata& meta = (*reader)->meta();
  mmvlog::format::DeriveLookup lookup =
      [&](const std::string& name) -> std::optional<DeriveDesc> {
    auto it = meta.pmid_by_name.find(name);
    if (it == meta.pmid_by_name.end()) return std::nullopt;
    const mmvlog::format::Desc* d = meta.Desc(it->second);
    if (d == nullptr) return std::nullopt;
    return DeriveDesc{d->type, d->sem, mmvlog::format::UnitsFromWord(d->units), d->indom};
  };
  std::string line;
  while (std::getline(std::cin, line)) {
    const mmvlog::format::DeriveParse p = mmvlog::format::ParseDerived(line);
    if (p.error.has_value()) {
      std::cout << "syntax " << p.error->position << " " << p.error->message << "\n";
      continue;
    }
    const mmvlog::format::DeriveCheck c = mmvlog::format::CheckDerived(*p.tree, lookup);
    if (c.bound == nullptr) {
      std::cout << "error " << c.error << "\n";
    } else {
      std::cout << "desc " << Show(c.bound->desc) << "\n";
    }
  }
  return 0;
}

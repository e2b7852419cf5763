// libFuzzer target: pmrep's texts: a pmrep.conf file (configparser's
// grammar, metric specs in both spellings) and units strings as users type
// them (pmParseUnitsStr, and the fetchgroup's conversions from a few units).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "format/pm_units.h"
#include "format/text/pmrep_conf.h"
#include "format/units_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<mmvlog::format::IniSection>> ini = mmvlog::format::ParseIni(text);
  if (ini.ok()) {
    for (const mmvlog::format::IniSection& s : *ini) {
      (void)mmvlog::format::ReadSet(s, mmvlog::format::IsPmrepOption);
    }
  }
  // Each line as a compact spec and as units.
  const mmvlog::format::PmUnits units[] = {
      mmvlog::format::UnitsFromWord(0x10100000),  // Kbyte
      mmvlog::format::UnitsFromWord(0x01002000),  // millisec
      mmvlog::format::UnitsFromWord(0x00100000),  // count
      mmvlog::format::PmUnits{},
  };
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (++lines > 64) break;
    (void)mmvlog::format::ParseCompactSpec(line);
    (void)mmvlog::format::ParseUnitsSpec(line);
    for (const mmvlog::format::PmUnits& u : units) (void)mmvlog::format::ConvertToSpec(u, line);
  }
  return 0;
}

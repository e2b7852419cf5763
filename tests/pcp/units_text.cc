// Reads pmUnits words (decimal, one per line) on stdin and prints, one line
// per word, mmvlog's texts for it: PCP 7.2's (format::UnitsToString), a tab,
// PCP 6.0.3's (format::UnitsToStringPcp6), a tab, and the counter's rate
// units (format::RateUnitsToString). pm_units_oracle_test compares them with
// each version's own pmUnitsStr.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>

#include "format/pm_units.h"

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    const uint32_t word = static_cast<uint32_t>(std::stoul(line));
    const mmvlog::format::PmUnits u = mmvlog::format::UnitsFromWord(word);
    std::printf("%s\t%s\t%s\n", mmvlog::format::UnitsToString(u).c_str(),
                mmvlog::format::UnitsToStringPcp6(u).c_str(),
                mmvlog::format::RateUnitsToString(u).c_str());
  }
  return 0;
}

// Reads pmUnits words (decimal, one per line) on stdin and prints, one per
// line, mmvlog's text for each: format::UnitsToString(format::UnitsFromWord(w)).
// pm_units_oracle_test compares the output with PCP's own pmUnitsStr.
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
    const std::string text =
        mmvlog::format::UnitsToString(mmvlog::format::UnitsFromWord(word));
    std::printf("%s\n", text.c_str());
  }
  return 0;
}

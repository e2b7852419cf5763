// Reads units strings (one per line) on stdin and prints, per line, what
// format::ParseUnitsSpec makes of it: "dimSpace dimTime dimCount scaleSpace
// scaleTime scaleCount multiplier" (the multiplier with 17 significant
// digits), or "error". units_spec_oracle_test compares them with libpcp's
// pmParseUnitsStr.
#include <cstdio>
#include <iostream>
#include <string>

#include "format/units_spec.h"

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    absl::StatusOr<mmvlog::format::UnitsSpec> s = mmvlog::format::ParseUnitsSpec(line);
    if (!s.ok()) {
      std::printf("error\n");
      continue;
    }
    const mmvlog::format::PmUnits& u = s->units;
    std::printf("%d %d %d %d %d %d %.17g\n", u.dim_space, u.dim_time, u.dim_count, u.scale_space,
                u.scale_time, u.scale_count, s->multiplier);
  }
  return 0;
}

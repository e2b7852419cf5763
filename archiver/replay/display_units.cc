#include "archiver/replay/display_units.h"

#include "format/archive/archive_format.h"
#include "format/pm_units.h"

namespace mmvlog::archiver {

std::string DisplayUnits(const format::Desc& desc, bool raw) {
  format::PmUnits units = format::UnitsFromWord(desc.units);
  if (raw || desc.sem != format::kSemCounter) return format::UnitsToString(units);
  if (units.extra_unit != 0) return format::RateUnitsToString(units);
  // Converting to a rate divides by time. A time counter's rate is shown
  // as pmrep computes it, its units per second ("millisec / sec"; pmval
  // scales that to a utilisation itself).
  if (units.dim_time == 1 && units.dim_space == 0 && units.dim_count == 0) {
    return format::UnitsToString(units) + " / sec";
  }
  units.dim_time -= 1;
  if (units.dim_time == -1) units.scale_time = format::kTimeSec;
  return format::UnitsToString(units);
}

double RateMultiplier(const format::Desc& desc) {
  const format::PmUnits units = format::UnitsFromWord(desc.units);
  return units.extra_unit != 0 ? format::RateOfCounter(units).multiplier : 1;
}

}  // namespace mmvlog::archiver

// The units a column is shown in: its descriptor's, as pmUnitsStr prints
// them, and for counters shown as rates (unless raw) per second, as pmval
// and pmrep convert them ("count / sec"; a time counter "millisec / sec", as
// pmrep's numbers are: pmval shows those as a utilisation).
#ifndef MMVLOG_ARCHIVER_REPLAY_DISPLAY_UNITS_H_
#define MMVLOG_ARCHIVER_REPLAY_DISPLAY_UNITS_H_

#include <string>

#include "format/archive/archive_meta.h"

namespace mmvlog::archiver {

std::string DisplayUnits(const format::Desc& desc, bool raw);

// What a counter's (v - before) / seconds is multiplied by to be in
// DisplayUnits: 1, but for counters in PCP 7.2's extra units, converted as
// PCP 7.2 converts them ("power (W) hour" to "power (W)": 3600).
double RateMultiplier(const format::Desc& desc);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_DISPLAY_UNITS_H_

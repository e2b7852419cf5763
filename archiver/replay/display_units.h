// The units a column is shown in: its descriptor's, as pmUnitsStr prints
// them, and for counters shown as rates (unless raw) per second, as pmval
// and pmrep convert them ("count / sec"; a time counter "millisec / sec", as
// pmrep's numbers are: pmval shows those as a utilisation).
#ifndef MMVLOG_ARCHIVER_REPLAY_DISPLAY_UNITS_H_
#define MMVLOG_ARCHIVER_REPLAY_DISPLAY_UNITS_H_

#include <string>

#include "format/archive_meta.h"

namespace mmvlog::archiver {

std::string DisplayUnits(const format::Desc& desc, bool raw);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_DISPLAY_UNITS_H_

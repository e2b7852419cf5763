// Values replay shows decoded rather than as their bytes: aggregates (both
// kinds) and event arrays (both layouts), for the dump (as pmdumplog -a
// prints them) and for JSON and CSV (as data for scripts).
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_DECODED_VALUE_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_DECODED_VALUE_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace mmvlog::archiver {

bool IsDecodedType(int32_t type);

// A value of such a type (its bytes as stored), as JSON: an aggregate as a
// string of hex digits, an event array as format::EventArrayJson gives it
// (parameters named from `param_names`), a damaged one as {"error":"what,
// at which offset in its pmValueBlock"}. REQUIRES: IsDecodedType(type).
std::string DecodedValueJson(int32_t type, absl::string_view bytes,
                             const std::map<uint32_t, std::string>& param_names);

// The value as pmdumplog -a prints it, after the metric and instance: an
// aggregate as "value " and pmPrintValue's text; an event array as its
// count ("2 event records") and then, each on a line of its own indented
// by 8, each record's timestamp (in `zone`, microseconds or for
// PM_TYPE_HIGHRES_EVENT nanoseconds) and flags, a missed count, and each
// parameter by PMID, name and value. A damaged array: "damaged event array
// (offsets in its pmValueBlock): " and what, where.
// REQUIRES: IsDecodedType(type).
std::string DecodedValueText(int32_t type, absl::string_view bytes,
                             const std::map<uint32_t, std::string>& param_names,
                             absl::TimeZone zone);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_DECODED_VALUE_H_

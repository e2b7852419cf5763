// PCP's text forms of metric descriptor fields, exactly as PCP 6.0.3 prints
// them, and their inverses: data types and semantics as pmPrintDesc (pminfo
// -d, pmdumplog -d) shows them, units as pmUnitsStr (format/pm_units.h), and
// PMIDs and instance domains as pmIDStr / pmInDomStr. Normative source:
// pmLookupDesc(3) (shared/spec/pmLookupDesc.3.txt); each string was checked
// against libpcp 6.0.3 (tests/pcp/pm_desc_text_oracle_test.cc).
#ifndef MMVLOG_FORMAT_ARCHIVE_PM_DESC_TEXT_H_
#define MMVLOG_FORMAT_ARCHIVE_PM_DESC_TEXT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/pm_units.h"

namespace mmvlog::format {

// The data type as pmPrintDesc prints it: "32-bit int", "32-bit unsigned
// int", "64-bit int", "64-bit unsigned int", "float", "double", "string",
// "aggregate", "static aggregate", "event record array", "highres event
// record array", "Not Supported" (PM_TYPE_NOSUPPORT), and "??? (N)" for any
// other N (PM_TYPE_UNKNOWN included).
std::string TypeName(int32_t type);

// Inverse of TypeName, also accepting pmTypeStr's names ("32", "U32", "64",
// "U64", "FLOAT", "DOUBLE", "STRING", "AGGREGATE", "AGGREGATE_STATIC",
// "EVENT", "HIGHRES_EVENT", "NO_SUPPORT", "UNKNOWN"). Case-insensitive.
// Return values: the PM_TYPE_* value; InvalidArgument for anything else.
absl::StatusOr<int32_t> ParseType(absl::string_view text);

// The semantics as pmPrintDesc and pmSemStr print them: "counter",
// "instant", "discrete"; "??? (N)" otherwise (pmSemStr says just "???").
std::string SemanticsName(int32_t sem);

// Inverse of SemanticsName. Case-insensitive.
// Return values: the PM_SEM_* value; InvalidArgument for anything else.
absl::StatusOr<int32_t> ParseSemantics(absl::string_view text);

// Inverse of UnitsToString (pmUnitsStr, 7.2 and 6.0.3): "Kbyte / sec",
// "count x 10^3", "millisec", "/ sec", "byte^2 / sec count", "x 10^-2",
// "power (W) hour", "/ temperature (C)", "" and pmPrintDesc's "none" for no
// units. The result is canonical: a dimension's scale is 0
// when the dimension is, since pmUnitsStr does not print it. Two spellings
// are ambiguous in pmUnitsStr and read the simpler way: "count x 10^2"
// (scale 2, not scale 1 squared) and "count x 10^3^2" (scale 3 squared).
// Return values: the units; InvalidArgument for text pmUnitsStr never
// prints, or a dimension or scale outside its 4-bit field.
absl::StatusOr<PmUnits> ParseUnits(absl::string_view text);

// "70.1.2", as pmIDStr prints a PMID: "PM_ID_NULL" for 0xffffffff, and
// "<cluster>.*.*" for the dynamic-root PMIDs of domain 511 with item 0. The
// top (derived-metric) bit is not shown.
std::string PmidString(uint32_t pmid);

// "70.2049", as pmInDomStr prints an instance domain; "PM_INDOM_NULL" for
// kIndomNull (as pmdumplog shows it).
std::string InDomString(uint32_t indom);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_PM_DESC_TEXT_H_

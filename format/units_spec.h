// Units as a user types them (pmParseUnitsStr(3)) and the conversions PCP's
// clients make with them (pmConvScale(3), the fetchgroup's "scale" of
// pmrep and pcp2*): "KB", "MB/s", "ms", "kilobytes / 2.5e2 count x 10^3".
//
// A units string is a dividend and an optional "/ divisor"; each lists
// keywords for space, time and count (case-insensitive, any order, each at
// most once a side, optionally followed by "^N"), PCP 7.2's extra units
// ("power (W)") and numbers that multiply. The result is the quotient's
// dimension with a scale per axis, and a multiplier: where an axis appears
// on both sides ("ms/s") the scales are folded into the multiplier and the
// axis's scale is the canonical one (0 when it cancels), as libpcp does it
// (units.c pmParseUnitsStr), so that what follows converts as PCP does.
#ifndef MMVLOG_FORMAT_UNITS_SPEC_H_
#define MMVLOG_FORMAT_UNITS_SPEC_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/pm_units.h"

namespace mmvlog::format {

struct UnitsSpec {
  PmUnits units;
  // A value in `units` times this is in the units typed ("2 count": 0.5).
  double multiplier = 1;
};

// pmParseUnitsStr. InvalidArgument naming the text and what is wrong.
absl::StatusOr<UnitsSpec> ParseUnitsSpec(absl::string_view text);

// What pmConvScale multiplies a double by to take it from `from` to `to`
// (a dimensionless side counts as "count"). InvalidArgument when the
// dimensions differ or a scale is outside PCP's tables.
absl::StatusOr<double> ConvScaleFactor(const PmUnits& from, const PmUnits& to);

// How a client's fetchgroup shows a metric of units `metric` (and
// `counter` semantics) in the units typed: a counter whose typed units have
// one time dimension less is shown as a rate ("KB/s" of a Kbyte counter),
// else the dimensions must be equal. value (or delta / seconds for a rate)
// times `scale` (pmConvScale's), then times `multiplier`, is the number
// shown (two products, as the fetchgroup makes them).
struct ScaleConversion {
  bool rate = false;
  double scale = 1;
  double multiplier = 1;
};
absl::StatusOr<ScaleConversion> ConvertToSpec(const PmUnits& metric, absl::string_view spec);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_UNITS_SPEC_H_

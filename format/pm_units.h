// pmUnits (pmLookupDesc(3)): the dimension and scale of a metric, packed in a
// 32-bit word, its text form as PCP's pmUnitsStr prints it ("Kbyte / sec",
// "count x 10^3", "millisec", "temperature (C)", "power (W) hour"), and the
// units of a counter's rate as PCP converts them.
//
// The word's bit layout is the same number in every byte order: dimSpace in
// bits 31-28, dimTime 27-24, dimCount 23-20, scaleSpace 19-16, scaleTime
// 15-12, scaleCount 11-8, then PCP 7.2's extra unit: extraUnit 7-3 (signed)
// and extraScale 2-0 (PCP 7.2 include/pcp/pmapi.h:105-125; before 7.2 these
// 8 bits were "pad", zero, and ignored by every reader). MMV files hold the
// word in native order (libpcp_mmv's MMV_EXTRAUNITS fills all of it),
// archives big-endian.
//
// Normative text: PCP 7.2.0 src/libpcp/src/units.c (pmUnitsStr_r, l.155-367)
// and src/libpcp/src/extraunits.c (__pmExtraUnitsStr, l.91-116); checked
// against both libpcp 7.2 and 6.0.3 by tests/pcp/pm_units_oracle_test.py.
#ifndef MMVLOG_FORMAT_PM_UNITS_H_
#define MMVLOG_FORMAT_PM_UNITS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"

namespace mmvlog::format {

// Scales (frozen in the format).
inline constexpr int kSpaceByte = 0, kSpaceKbyte = 1, kSpaceMbyte = 2,
                     kSpaceGbyte = 3, kSpaceTbyte = 4, kSpacePbyte = 5,
                     kSpaceEbyte = 6;
inline constexpr int kTimeNsec = 0, kTimeUsec = 1, kTimeMsec = 2, kTimeSec = 3,
                     kTimeMin = 4, kTimeHour = 5;

// PCP 7.2's extra units (pmapi.h:155-175; frozen in the format). At most one
// per metric; each has its own scales, numbered from 1.
inline constexpr int kUnitTemperature = 1, kUnitVoltage = 2, kUnitCurrent = 3,
                     kUnitPower = 4;
inline constexpr int kTemperatureC = 1, kTemperatureF = 2, kTemperatureK = 3;
inline constexpr int kVoltageV = 1, kVoltageMilli = 2, kVoltageMicro = 3;
inline constexpr int kCurrentA = 1, kCurrentMilli = 2, kCurrentMicro = 3;
inline constexpr int kPowerKilo = 1, kPowerW = 2, kPowerMilli = 3, kPowerMicro = 4;

struct PmUnits {
  int dim_space = 0;    // signed 4 bits
  int dim_time = 0;     // signed 4 bits
  int dim_count = 0;    // signed 4 bits
  int scale_space = 0;  // unsigned 4 bits
  int scale_time = 0;   // unsigned 4 bits
  int scale_count = 0;  // signed 4 bits
  int extra_unit = 0;   // signed 5 bits: kUnit*, negative in a denominator
  int extra_scale = 0;  // unsigned 3 bits: that unit's scale

  bool operator==(const PmUnits&) const = default;
};

// Unpacks a pmUnits word (see the layout above).
PmUnits UnitsFromWord(uint32_t word);
// Packs `u`; fields are truncated to their widths.
uint32_t UnitsToWord(const PmUnits& u);

// PCP 7.2's text form, exactly as pmUnitsStr(3) prints it (at most 59
// characters, its buffer's size); "" for no units (pmPrintDesc says "none").
// The extra unit comes first ("power (W) hour"), or first after the "/";
// an unknown unit or scale is spelled as libpcp spells it ("extra-9",
// "voltage (scale-7)", cut at 19 characters as libpcp cuts it); a count
// scale with no dimension is "count x 10^N".
std::string UnitsToString(const PmUnits& u);

// The text PCP before 7.2 (6.0.3) prints for the same word: the extra unit
// bits are not shown, and a count scale with no dimension is "x 10^N".
// For comparing with those readers' output.
std::string UnitsToStringPcp6(const PmUnits& u);

// The extra unit and scale PCP 7.2 names `name` ("power") and `scale`
// ("W"), as kUnit* and its scale; nullopt for names it does not know.
std::optional<std::pair<int, int>> ExtraUnitFromText(absl::string_view name,
                                                     absl::string_view scale);

// True when the extra-unit bits are none (both zero) or a unit and scale
// PCP 7.2 knows, in a numerator (what its __pmCheckDesc accepts,
// extraunits.c:427-461); false for bits an older writer left as garbage.
bool ExtraUnitsValid(const PmUnits& u);

// How PCP 7.2 shows a counter as a rate (pmval.c:221-229, 459-466):
// per second, so the time dimension goes down by one, and a counter that
// had none becomes "per second" ("count" -> "count / sec"; "millisec" ->
// nothing left, a time utilisation; "power (W) hour" -> "power (W)").
struct CounterRate {
  PmUnits units;  // of the rate
  // (value now - value before) / seconds between them * multiplier is the
  // rate in `units`: 1 without a time dimension, 1/1000 for millisec,
  // 3600 for hour (pmval's scale, inverted).
  double multiplier = 1;
};
CounterRate RateOfCounter(const PmUnits& counter);

// The rate's units as text: UnitsToString(RateOfCounter(u).units), or
// "time utilisation" when no dimension and no extra unit is left (pmval
// says "time utilization", and also for an extra unit, pmval.c:463, which
// pmrep's pmconfig.py:917-923 does not: "power (W) hour" is power, not a
// utilisation).
std::string RateUnitsToString(const PmUnits& counter);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_PM_UNITS_H_

// pmUnits (pmLookupDesc(3)): the dimension and scale of a metric, packed in a
// 32-bit word, and its text form as PCP's pmUnitsStr prints it
// (e.g. "Kbyte / sec", "count x 10^3", "millisec").
//
// The word's bit layout is the same number in every byte order: dimSpace in
// bits 31-28, dimTime 27-24, dimCount 23-20, scaleSpace 19-16, scaleTime
// 15-12, scaleCount 11-8, pad 7-0. MMV files hold it in native order, archives
// big-endian.
#ifndef MMVLOG_FORMAT_PM_UNITS_H_
#define MMVLOG_FORMAT_PM_UNITS_H_

#include <cstdint>
#include <string>

namespace mmvlog::format {

// Scales (frozen in the format).
inline constexpr int kSpaceByte = 0, kSpaceKbyte = 1, kSpaceMbyte = 2,
                     kSpaceGbyte = 3, kSpaceTbyte = 4, kSpacePbyte = 5,
                     kSpaceEbyte = 6;
inline constexpr int kTimeNsec = 0, kTimeUsec = 1, kTimeMsec = 2, kTimeSec = 3,
                     kTimeMin = 4, kTimeHour = 5;

struct PmUnits {
  int dim_space = 0;   // signed 4 bits
  int dim_time = 0;    // signed 4 bits
  int dim_count = 0;   // signed 4 bits
  int scale_space = 0; // unsigned 4 bits
  int scale_time = 0;  // unsigned 4 bits
  int scale_count = 0; // signed 4 bits
  int pad = 0;         // unsigned 8 bits (PCP >= 7.2 gives it meaning)

  bool operator==(const PmUnits&) const = default;
};

// Unpacks a pmUnits word (see the layout above).
PmUnits UnitsFromWord(uint32_t word);
// Packs `u`; fields are truncated to their widths.
uint32_t UnitsToWord(const PmUnits& u);
// PCP's text form (pmUnitsStr); "" for dimensionless units with no scale.
std::string UnitsToString(const PmUnits& u);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_PM_UNITS_H_

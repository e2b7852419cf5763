#include "format/pm_units.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mmvlog::format {
namespace {

int Signed4(uint32_t v) { return (v & 0x8) ? static_cast<int>(v) - 16 : v; }

std::string SpaceName(int scale) {
  // PM_SPACE_ZBYTE and PM_SPACE_YBYTE (7, 8) are known to pmUnitsStr too.
  static const char* kNames[] = {"byte",  "Kbyte", "Mbyte", "Gbyte", "Tbyte",
                                 "Pbyte", "Ebyte", "Zbyte", "Ybyte"};
  if (scale >= 0 && scale <= 8) return kNames[scale];
  return absl::StrCat("space-", scale);
}

std::string TimeName(int scale) {
  static const char* kNames[] = {"nanosec", "microsec", "millisec",
                                 "sec",     "min",      "hour"};
  if (scale >= 0 && scale <= 5) return kNames[scale];
  return absl::StrCat("time-", scale);
}

std::string CountName(int scale) {
  if (scale == 0) return "count";
  if (scale == 1) return "count x 10";
  return absl::StrCat("count x 10^", scale);
}

std::string Power(const std::string& name, int dim) {
  return dim == 1 ? name : absl::StrCat(name, "^", dim);
}

}  // namespace

PmUnits UnitsFromWord(uint32_t w) {
  PmUnits u;
  u.dim_space = Signed4(w >> 28);
  u.dim_time = Signed4((w >> 24) & 0xf);
  u.dim_count = Signed4((w >> 20) & 0xf);
  u.scale_space = (w >> 16) & 0xf;
  u.scale_time = (w >> 12) & 0xf;
  u.scale_count = Signed4((w >> 8) & 0xf);
  u.pad = w & 0xff;
  return u;
}

uint32_t UnitsToWord(const PmUnits& u) {
  return (static_cast<uint32_t>(u.dim_space & 0xf) << 28) |
         (static_cast<uint32_t>(u.dim_time & 0xf) << 24) |
         (static_cast<uint32_t>(u.dim_count & 0xf) << 20) |
         (static_cast<uint32_t>(u.scale_space & 0xf) << 16) |
         (static_cast<uint32_t>(u.scale_time & 0xf) << 12) |
         (static_cast<uint32_t>(u.scale_count & 0xf) << 8) |
         static_cast<uint32_t>(u.pad & 0xff);
}

std::string UnitsToString(const PmUnits& u) {
  std::vector<std::string> up, down;
  auto add = [&](int dim, const std::string& name) {
    if (dim > 0) up.push_back(Power(name, dim));
    if (dim < 0) down.push_back(Power(name, -dim));
  };
  add(u.dim_space, SpaceName(u.scale_space));
  add(u.dim_time, TimeName(u.scale_time));
  add(u.dim_count, CountName(u.scale_count));
  std::string out = absl::StrJoin(up, " ");
  if (!down.empty()) {
    if (!out.empty()) out += " ";
    absl::StrAppend(&out, "/ ", absl::StrJoin(down, " "));
  }
  if (out.empty() && u.dim_space == 0 && u.dim_time == 0 && u.dim_count == 0 &&
      u.scale_count != 0) {
    out = u.scale_count == 1 ? "x 10" : absl::StrCat("x 10^", u.scale_count);
  }
  return out;
}

}  // namespace mmvlog::format

#include "format/pm_units.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace mmvlog::format {
namespace {

int Signed(uint32_t v, int bits) {
  const uint32_t sign = 1u << (bits - 1);
  return (v & sign) ? static_cast<int>(v) - (1 << bits) : static_cast<int>(v);
}

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

struct ExtraUnit {
  int type;
  const char* name;
  const char* scales[5];  // by scale number from 1; nullptr past the last
};

// extraunits.c:35-65.
constexpr ExtraUnit kExtraUnits[] = {
    {kUnitTemperature, "temperature", {"C", "F", "K", nullptr}},
    {kUnitVoltage, "voltage", {"V", "mV", "uV", nullptr}},
    {kUnitCurrent, "current", {"A", "mA", "uA", nullptr}},
    {kUnitPower, "power", {"kW", "W", "mW", "uW", nullptr}},
};

const ExtraUnit* FindUnit(int type) {
  for (const ExtraUnit& e : kExtraUnits) {
    if (e.type == type) return &e;
  }
  return nullptr;
}

const char* ScaleName(const ExtraUnit& e, int scale) {
  for (int i = 0; i < 5 && e.scales[i] != nullptr; ++i) {
    if (i + 1 == scale) return e.scales[i];
  }
  return nullptr;
}

// __pmExtraUnitsStr (extraunits.c:91-116) into pmUnitsStr_r's 20-byte
// buffer: a sign is ignored, and the text is cut at 19 characters
// ("temperature (scale-5)" becomes "temperature (scale-").
std::string ExtraName(const PmUnits& u) {
  const ExtraUnit* e = FindUnit(std::abs(u.extra_unit));
  std::string out;
  if (e == nullptr) {
    out = absl::StrCat("extra-", std::abs(u.extra_unit));
  } else if (const char* s = ScaleName(*e, u.extra_scale); s != nullptr) {
    out = absl::StrCat(e->name, " (", s, ")");
  } else {
    out = absl::StrCat(e->name, " (scale-", u.extra_scale, ")");
  }
  if (out.size() > 19) out.resize(19);
  return out;
}

std::string Power(const std::string& name, int dim) {
  return dim == 1 || dim == -1 ? name : absl::StrCat(name, "^", std::abs(dim));
}

// pmUnitsStr_r's order (units.c:271-343): the extra unit, space, time and
// count with positive dimensions, then "/" and the negative ones.
std::string Terms(const PmUnits& u, bool with_extra) {
  const bool extra = with_extra && u.extra_unit != 0;
  const std::string names[3] = {SpaceName(u.scale_space), TimeName(u.scale_time),
                                CountName(u.scale_count)};
  const int dims[3] = {u.dim_space, u.dim_time, u.dim_count};
  std::string out;
  auto add = [&out](const std::string& term) {
    if (!out.empty()) out += " ";
    out += term;
  };
  if (extra && u.extra_unit > 0) add(ExtraName(u));
  for (int i = 0; i < 3; ++i) {
    if (dims[i] > 0) add(Power(names[i], dims[i]));
  }
  if (dims[0] < 0 || dims[1] < 0 || dims[2] < 0 || (extra && u.extra_unit < 0)) {
    add("/");
    if (extra && u.extra_unit < 0) add(ExtraName(u));
    for (int i = 0; i < 3; ++i) {
      if (dims[i] < 0) add(Power(names[i], dims[i]));
    }
  }
  return out;
}

}  // namespace

PmUnits UnitsFromWord(uint32_t w) {
  PmUnits u;
  u.dim_space = Signed(w >> 28, 4);
  u.dim_time = Signed((w >> 24) & 0xf, 4);
  u.dim_count = Signed((w >> 20) & 0xf, 4);
  u.scale_space = (w >> 16) & 0xf;
  u.scale_time = (w >> 12) & 0xf;
  u.scale_count = Signed((w >> 8) & 0xf, 4);
  u.extra_unit = Signed((w >> 3) & 0x1f, 5);
  u.extra_scale = w & 0x7;
  return u;
}

uint32_t UnitsToWord(const PmUnits& u) {
  return (static_cast<uint32_t>(u.dim_space & 0xf) << 28) |
         (static_cast<uint32_t>(u.dim_time & 0xf) << 24) |
         (static_cast<uint32_t>(u.dim_count & 0xf) << 20) |
         (static_cast<uint32_t>(u.scale_space & 0xf) << 16) |
         (static_cast<uint32_t>(u.scale_time & 0xf) << 12) |
         (static_cast<uint32_t>(u.scale_count & 0xf) << 8) |
         (static_cast<uint32_t>(u.extra_unit & 0x1f) << 3) |
         static_cast<uint32_t>(u.extra_scale & 0x7);
}

std::string UnitsToString(const PmUnits& u) {
  std::string out = Terms(u, /*with_extra=*/true);
  // units.c:344-360: nothing printed, but a count scale.
  if (out.empty() && u.scale_count != 0) out = CountName(u.scale_count);
  // pmUnitsStr's static buffer holds 60 bytes (units.c:371).
  if (out.size() > 59) out.resize(59);
  return out;
}

std::string UnitsToStringPcp6(const PmUnits& u) {
  std::string out = Terms(u, /*with_extra=*/false);
  if (out.empty() && u.dim_space == 0 && u.dim_time == 0 && u.dim_count == 0 &&
      u.scale_count != 0) {
    out = u.scale_count == 1 ? "x 10" : absl::StrCat("x 10^", u.scale_count);
  }
  return out;
}

std::optional<std::pair<int, int>> ExtraUnitFromText(absl::string_view name,
                                                     absl::string_view scale) {
  for (const ExtraUnit& e : kExtraUnits) {
    if (name != e.name) continue;
    for (int i = 0; i < 5 && e.scales[i] != nullptr; ++i) {
      if (scale == e.scales[i]) return std::make_pair(e.type, i + 1);
    }
  }
  return std::nullopt;
}

bool ExtraUnitsValid(const PmUnits& u) {
  if (u.extra_unit == 0) return u.extra_scale == 0;
  const ExtraUnit* e = FindUnit(u.extra_unit);
  return e != nullptr && ScaleName(*e, u.extra_scale) != nullptr;
}

CounterRate RateOfCounter(const PmUnits& counter) {
  CounterRate r;
  r.units = counter;
  if (counter.dim_time != 0) {
    // pmval's scale divides the seconds between two samples; its inverse
    // multiplies the rate per second.
    const int st = counter.scale_time;
    r.multiplier = st > kTimeSec ? std::pow(60.0, st - kTimeSec)
                                 : std::pow(1000.0, st - kTimeSec);
  } else {
    r.units.scale_time = kTimeSec;
  }
  // In its 4-bit field, as pmval's bitfield arithmetic has it.
  r.units.dim_time = Signed(static_cast<uint32_t>(counter.dim_time - 1) & 0xf, 4);
  if (r.units.dim_time == 0) r.units.scale_time = 0;
  return r;
}

std::string RateUnitsToString(const PmUnits& counter) {
  const PmUnits u = RateOfCounter(counter).units;
  if (u.dim_space == 0 && u.dim_time == 0 && u.dim_count == 0 && u.extra_unit == 0) {
    return "time utilisation";
  }
  return UnitsToString(u);
}

}  // namespace mmvlog::format

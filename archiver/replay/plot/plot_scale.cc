#include "archiver/replay/plot/plot_scale.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace mmvlog::archiver {

ValueTicks NiceValueTicks(double lo, double hi, int max_ticks) {
  ValueTicks t;
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    lo = 0;
    hi = 1;
  }
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo <= std::max(std::abs(hi), 1.0) * 1e-12) {
    // One value: a range around it (around 0: 0..1).
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= lo == 0 ? 0 : pad;
    hi += pad;
  }
  max_ticks = std::max(max_ticks, 1);
  const double raw = (hi - lo) / max_ticks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  t.step = 10 * magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * magnitude >= raw * (1 - 1e-9)) {
      t.step = m * magnitude;
      break;
    }
  }
  // Ticks as k * step, so they are exact multiples and do not drift.
  const double first = std::floor(lo / t.step + 1e-9);
  const double last = std::ceil(hi / t.step - 1e-9);
  for (double k = first; k <= last + 0.5; ++k) t.ticks.push_back(k * t.step);
  t.lo = t.ticks.front();
  t.hi = t.ticks.back();
  return t;
}

std::string ValueTickLabel(double value, double step) {
  if (std::abs(value) < step * 1e-6) value = 0;  // no "-0" or 1e-17
  if (step >= 1e7 || (step < 1e-4 && step > 0)) return absl::StrFormat("%.3g", value);
  int decimals = 0;
  for (double s = step; decimals < 6 && std::abs(s - std::round(s)) > 1e-9 * std::max(1.0, s);
       s *= 10) {
    ++decimals;
  }
  return absl::StrFormat("%.*f", decimals, value);
}

TimeTicks NiceTimeTicks(absl::Time t0, absl::Time t1, absl::TimeZone zone, int max_ticks) {
  using absl::Hours;
  using absl::Milliseconds;
  using absl::Minutes;
  using absl::Seconds;
  static const absl::Duration kSteps[] = {
      Milliseconds(1),  Milliseconds(2),   Milliseconds(5),   Milliseconds(10),
      Milliseconds(20), Milliseconds(50),  Milliseconds(100), Milliseconds(200),
      Milliseconds(500), Seconds(1),       Seconds(2),        Seconds(5),
      Seconds(10),      Seconds(15),       Seconds(30),       Minutes(1),
      Minutes(2),       Minutes(5),        Minutes(10),       Minutes(15),
      Minutes(30),      Hours(1),          Hours(2),          Hours(3),
      Hours(6),         Hours(12),         Hours(24),         Hours(48),
      Hours(24 * 7),    Hours(24 * 14),    Hours(24 * 28)};
  TimeTicks t;
  max_ticks = std::max(max_ticks, 1);
  const absl::Duration span = t1 - t0;
  t.step = kSteps[std::size(kSteps) - 1];
  for (absl::Duration s : kSteps) {
    if (span / s <= max_ticks) {
      t.step = s;
      break;
    }
  }
  // Multiples of the step since the local midnight before t0.
  const absl::Time midnight = absl::FromCivil(absl::CivilDay(zone.At(t0).cs), zone);
  absl::Time first = midnight + absl::Floor(t0 - midnight, t.step);
  if (first < t0) first += t.step;
  for (absl::Time x = first; x <= t1 && t.ticks.size() < 1000; x += t.step) t.ticks.push_back(x);
  if (t.step < Milliseconds(10)) {
    t.format = "%H:%M:%E3S";
  } else if (t.step < Milliseconds(100)) {
    t.format = "%H:%M:%E2S";
  } else if (t.step < Seconds(1)) {
    t.format = "%H:%M:%E1S";
  } else if (t.step < Minutes(1)) {
    t.format = "%H:%M:%S";
  } else if (t.step < Hours(24)) {
    t.format = span >= Hours(24) ? "%b %d %H:%M" : "%H:%M";
  } else {
    t.format = "%b %d";
  }
  return t;
}

size_t Utf8Length(absl::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string ShortenMiddle(absl::string_view s, size_t max_chars) {
  const size_t n = Utf8Length(s);
  if (n <= max_chars) return std::string(s);
  if (max_chars <= 1) return "…";
  const size_t keep = max_chars - 1;
  const size_t head = (keep + 1) / 2;
  const size_t tail = keep - head;
  // Byte offsets of code point boundaries.
  auto offset_of = [&](size_t chars) {
    size_t seen = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
        if (seen == chars) return i;
        ++seen;
      }
    }
    return s.size();
  };
  return std::string(s.substr(0, offset_of(head))) + "…" +
         std::string(s.substr(offset_of(n - tail)));
}

}  // namespace mmvlog::archiver

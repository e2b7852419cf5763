// Axes people can read: value ticks on 1-2-5 steps (0, 20, 40, never
// 79.003), time ticks on round times of the zone shown (10:05:00, 10:05:30),
// labels with just the digits the step needs, and names shortened in the
// middle so that they fit. Pure: numbers and times in, numbers and text out.
#ifndef MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_SCALE_H_
#define MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_SCALE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace mmvlog::archiver {

struct ValueTicks {
  double lo = 0;     // the axis: the first and last tick
  double hi = 1;
  double step = 1;   // 1, 2 or 5 times a power of ten
  std::vector<double> ticks;  // lo, lo + step, ..., hi
};

// At most `max_ticks` + 1 ticks covering [lo, hi] (lo > hi is swapped; an
// empty range is widened around its value; non-finite input gives 0..1).
ValueTicks NiceValueTicks(double lo, double hi, int max_ticks = 6);

// A tick's text: as many decimals as the step needs ("0.25", "40", "1.5e+09"
// for very large or small steps), never "-0".
std::string ValueTickLabel(double value, double step);

struct TimeTicks {
  absl::Duration step;           // 1, 2, 5 ... ms, s; 1, 2, 5, 10, 15, 30 s and min; 1, 2, 3, 6, 12 h; days
  std::vector<absl::Time> ticks;  // multiples of step since local midnight, within [t0, t1]
  std::string format;            // absl::FormatTime format for their labels
};

// Round times within [t0, t1] in `zone`, at most `max_ticks` + 1 of them.
// REQUIRES: t0 <= t1.
TimeTicks NiceTimeTicks(absl::Time t0, absl::Time t1, absl::TimeZone zone, int max_ticks = 7);

// `s` cut to at most `max_chars` characters by replacing its middle with
// "…" (which counts as one): "mmv.app.very…[/api/users]". UTF-8 safe: never
// cuts inside a character.
std::string ShortenMiddle(absl::string_view s, size_t max_chars);

// The number of characters (UTF-8 code points) of `s`.
size_t Utf8Length(absl::string_view s);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_SCALE_H_

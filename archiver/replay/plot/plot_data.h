// What a plot shows, for both renderers (plot_svg, plot_html), as
// PlotOutput (plot_output.h) collects it from the rows of a replay as they
// pass: one panel per unit as shown
// (counters as rates unless raw), so that bytes/s and a count never share a
// scale, at most max_series_per_panel series each (the first columns of
// that unit to have a number; the rest are counted), and a title naming the
// archives, the host and the time shown.
//
// Series are down-sampled as they come, never kept whole: time is cut into
// at most kBuckets buckets of equal width from the first row on (the width
// doubles, merging neighbours, whenever a row falls past the last), and a
// series keeps per bucket its lowest and highest number with their times
// (a plot no wider than kBuckets pixels looks the same as one of every
// sample) and whether a gap (a <mark>, a missing value) fell in it. Memory
// follows the number of series drawn, never the length of the recording.
#ifndef MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_DATA_H_
#define MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_DATA_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace mmvlog::archiver {

struct PlotOptions {
  bool raw = false;                             // counters as stored, not as rates
  absl::TimeZone zone = absl::LocalTimeZone();  // of the times shown
  size_t max_series_per_panel = 12;
};

struct PlotBucket {
  uint32_t count = 0;     // numbers in it
  double lo = 0, hi = 0;  // the lowest and highest
  int64_t lo_ns = 0, hi_ns = 0;
  bool gap = false;       // a gap fell in it, or just before its first number
};

struct PlotSeries {
  size_t column = 0;
  std::string label;
  std::vector<PlotBucket> buckets;  // by bucket index
};

struct PlotPanel {
  std::string units;  // DisplayUnits of its series ("" for none)
  std::vector<PlotSeries> series;
  size_t left_out = 0;  // columns of these units with numbers, not drawn
};

struct PlotData {
  static constexpr size_t kBuckets = 1024;
  std::string title;
  std::vector<PlotPanel> panels;
  // The rows' times: the first and last, and per bucket its first and last.
  std::optional<int64_t> first_ns, last_ns;
  int64_t origin_ns = 0;  // of bucket 0
  int64_t width_ns = 1000000;
  std::vector<int64_t> bucket_first_ns, bucket_last_ns;  // 0 when empty
  // Help text per metric shown: name, one-line and long text.
  struct Help {
    std::string metric, oneline, text;
  };
  std::vector<std::vector<Help>> help;  // per panel
};

// The label of a panel's unit: the units, or "no units".
inline std::string UnitsLabel(const std::string& units) {
  return units.empty() ? "no units" : units;
}

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_DATA_H_

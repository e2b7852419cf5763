// What a plot of a Timeline shows, for both renderers (plot_svg, plot_html):
// one panel per unit as shown (counters as rates unless raw), so that bytes/s
// and a count never share a scale, and a title naming the archives, the host
// and the time window.
#ifndef MMVLOG_ARCHIVER_REPLAY_PLOT_PANELS_H_
#define MMVLOG_ARCHIVER_REPLAY_PLOT_PANELS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "archiver/replay/replay.h"

namespace mmvlog::archiver {

struct PlotOptions {
  bool raw = false;                             // counters as stored, not as rates
  absl::TimeZone zone = absl::LocalTimeZone();  // of the times shown
  size_t max_series_per_panel = 12;
};

struct PlotPanel {
  std::string units;            // DisplayUnits of its columns ("" for none)
  std::vector<size_t> columns;  // at most max_series_per_panel
  size_t left_out = 0;          // columns of these units not drawn
};

// The columns with at least one number among `rows`, grouped by unit in
// the order their first column appears.
std::vector<PlotPanel> PanelsByUnit(const Timeline& t, const std::vector<size_t>& rows,
                                    const PlotOptions& options);

// "run1 on host: 2026-11-24 10:00:00 to 10:05:00" (the archives' base names,
// the dates when the window spans days).
std::string PlotTitle(const Timeline& t, const std::vector<size_t>& rows, absl::TimeZone zone);

// The label of a panel's unit: the units, or "no units".
inline std::string UnitsLabel(const std::string& units) {
  return units.empty() ? "no units" : units;
}

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_PLOT_PANELS_H_

// replay --plot: PlotData drawn as an SVG picture people can read. One
// panel per unit (plot_panels.h), value ticks on 1-2-5 steps and time ticks
// on round times (plot_scale.h), every piece of text inside the picture
// (long series names shortened in the middle, the full name in a <title>),
// a title with the archives, host and time window, counters as rates, and no
// line drawn across a <mark> (a gap in the recording).
//
// Structure, for tools and tests: each panel is <g class="panel"
// data-units="..."> holding <text class="units">, <text class="ytick">,
// <text class="xtick">, <polyline class="series"> and <g class="legend">.
#ifndef MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_SVG_H_
#define MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_SVG_H_

#include <cstddef>
#include <string>
#include <vector>

#include "archiver/replay/plot/plot_data.h"

namespace mmvlog::archiver {

// The SVG document.
std::string RenderSvg(const PlotData& data, const PlotOptions& options);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_SVG_H_

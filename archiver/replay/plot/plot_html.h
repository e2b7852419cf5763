// replay --html: PlotData as one self-contained HTML page: interactive,
// zoomable charts (dygraphs, inlined: the page needs no network), one per
// unit (plot_panels.h), each with its legend and the help text of its
// metrics, counters as rates unless raw, gaps at <mark>s, times shown as
// wall-clock times of the chosen zone.
//
// Structure, for tools and tests: each chart is <section class="panel"
// data-units="..."> holding <div class="chart">, <div class="legend"> and
// <dl class="help">.
#ifndef MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_HTML_H_
#define MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_HTML_H_

#include <cstddef>
#include <string>
#include <vector>

#include "archiver/replay/plot/plot_data.h"

namespace mmvlog::archiver {

// The page.
std::string RenderHtml(const PlotData& data, const PlotOptions& options);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_HTML_H_

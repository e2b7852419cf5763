// replay --plot and --html: an Output that collects PlotData (plot_data.h)
// from the rows as they pass, then renders it (plot_svg.h, plot_html.h) into
// its files at the end.
#ifndef MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_OUTPUT_H_
#define MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_OUTPUT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "archiver/replay/output.h"
#include "archiver/replay/plot/plot_data.h"

namespace mmvlog::archiver {

// Collects PlotData from rows, then renders it into files (plot_svg.h,
// plot_html.h).
class PlotOutput : public Output {
 public:
  // Either path may be "" (not written).
  PlotOutput(std::string svg_path, std::string html_path, PlotOptions options, int64_t max_rows)
      : svg_(std::move(svg_path)), html_(std::move(html_path)), options_(options), max_rows_(max_rows) {}

  void Begin(const ReplayHeader& header) override;
  bool TakeRow(const Row& row) override;
  absl::Status End(const ReplayEnd& end) override;
  const PlotData& data() const { return data_; }

 private:
  size_t Bucket(int64_t ns);
  std::string svg_, html_;
  PlotOptions options_;
  int64_t max_rows_;
  int64_t rows_ = 0;
  PlotData data_;
  // Per column: -1 not seen yet, else its panel, and its series there (or
  // -1: left out).
  std::vector<int> panel_of_, series_of_;
  std::vector<uint8_t> gap_;  // per column: a gap since its last number
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_PLOT_PLOT_OUTPUT_H_

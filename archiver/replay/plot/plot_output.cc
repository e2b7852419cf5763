#include "archiver/replay/plot/plot_output.h"

#include <algorithm>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "archiver/replay/display_units.h"
#include "archiver/replay/plot/plot_html.h"
#include "archiver/replay/plot/plot_svg.h"
#include "archiver/file/posix_file.h"

namespace mmvlog::archiver {
namespace {

void Merge(PlotBucket& into, const PlotBucket& b) {
  if (b.count == 0) {
    into.gap |= b.gap;
    return;
  }
  if (into.count == 0) {
    const bool gap = into.gap;
    into = b;
    into.gap |= gap;
    return;
  }
  if (b.lo < into.lo) into.lo = b.lo, into.lo_ns = b.lo_ns;
  if (b.hi > into.hi) into.hi = b.hi, into.hi_ns = b.hi_ns;
  into.count += b.count;
  into.gap |= b.gap;
}

absl::Status WriteText(const std::string& path, const std::string& text) {
  return WriteFileAtomically(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace

void PlotOutput::Begin(const ReplayHeader& header) {
  Output::Begin(header);
  const size_t n = header.columns->size();
  panel_of_.assign(n, -1);
  series_of_.assign(n, -1);
  gap_.assign(n, 0);
  data_.bucket_first_ns.assign(PlotData::kBuckets, 0);
  data_.bucket_last_ns.assign(PlotData::kBuckets, 0);
}

size_t PlotOutput::Bucket(int64_t ns) {
  if (!data_.first_ns) {
    data_.first_ns = ns;
    data_.origin_ns = ns;
  }
  data_.last_ns = ns;
  uint64_t b = static_cast<uint64_t>(std::max<int64_t>(0, ns - data_.origin_ns)) /
               static_cast<uint64_t>(data_.width_ns);
  while (b >= PlotData::kBuckets) {
    // Twice as wide: bucket i takes 2i and 2i + 1.
    data_.width_ns *= 2;
    b /= 2;
    for (size_t i = 0; i < PlotData::kBuckets; ++i) {
      const size_t a = 2 * i, c = 2 * i + 1;
      int64_t first = a < PlotData::kBuckets ? data_.bucket_first_ns[a] : 0;
      int64_t last = a < PlotData::kBuckets ? data_.bucket_last_ns[a] : 0;
      if (c < PlotData::kBuckets && data_.bucket_first_ns[c] != 0) {
        if (first == 0) first = data_.bucket_first_ns[c];
        last = data_.bucket_last_ns[c];
      }
      data_.bucket_first_ns[i] = first;
      data_.bucket_last_ns[i] = last;
    }
    for (PlotPanel& p : data_.panels) {
      for (PlotSeries& s : p.series) {
        std::vector<PlotBucket> merged(PlotData::kBuckets);
        for (size_t i = 0; i < PlotData::kBuckets / 2; ++i) {
          merged[i] = s.buckets[2 * i];
          Merge(merged[i], s.buckets[2 * i + 1]);
        }
        s.buckets = std::move(merged);
      }
    }
  }
  if (data_.bucket_first_ns[b] == 0) data_.bucket_first_ns[b] = ns;
  data_.bucket_last_ns[b] = ns;
  return static_cast<size_t>(b);
}

bool PlotOutput::TakeRow(const Row& row) {
  if (!row.mark) {
    if (max_rows_ > 0 && rows_ >= max_rows_) return false;
    ++rows_;
  }
  const ColumnSet& columns = *header_.columns;
  if (row.mark) {
    std::fill(gap_.begin(), gap_.end(), 1);
    return true;
  }
  const int64_t ns = absl::ToUnixNanos(format::ToAbslTime(row.time));
  const size_t b = Bucket(ns);
  for (size_t c = 0; c < columns.size(); ++c) {
    if (row.shown[c] != kNumber) {
      gap_[c] = 1;  // no number (a reset, an instance away): a gap
      continue;
    }
    if (panel_of_[c] < 0) {
      // Its first number: a series of its unit's panel, if there is room.
      const std::string units = DisplayUnits(columns.desc(c), options_.raw);
      size_t p = 0;
      while (p < data_.panels.size() && data_.panels[p].units != units) ++p;
      if (p == data_.panels.size()) data_.panels.push_back(PlotPanel{units, {}, 0});
      panel_of_[c] = static_cast<int>(p);
      PlotPanel& panel = data_.panels[p];
      if (panel.series.size() < options_.max_series_per_panel) {
        series_of_[c] = static_cast<int>(panel.series.size());
        panel.series.push_back(PlotSeries{c, columns.Label(c), std::vector<PlotBucket>(PlotData::kBuckets)});
      } else {
        ++panel.left_out;
      }
      gap_[c] = 0;
    }
    if (series_of_[c] < 0) continue;
    PlotBucket& k = data_.panels[panel_of_[c]].series[series_of_[c]].buckets[b];
    const double v = row.numbers[c];
    if (gap_[c]) k.gap = true;
    gap_[c] = 0;
    if (k.count == 0 || v < k.lo) k.lo = v, k.lo_ns = ns;
    if (k.count == 0 || v > k.hi) k.hi = v, k.hi_ns = ns;
    ++k.count;
  }
  return max_rows_ == 0 || rows_ < max_rows_;
}

absl::Status PlotOutput::End(const ReplayEnd& end) {
  const ColumnSet& columns = *header_.columns;
  std::vector<std::string> names;
  for (const std::string& a : end.archives) names.push_back(a.substr(a.rfind('/') + 1));
  data_.title = absl::StrCat(absl::StrJoin(names, ", "), " on ", end.host);
  if (data_.first_ns) {
    const absl::Time first = absl::FromUnixNanos(*data_.first_ns);
    const absl::Time last = absl::FromUnixNanos(*data_.last_ns);
    const bool same_day =
        absl::ToCivilDay(first, options_.zone) == absl::ToCivilDay(last, options_.zone);
    absl::StrAppend(&data_.title, ": ", absl::FormatTime("%Y-%m-%d %H:%M:%S", first, options_.zone),
                    " to ",
                    absl::FormatTime(same_day ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S", last, options_.zone));
  }
  data_.help.clear();
  for (PlotPanel& p : data_.panels) {
    std::sort(p.series.begin(), p.series.end(),
              [](const PlotSeries& a, const PlotSeries& b) { return a.column < b.column; });
  }
  // Panels in the order of their first column, whichever had a number first.
  std::stable_sort(data_.panels.begin(), data_.panels.end(), [](const PlotPanel& a, const PlotPanel& b) {
    const size_t x = a.series.empty() ? SIZE_MAX : a.series.front().column;
    const size_t y = b.series.empty() ? SIZE_MAX : b.series.front().column;
    return x < y;
  });
  for (PlotPanel& p : data_.panels) {
    std::vector<PlotData::Help> help;
    std::vector<size_t> shown;
    for (const PlotSeries& s : p.series) {
      const size_t m = columns.columns()[s.column].metric;
      if (std::find(shown.begin(), shown.end(), m) != shown.end()) continue;
      shown.push_back(m);
      const ReplayMetric& metric = columns.metrics()[m];
      help.push_back({metric.name, metric.oneline, metric.help});
    }
    data_.help.push_back(std::move(help));
  }
  if (!svg_.empty()) {
    if (absl::Status s = WriteText(svg_, RenderSvg(data_, options_)); !s.ok()) return s;
  }
  if (!html_.empty()) {
    if (absl::Status s = WriteText(html_, RenderHtml(data_, options_)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace mmvlog::archiver

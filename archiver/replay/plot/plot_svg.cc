#include "archiver/replay/plot/plot_svg.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "format/utf8.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "archiver/replay/plot/plot_scale.h"

namespace mmvlog::archiver {
namespace {

// Layout, in pixels. Text widths are estimated at 0.6 em per character,
// generous for the sans-serif fonts browsers use.
constexpr double kWidth = 1000;
constexpr double kRight = 48;          // room for the last time label
constexpr double kPlotHeight = 200;
constexpr double kFont = 12;
constexpr double kTitleFont = 16;
constexpr double kCharWidth = 0.6 * kFont;
constexpr double kLegendLine = 18;

const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                               "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939"};

std::string Escape(absl::string_view s) {
  // UTF-8 as it is; bytes that are not UTF-8, and the control characters
  // XML 1.0 does not allow, as U+FFFD.
  std::string text;
  for (char c : format::ValidUtf8(s)) {
    const bool allowed = static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n' || c == '\r';
    text += allowed ? std::string(1, c) : std::string("\xEF\xBF\xBD");
  }
  return absl::StrReplaceAll(text, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"},
                                    {"'", "&#39;"}});
}

// A series' points in time order: per bucket its lowest and highest
// number (one point when they are the same sample), with where a line
// breaks (before a bucket a gap fell in).
struct Point {
  int64_t ns;
  double v;
  bool break_before;
};

std::vector<Point> PointsOf(const PlotSeries& s) {
  std::vector<Point> out;
  for (const PlotBucket& b : s.buckets) {
    if (b.count == 0) continue;
    const bool one = b.lo_ns == b.hi_ns;
    const bool lo_first = b.lo_ns <= b.hi_ns;
    out.push_back({lo_first ? b.lo_ns : b.hi_ns, lo_first ? b.lo : b.hi, b.gap});
    if (!one) out.push_back({lo_first ? b.hi_ns : b.lo_ns, lo_first ? b.hi : b.lo, false});
  }
  return out;
}

}  // namespace

// One piece: one SVG document written top to bottom; every part uses the
// same layout's coordinates.
std::string RenderSvg(const PlotData& data, const PlotOptions& options) {
  const std::vector<PlotPanel>& panels = data.panels;
  absl::Time t0 = absl::UnixEpoch(), t1 = absl::UnixEpoch() + absl::Seconds(1);
  if (data.first_ns) {
    t0 = absl::FromUnixNanos(*data.first_ns);
    t1 = std::max(absl::FromUnixNanos(*data.last_ns), t0 + absl::Milliseconds(1));
  }
  const TimeTicks time_ticks = NiceTimeTicks(t0, t1, options.zone);

  // Each panel's value axis, then the left margin its labels need.
  std::vector<ValueTicks> axes;
  size_t widest = 1;
  for (const PlotPanel& p : panels) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const PlotSeries& s : p.series) {
      for (const PlotBucket& b : s.buckets) {
        if (b.count == 0) continue;
        lo = std::min(lo, b.lo);
        hi = std::max(hi, b.hi);
      }
    }
    axes.push_back(NiceValueTicks(lo, hi, 5));
    for (double v : axes.back().ticks) {
      widest = std::max(widest, ValueTickLabel(v, axes.back().step).size());
    }
  }
  const double left = 16 + widest * kCharWidth;
  const double plot_width = kWidth - left - kRight;
  const size_t legend_chars = static_cast<size_t>((kWidth - left - 24 - 8) / kCharWidth);
  auto x_of = [&](absl::Time when) {
    return left + absl::FDivDuration(when - t0, t1 - t0) * plot_width;
  };

  std::string body;
  double y = 70;  // top of the next panel
  for (size_t k = 0; k < panels.size(); ++k) {
    const PlotPanel& p = panels[k];
    const ValueTicks& axis = axes[k];
    const double top = y;
    const double bottom = top + kPlotHeight;
    auto y_of = [&](double v) { return bottom - (v - axis.lo) / (axis.hi - axis.lo) * kPlotHeight; };
    absl::StrAppendFormat(&body, "<g class=\"panel\" data-units=\"%s\">\n",
                          Escape(UnitsLabel(p.units)));
    absl::StrAppendFormat(&body, "<text class=\"units\" x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n",
                          left, top - 8,
                          Escape(ShortenMiddle(UnitsLabel(p.units), legend_chars)));
    absl::StrAppendFormat(&body, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                                 "fill=\"none\" stroke=\"#333\"/>\n",
                          left, top, plot_width, kPlotHeight);
    for (double v : axis.ticks) {
      absl::StrAppendFormat(&body,
                            "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                            "<text class=\"ytick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                            left, left + plot_width, y_of(v), y_of(v), left - 6, y_of(v) + 4,
                            ValueTickLabel(v, axis.step));
    }
    for (absl::Time tick : time_ticks.ticks) {
      const std::string label = absl::FormatTime(time_ticks.format, tick, options.zone);
      const double x = x_of(tick);
      const double half = label.size() * kCharWidth / 2;
      // Centred under its tick, unless that would leave the picture.
      const char* anchor = x + half > kWidth - 2 ? "end" : (x - half < 2 ? "start" : "middle");
      absl::StrAppendFormat(&body,
                            "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                            "<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
                            x, x, top, bottom, x, bottom + 16, anchor, label);
    }
    for (size_t s = 0; s < p.series.size(); ++s) {
      const char* color = kColors[s % std::size(kColors)];
      std::string points;
      auto flush = [&] {
        if (!points.empty()) {
          absl::StrAppend(&body, "<polyline class=\"series\" fill=\"none\" stroke-width=\"2\" stroke=\"",
                          color, "\" points=\"", points, "\"/>\n");
        }
        points.clear();
      };
      for (const Point& pt : PointsOf(p.series[s])) {
        if (pt.break_before) flush();  // a <mark> or a missing value: a gap
        absl::StrAppendFormat(&points, "%.1f,%.1f ", x_of(absl::FromUnixNanos(pt.ns)), y_of(pt.v));
      }
      flush();
    }
    // The legend, under the panel, one series a line.
    double ly = bottom + 40;
    absl::StrAppend(&body, "<g class=\"legend\">\n");
    for (size_t s = 0; s < p.series.size(); ++s) {
      const std::string& name = p.series[s].label;
      absl::StrAppendFormat(&body,
                            "<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"4\" fill=\"%s\"/>"
                            "<text x=\"%.1f\" y=\"%.1f\"><title>%s</title>%s</text>\n",
                            left, ly - 6, kColors[s % std::size(kColors)], left + 24, ly,
                            Escape(name), Escape(ShortenMiddle(name, legend_chars)));
      ly += kLegendLine;
    }
    if (p.left_out > 0) {
      absl::StrAppendFormat(&body, "<text x=\"%.1f\" y=\"%.1f\" font-style=\"italic\">%s</text>\n",
                            left + 24, ly,
                            absl::StrCat("and ", p.left_out, " more series of these units, not drawn"));
      ly += kLegendLine;
    }
    absl::StrAppend(&body, "</g>\n</g>\n");
    y = ly + 40;
  }
  if (panels.empty()) {
    absl::StrAppendFormat(&body, "<text x=\"%.1f\" y=\"%.1f\">no numeric values to plot</text>\n",
                          20.0, y);
    y += 30;
  }
  const double height = y;
  const size_t title_chars = static_cast<size_t>((kWidth - 40) / (0.6 * kTitleFont));
  const std::string& title = data.title;
  const std::string subtitle = options.raw ? "values as stored" : "counters as rates per second";
  std::string o = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"%.0f\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      kWidth, height, kWidth, height, kFont);
  absl::StrAppendFormat(&o, "<text class=\"title\" x=\"20\" y=\"28\" font-size=\"%.0f\">"
                            "<title>%s</title>%s</text>\n",
                        kTitleFont, Escape(title), Escape(ShortenMiddle(title, title_chars)));
  absl::StrAppendFormat(&o, "<text class=\"subtitle\" x=\"20\" y=\"48\" fill=\"#555\">%s</text>\n",
                        subtitle);
  return o + body + "</svg>\n";
}

}  // namespace mmvlog::archiver

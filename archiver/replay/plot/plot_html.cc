#include "archiver/replay/plot/plot_html.h"

#include <algorithm>
#include <optional>

#include "format/utf8.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "archiver/replay/plot/dygraphs_embed.h"
#include "format/json.h"

namespace mmvlog::archiver {
namespace {

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

// JSON that may stand inside <script>: no "</" (a metric name could hold
// "</script>") and no U+2028/2029 (line breaks to older JavaScript).
std::string ScriptSafe(std::string json) {
  return absl::StrReplaceAll(json, {{"</", "<\\/"}, {"\xE2\x80\xA8", "\\u2028"},
                                    {"\xE2\x80\xA9", "\\u2029"}});
}

constexpr char kPageCss[] = R"(
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; }
.subtitle { color: #555; }
section.panel { margin: 1.5em 0 2.5em 0; }
section.panel h2 { font-size: 1.05em; margin-bottom: 0.3em; }
.chart { width: 100%; height: 320px; }
.legend { font-size: 0.85em; min-height: 1.4em; margin: 0.4em 0; }
dl.help { font-size: 0.85em; color: #333; }
dl.help dt { font-family: monospace; margin-top: 0.4em; }
dl.help dd { margin-left: 1.5em; white-space: pre-wrap; }
)";

// Draws every panel from PANELS once the page has loaded. Times arrive as
// milliseconds of the chosen zone's wall clock, shown with labelsUTC so that
// the browser's own zone does not shift them.
constexpr char kPageScript[] = R"(
function pad(n, w) { var s = String(n); while (s.length < w) s = '0' + s; return s; }
// Times as the zone's wall clock (the data is already shifted: read in UTC):
// HH:MM:SS, with milliseconds when the tick has them, the date at midnight.
function wallClock(d) {
  var t = pad(d.getUTCHours(), 2) + ':' + pad(d.getUTCMinutes(), 2) + ':' + pad(d.getUTCSeconds(), 2);
  if (d.getUTCMilliseconds()) t += '.' + pad(d.getUTCMilliseconds(), 3);
  if (t === '00:00:00') t = d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1, 2) + '-' + pad(d.getUTCDate(), 2);
  return t;
}
function wallClockFull(ms) {
  var d = new Date(ms);
  return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1, 2) + '-' + pad(d.getUTCDate(), 2) + ' ' +
         pad(d.getUTCHours(), 2) + ':' + pad(d.getUTCMinutes(), 2) + ':' + pad(d.getUTCSeconds(), 2) + '.' +
         pad(d.getUTCMilliseconds(), 3);
}
window.addEventListener('load', function () {
  PANELS.forEach(function (p, k) {
    var rows = p.rows.map(function (r) {
      return [new Date(r[0])].concat(r.slice(1));
    });
    new Dygraph(document.getElementById('chart' + k), rows, {
      labels: ['Time'].concat(p.series),
      labelsUTC: true,
      labelsDiv: document.getElementById('legend' + k),
      legend: 'always',
      labelsSeparateLines: false,
      ylabel: p.units,
      axes: { x: { axisLabelFormatter: wallClock, valueFormatter: wallClockFull } },
      showRangeSelector: true,
      connectSeparatedPoints: false,
      strokeWidth: 1.5,
      animatedZooms: false
    });
  });
});
)";

}  // namespace

// One piece: one HTML page written top to bottom.
std::string RenderHtml(const PlotData& plot, const PlotOptions& options) {
  const std::vector<PlotPanel>& panels = plot.panels;
  const std::string& title = plot.title;
  // Times arrive as milliseconds of the zone's wall clock.
  auto wall_ms = [&](int64_t ns) {
    const absl::Time when = absl::FromUnixNanos(ns);
    return absl::ToUnixMillis(when) + int64_t{options.zone.At(when).offset} * 1000;
  };
  // The data: per panel its units, series names and rows [ms, v, v, ...]:
  // per bucket one row at its first row's time, and one at its last when
  // it holds more, with each series' lowest and highest number in the
  // order they came (down-sampled as plot_data.h says); a row of nulls
  // before a bucket where a series had a gap breaks its line there.
  std::string data = "[";
  for (size_t k = 0; k < panels.size(); ++k) {
    const PlotPanel& p = panels[k];
    absl::StrAppend(&data, k ? "," : "", "{\"units\":", format::JsonString(UnitsLabel(p.units)),
                    ",\"series\":[");
    for (size_t s = 0; s < p.series.size(); ++s) {
      absl::StrAppend(&data, s ? "," : "", format::JsonString(p.series[s].label));
    }
    absl::StrAppend(&data, "],\"rows\":[");
    bool first = true;
    auto row = [&](int64_t ns, const std::vector<std::string>& cells) {
      absl::StrAppend(&data, first ? "" : ",", "[", wall_ms(ns));
      first = false;
      for (const std::string& c : cells) absl::StrAppend(&data, ",", c);
      absl::StrAppend(&data, "]");
    };
    std::vector<std::string> a(p.series.size()), b(p.series.size());
    for (size_t i = 0; i < PlotData::kBuckets; ++i) {
      if (plot.bucket_first_ns[i] == 0) continue;
      const int64_t t0 = plot.bucket_first_ns[i], t1 = plot.bucket_last_ns[i];
      bool any = false, gap = false;
      for (size_t s = 0; s < p.series.size(); ++s) {
        const PlotBucket& x = p.series[s].buckets[i];
        a[s] = b[s] = "null";
        if (x.count == 0) continue;
        any = true;
        gap |= x.gap;
        const bool lo_first = x.lo_ns <= x.hi_ns;
        a[s] = format::JsonNumber(lo_first ? x.lo : x.hi);
        b[s] = x.count > 1 ? format::JsonNumber(lo_first ? x.hi : x.lo) : a[s];
      }
      if (!any) continue;
      if (gap && !first) row(t0 - 1, std::vector<std::string>(p.series.size(), "null"));
      row(t0, a);
      if (t1 != t0) row(t1, b);
    }
    absl::StrAppend(&data, "]}");
  }
  data += "]";

  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  absl::StrAppend(&o, "<title>", Escape(title), "</title>\n<style>\n",
                  absl::string_view(kDygraphsCss, kDygraphsCssSize), kPageCss, "</style>\n");
  // The library inline; a "</script" inside it would end the element early.
  absl::StrAppend(&o, "<script>\n",
                  absl::StrReplaceAll(absl::string_view(kDygraphsJs, kDygraphsJsSize),
                                      {{"</script", "<\\/script"}}),
                  "\n</script>\n</head>\n<body>\n");
  absl::StrAppend(&o, "<h1>", Escape(title), "</h1>\n<p class=\"subtitle\">",
                  options.raw ? "Values as stored." : "Counters as rates per second.",
                  " Drag to zoom, double-click to zoom out, or use the range selector under each "
                  "chart. Times are wall-clock times in ",
                  Escape(!plot.first_ns ? options.zone.name()
                                        : absl::FormatTime("%Z (UTC%Ez)",
                                                           absl::FromUnixNanos(*plot.first_ns),
                                                           options.zone)),
                  ".</p>\n");
  if (panels.empty()) absl::StrAppend(&o, "<p>No numeric values to plot.</p>\n");
  for (size_t k = 0; k < panels.size(); ++k) {
    const PlotPanel& p = panels[k];
    absl::StrAppend(&o, "<section class=\"panel\" data-units=\"", Escape(UnitsLabel(p.units)),
                    "\">\n<h2>", Escape(UnitsLabel(p.units)), "</h2>\n<div class=\"chart\" id=\"chart",
                    k, "\"></div>\n<div class=\"legend\" id=\"legend", k, "\"></div>\n");
    if (p.left_out > 0) {
      absl::StrAppend(&o, "<p>And ", p.left_out, " more series of these units, not drawn.</p>\n");
    }
    absl::StrAppend(&o, "<dl class=\"help\">\n");
    for (const PlotData::Help& h : plot.help[k]) {
      absl::StrAppend(&o, "<dt>", Escape(h.metric), "</dt><dd>",
                      Escape(h.oneline.empty() && h.text.empty() ? "(no help text)" : h.oneline),
                      h.text.empty() || h.text == h.oneline ? "" : absl::StrCat("\n", Escape(h.text)),
                      "</dd>\n");
    }
    absl::StrAppend(&o, "</dl>\n</section>\n");
  }
  absl::StrAppend(&o, "<script>\nvar PANELS = ", ScriptSafe(data), ";\n", kPageScript,
                  "</script>\n</body>\n</html>\n");
  return o;
}

}  // namespace mmvlog::archiver

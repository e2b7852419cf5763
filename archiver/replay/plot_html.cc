#include "archiver/replay/plot_html.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "archiver/replay/dygraphs_embed.h"
#include "format/json.h"

namespace mmvlog::archiver {
namespace {

std::string Escape(absl::string_view s) {
  return absl::StrReplaceAll(s, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
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
      showRangeSelector: true,
      connectSeparatedPoints: false,
      strokeWidth: 1.5,
      animatedZooms: false
    });
  });
});
)";

}  // namespace

std::string RenderHtml(const Timeline& t, const std::vector<size_t>& rows,
                       const PlotOptions& options) {
  const std::vector<PlotPanel> panels = PanelsByUnit(t, rows, options);
  const std::string title = PlotTitle(t, rows, options.zone);
  // The data: per panel its units, series names and rows [ms, v, v, ...].
  std::string data = "[";
  for (size_t k = 0; k < panels.size(); ++k) {
    const PlotPanel& p = panels[k];
    absl::StrAppend(&data, k ? "," : "", "{\"units\":", format::JsonString(UnitsLabel(p.units)),
                    ",\"series\":[");
    for (size_t s = 0; s < p.columns.size(); ++s) {
      absl::StrAppend(&data, s ? "," : "", format::JsonString(t.columns[p.columns[s]].label()));
    }
    absl::StrAppend(&data, "],\"rows\":[");
    bool first = true;
    for (size_t r : rows) {
      const absl::Time when = format::ToAbslTime(t.rows[r].time);
      const int64_t ms =
          absl::ToUnixMillis(when) + int64_t{options.zone.At(when).offset} * 1000;
      absl::StrAppend(&data, first ? "" : ",", "[", ms);
      first = false;
      for (size_t c : p.columns) {
        // A <mark> row has no values: the lines break there.
        std::optional<double> v;
        if (!t.rows[r].mark) v = NumericValue(t, r, c, options.raw);
        absl::StrAppend(&data, ",", v ? format::JsonNumber(*v) : "null");
      }
      absl::StrAppend(&data, "]");
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
                  Escape(rows.empty() ? options.zone.name()
                                      : absl::FormatTime("%Z (UTC%Ez)",
                                                         format::ToAbslTime(t.rows[rows[0]].time),
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
    std::vector<uint32_t> shown;
    for (size_t c : p.columns) {
      const uint32_t pmid = t.columns[c].pmid;
      if (std::find(shown.begin(), shown.end(), pmid) != shown.end()) continue;
      shown.push_back(pmid);
      auto it = t.help.find(pmid);
      const std::string oneline = it != t.help.end() ? it->second.first : "";
      const std::string text = it != t.help.end() ? it->second.second : "";
      absl::StrAppend(&o, "<dt>", Escape(t.columns[c].metric), "</dt><dd>",
                      Escape(oneline.empty() && text.empty() ? "(no help text)" : oneline),
                      text.empty() || text == oneline ? "" : absl::StrCat("\n", Escape(text)),
                      "</dd>\n");
    }
    absl::StrAppend(&o, "</dl>\n</section>\n");
  }
  absl::StrAppend(&o, "<script>\nvar PANELS = ", ScriptSafe(data), ";\n", kPageScript,
                  "</script>\n</body>\n</html>\n");
  return o;
}

}  // namespace mmvlog::archiver

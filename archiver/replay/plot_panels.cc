#include "archiver/replay/plot_panels.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mmvlog::archiver {

std::vector<PlotPanel> PanelsByUnit(const Timeline& t, const std::vector<size_t>& rows,
                                    const PlotOptions& options) {
  std::vector<PlotPanel> panels;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    bool numeric = false;
    for (size_t r : rows) {
      if (NumericValue(t, r, c, options.raw)) {
        numeric = true;
        break;
      }
    }
    if (!numeric) continue;
    const std::string units = DisplayUnits(t, c, options.raw);
    PlotPanel* panel = nullptr;
    for (PlotPanel& p : panels) {
      if (p.units == units) panel = &p;
    }
    if (panel == nullptr) {
      panels.push_back(PlotPanel{units, {}, 0});
      panel = &panels.back();
    }
    if (panel->columns.size() < options.max_series_per_panel) {
      panel->columns.push_back(c);
    } else {
      ++panel->left_out;
    }
  }
  return panels;
}

std::string PlotTitle(const Timeline& t, const std::vector<size_t>& rows, absl::TimeZone zone) {
  std::vector<std::string> names;
  for (const std::string& a : t.archives) names.push_back(a.substr(a.rfind('/') + 1));
  std::string title = absl::StrCat(absl::StrJoin(names, ", "), " on ", t.host);
  if (!rows.empty()) {
    const absl::Time first = format::ToAbslTime(t.rows[rows.front()].time);
    const absl::Time last = format::ToAbslTime(t.rows[rows.back()].time);
    const bool same_day = absl::ToCivilDay(first, zone) == absl::ToCivilDay(last, zone);
    absl::StrAppend(&title, ": ", absl::FormatTime("%Y-%m-%d %H:%M:%S", first, zone), " to ",
                    absl::FormatTime(same_day ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S", last, zone));
  }
  return title;
}

}  // namespace mmvlog::archiver

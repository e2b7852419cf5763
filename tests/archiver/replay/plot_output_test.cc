// PlotOutput (replay --plot, --html): the down-sampling keeps at most
// PlotData::kBuckets buckets a series however many rows pass (100k here),
// each bucket's lowest and highest number are the true extremes of the rows
// in it (checked against the rows themselves), a <mark> or a missing number
// breaks the line, a panel has at most max_series_per_panel series and
// counts the rest; RenderSvg and RenderHtml give the structure their
// headers document.
#include "archiver/replay/plot/plot_output.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "archiver/replay/plot/plot_html.h"
#include "archiver/replay/plot/plot_svg.h"
#include "format/archive/archive_format.h"
#include "tests/archiver/replay/replay_test_util.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::OpenArchives;
using ::mmvlog::testing::TestArchive;
using ::testing::HasSubstr;
using ::testing::Not;

// Five counters (one unit) and two instants without units: only the
// metadata is used; rows are made here.
std::unique_ptr<testing::Opened> Columns() {
  TestArchive a({
      {"c", format::kTypeU64, format::kSemCounter, "count", {{0, "i0"}, {1, "i1"}, {2, "i2"}, {3, "i3"}, {4, "i4"}},
       "requests served", "Requests served since start.\nEvery kind."},
      {"g", format::kTypeDouble, format::kSemInstant, "none", {}, "load </script> & more"},
      {"h", format::kTypeDouble, format::kSemInstant, "none"},
  });
  a.Record(0, {{"g", 0.0}});
  return OpenArchives({a.Write("plot")});
}

int64_t T0Ns() { return testing::kT0 * int64_t{1000000000}; }

// A row at `ns` with `v(c)` in every column (NaN: no number).
template <typename F>
Row MakeRow(size_t width, int64_t ns, F v) {
  Row r;
  r.Clear(width);
  r.time = format::ToTimestamp(absl::FromUnixNanos(ns));
  r.grid = true;
  for (size_t c = 0; c < width; ++c) {
    const double x = v(c);
    if (std::isnan(x)) continue;
    r.kinds[c] = kDouble;
    r.bits[c] = std::bit_cast<uint64_t>(x);
    r.shown[c] = kNumber;
    r.numbers[c] = x;
  }
  return r;
}

// A value per row with spikes: the extremes of a bucket are not its ends.
double Wave(int64_t k, size_t c) {
  if (k == 54321) return 1e6;
  if (k == 77777) return -1e6;
  return std::sin(k * 0.001 * (c + 1)) * 100 + static_cast<double>((k * 7919) % 101);
}

TEST(PlotOutput, DownSamplesToAtMostKBucketsWithTheTrueExtremes) {
  auto o = Columns();
  ASSERT_NE(o, nullptr);
  const size_t width = o->columns.size();
  PlotOptions options;
  options.zone = absl::UTCTimeZone();
  PlotOutput out("", "", options, 0);
  out.Begin(testing::HeaderFor(*o, false, absl::Milliseconds(10)));
  constexpr int64_t kRows = 100000;
  const int64_t step = 10'000'000;  // 10 ms
  for (int64_t k = 0; k < kRows; ++k) {
    ASSERT_TRUE(out.TakeRow(MakeRow(width, T0Ns() + k * step, [&](size_t c) { return Wave(k, c); })));
  }
  ASSERT_TRUE(out.End({}).ok());
  const PlotData& d = out.data();
  ASSERT_TRUE(d.first_ns.has_value());
  EXPECT_EQ(*d.first_ns, T0Ns());
  EXPECT_EQ(*d.last_ns, T0Ns() + (kRows - 1) * step);
  EXPECT_LE(d.bucket_first_ns.size(), PlotData::kBuckets);
  // The buckets cover the rows: kRows * step / width < kBuckets.
  EXPECT_LE((kRows - 1) * step / d.width_ns, static_cast<int64_t>(PlotData::kBuckets) - 1);
  EXPECT_GT((kRows - 1) * step / d.width_ns, static_cast<int64_t>(PlotData::kBuckets) / 4);  // and use them

  // The extremes per bucket, from the rows themselves.
  struct Extremes {
    uint32_t n = 0;
    double lo = 0, hi = 0;
    int64_t lo_ns = 0, hi_ns = 0;
  };
  size_t series = 0;
  for (const PlotPanel& p : d.panels) {
    for (const PlotSeries& s : p.series) {
      ++series;
      ASSERT_LE(s.buckets.size(), PlotData::kBuckets);
      std::vector<Extremes> want(PlotData::kBuckets);
      for (int64_t k = 0; k < kRows; ++k) {
        const int64_t ns = T0Ns() + k * step;
        const size_t b = static_cast<size_t>((ns - d.origin_ns) / d.width_ns);
        ASSERT_LT(b, PlotData::kBuckets);
        const double v = Wave(k, s.column);
        Extremes& e = want[b];
        if (e.n == 0 || v < e.lo) e.lo = v, e.lo_ns = ns;
        if (e.n == 0 || v > e.hi) e.hi = v, e.hi_ns = ns;
        ++e.n;
      }
      uint64_t total = 0;
      for (size_t b = 0; b < s.buckets.size(); ++b) {
        const PlotBucket& got = s.buckets[b];
        total += got.count;
        ASSERT_EQ(got.count, want[b].n) << s.label << " bucket " << b;
        if (got.count == 0) continue;
        ASSERT_EQ(got.lo, want[b].lo) << s.label << " bucket " << b;
        ASSERT_EQ(got.hi, want[b].hi) << s.label << " bucket " << b;
        ASSERT_EQ(got.lo_ns, want[b].lo_ns) << s.label << " bucket " << b;
        ASSERT_EQ(got.hi_ns, want[b].hi_ns) << s.label << " bucket " << b;
        EXPECT_FALSE(got.gap);
      }
      EXPECT_EQ(total, static_cast<uint64_t>(kRows));
      // The spikes survive.
      double lo = 0, hi = 0;
      for (const PlotBucket& b : s.buckets) {
        if (b.count == 0) continue;
        lo = std::min(lo, b.lo);
        hi = std::max(hi, b.hi);
      }
      EXPECT_EQ(hi, 1e6);
      EXPECT_EQ(lo, -1e6);
    }
  }
  EXPECT_EQ(series, width);
}

TEST(PlotOutput, AtMostMaxSeriesPerPanelTheRestCounted) {
  auto o = Columns();
  ASSERT_NE(o, nullptr);
  const size_t width = o->columns.size();
  PlotOptions options;
  options.zone = absl::UTCTimeZone();
  options.max_series_per_panel = 3;
  PlotOutput out("", "", options, 0);
  out.Begin(testing::HeaderFor(*o, false, std::nullopt));
  for (int64_t k = 0; k < 10; ++k) {
    out.TakeRow(MakeRow(width, T0Ns() + k * 1'000'000'000, [&](size_t c) { return static_cast<double>(c + k); }));
  }
  ASSERT_TRUE(out.End({}).ok());
  const PlotData& d = out.data();
  ASSERT_EQ(d.panels.size(), 2u);
  EXPECT_EQ(d.panels[0].units, "count / sec");
  ASSERT_EQ(d.panels[0].series.size(), 3u);
  EXPECT_EQ(d.panels[0].left_out, 2u);
  EXPECT_EQ(d.panels[0].series[0].label, "c[i0]");
  EXPECT_EQ(d.panels[0].series[2].label, "c[i2]");
  EXPECT_EQ(d.panels[1].units, "");
  EXPECT_EQ(d.panels[1].series.size(), 2u);
  EXPECT_EQ(d.panels[1].left_out, 0u);

  const std::string svg = RenderSvg(d, options);
  EXPECT_THAT(svg, HasSubstr("and 2 more series of these units, not drawn"));
  const std::string html = RenderHtml(d, options);
  EXPECT_THAT(html, HasSubstr("And 2 more series of these units, not drawn."));
}

// The parts of `text` from each `open` to the next (or the end).
std::vector<std::string> Pieces(const std::string& text, const std::string& open) {
  std::vector<std::string> out;
  size_t at = text.find(open);
  while (at != std::string::npos) {
    const size_t next = text.find(open, at + open.size());
    out.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
    at = next;
  }
  return out;
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Rows 0..99 a second apart, a <mark> after row 49, column 1 missing at
// row 80.
PlotData GappedData(const testing::Opened& o, const PlotOptions& options, std::string svg = "",
                    std::string html = "") {
  const size_t width = o.columns.size();
  PlotOutput out(svg, html, options, 0);
  out.Begin(testing::HeaderFor(o, false, std::nullopt));
  for (int64_t k = 0; k < 100; ++k) {
    if (k == 50) {
      Row mark;
      mark.Clear(width);
      mark.time = format::ToTimestamp(absl::FromUnixNanos(T0Ns() + 49'500'000'000));
      mark.mark = true;
      out.TakeRow(mark);
    }
    out.TakeRow(MakeRow(width, T0Ns() + k * 1'000'000'000, [&](size_t c) {
      return c == 1 && k == 80 ? std::nan("") : static_cast<double>(k % 7 + c);
    }));
  }
  archiver::ReplayEnd end;
  end.archives = {"/some/dir/arch1"};
  end.host = "host";
  EXPECT_TRUE(out.End(end).ok());
  return out.data();
}

TEST(PlotOutput, AMarkOrAMissingNumberBreaksTheLine) {
  auto o = Columns();
  ASSERT_NE(o, nullptr);
  PlotOptions options;
  options.zone = absl::UTCTimeZone();
  const PlotData d = GappedData(*o, options);
  ASSERT_FALSE(d.panels.empty());
  const PlotSeries& s0 = d.panels[0].series[0];
  const PlotSeries& s1 = d.panels[0].series[1];
  // The bucket of the first number after the mark has the gap, and only it.
  auto gap_buckets = [&](const PlotSeries& s) {
    std::vector<int64_t> firsts;
    for (size_t b = 0; b < s.buckets.size(); ++b) {
      if (s.buckets[b].count > 0 && s.buckets[b].gap) firsts.push_back(d.bucket_first_ns[b]);
    }
    return firsts;
  };
  EXPECT_THAT(gap_buckets(s0), ::testing::ElementsAre(T0Ns() + 50'000'000'000));
  // The mark, and the row after the missing number at row 80.
  EXPECT_THAT(gap_buckets(s1), ::testing::ElementsAre(T0Ns() + 50'000'000'000, T0Ns() + 81'000'000'000));

  // SVG: one polyline per piece of line.
  const std::string svg = RenderSvg(d, options);
  const std::vector<std::string> panels = Pieces(svg, "<g class=\"panel\"");
  ASSERT_EQ(panels.size(), d.panels.size());
  const std::vector<std::string> lines = Pieces(panels[0].substr(0, panels[0].find("<g class=\"legend\">")),
                                                "<polyline class=\"series\"");
  // Five series: two pieces each, three for the one missing at row 80.
  EXPECT_EQ(lines.size(), 11u);
  // HTML: a row of nulls before the bucket after the gap.
  const std::string html = RenderHtml(d, options);
  EXPECT_THAT(html, HasSubstr(",null,null,null,null,null]"));
}

TEST(PlotOutput, RenderSvgHasTheStructureItsHeaderDocuments) {
  auto o = Columns();
  ASSERT_NE(o, nullptr);
  PlotOptions options;
  options.zone = absl::UTCTimeZone();
  const PlotData d = GappedData(*o, options);
  EXPECT_EQ(d.title, "arch1 on host: 2023-11-14 22:00:00 to 22:01:39");
  const std::string svg = RenderSvg(d, options);
  EXPECT_THAT(svg, ::testing::StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(svg, ::testing::EndsWith("</svg>\n"));
  EXPECT_THAT(svg, HasSubstr("arch1 on host: 2023-11-14 22:00:00 to 22:01:39"));
  EXPECT_THAT(svg, HasSubstr("counters as rates per second"));
  const std::vector<std::string> panels = Pieces(svg, "<g class=\"panel\"");
  ASSERT_EQ(panels.size(), 2u);
  EXPECT_THAT(panels[0], ::testing::StartsWith("<g class=\"panel\" data-units=\"count / sec\">"));
  EXPECT_THAT(panels[1], ::testing::StartsWith("<g class=\"panel\" data-units=\"no units\">"));
  for (const std::string& p : panels) {
    EXPECT_EQ(Count(p, "<text class=\"units\""), 1);
    EXPECT_GE(Count(p, "<text class=\"ytick\""), 2);
    EXPECT_GE(Count(p, "<text class=\"xtick\""), 2);
    EXPECT_GE(Count(p, "<polyline class=\"series\""), 2);
    EXPECT_EQ(Count(p, "<g class=\"legend\">"), 1);
  }
  // The legend names every series of the panel.
  for (const char* name : {"c[i0]", "c[i4]"}) EXPECT_THAT(panels[0], HasSubstr(name));
  EXPECT_THAT(panels[1], HasSubstr("<title>g</title>"));
  // Time ticks are wall-clock times of the zone.
  EXPECT_THAT(panels[0], HasSubstr(">22:00:15<"));
  PlotOptions berlin = options;
  berlin.zone = absl::FixedTimeZone(3600);
  EXPECT_THAT(RenderSvg(d, berlin), HasSubstr(">23:00:15<"));
}

TEST(PlotOutput, RenderHtmlHasTheStructureItsHeaderDocuments) {
  auto o = Columns();
  ASSERT_NE(o, nullptr);
  PlotOptions options;
  options.zone = absl::FixedTimeZone(3600);
  const std::string svg_path = testing::TempBase("plot") + ".svg";
  const std::string html_path = testing::TempBase("plot") + ".html";
  const PlotData d = GappedData(*o, options, svg_path, html_path);
  const std::string html = RenderHtml(d, options);
  // End wrote the same pages.
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read(html_path), html);
  EXPECT_EQ(read(svg_path), RenderSvg(d, options));

  EXPECT_THAT(html, ::testing::StartsWith("<!DOCTYPE html>"));
  EXPECT_THAT(html, HasSubstr("<title>arch1 on host: 2023-11-14 23:00:00 to 23:01:39</title>"));
  const std::vector<std::string> panels = Pieces(html, "<section class=\"panel\"");
  ASSERT_EQ(panels.size(), 2u);
  EXPECT_THAT(panels[0], ::testing::StartsWith("<section class=\"panel\" data-units=\"count / sec\">"));
  EXPECT_THAT(panels[1], ::testing::StartsWith("<section class=\"panel\" data-units=\"no units\">"));
  for (const std::string& p : panels) {
    EXPECT_EQ(Count(p, "<div class=\"chart\""), 1);
    EXPECT_EQ(Count(p, "<div class=\"legend\""), 1);
    EXPECT_EQ(Count(p, "<dl class=\"help\">"), 1);
  }
  // Help text, escaped; a metric without any says so.
  EXPECT_THAT(panels[0], HasSubstr("<dt>c</dt><dd>requests served\nRequests served since start.\nEvery kind.</dd>"));
  EXPECT_THAT(panels[1], HasSubstr("<dt>g</dt><dd>load &lt;/script&gt; &amp; more</dd>"));
  EXPECT_THAT(panels[1], HasSubstr("<dt>h</dt><dd>(no help text)</dd>"));
  // Times as the zone's wall clock, in milliseconds: 22:00:00 UTC is 23:00
  // in UTC+1.
  EXPECT_THAT(html, HasSubstr(absl::StrCat("[", (testing::kT0 + 3600) * 1000, ",")));
  EXPECT_THAT(html, Not(HasSubstr(absl::StrCat("[", testing::kT0 * 1000, ","))));
  // The data cannot end the script early.
  const size_t data = html.find("var PANELS = ");
  ASSERT_NE(data, std::string::npos);
  EXPECT_EQ(html.find("</script", data), html.find("</script>\n</body>"));
}

TEST(PlotOutput, MaxRowsStopsTakingRows) {
  auto o = Columns();
  ASSERT_NE(o, nullptr);
  PlotOutput out("", "", PlotOptions(), 3);
  out.Begin(testing::HeaderFor(*o, false, std::nullopt));
  const size_t width = o->columns.size();
  EXPECT_TRUE(out.TakeRow(MakeRow(width, T0Ns(), [](size_t) { return 1.0; })));
  EXPECT_TRUE(out.TakeRow(MakeRow(width, T0Ns() + 1, [](size_t) { return 1.0; })));
  EXPECT_FALSE(out.TakeRow(MakeRow(width, T0Ns() + 2, [](size_t) { return 1.0; })));
  ASSERT_TRUE(out.End({}).ok());
  EXPECT_EQ(out.data().panels[0].series[0].buckets[0].count, 3u);
}

}  // namespace
}  // namespace mmvlog::archiver

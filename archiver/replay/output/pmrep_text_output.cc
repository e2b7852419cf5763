#include "archiver/replay/output/pmrep_text_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/time/time.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "format/archive/archive_format.h"

namespace mmvlog::archiver {
namespace {

// Python's "{:>W.W}": cut to W characters, then right-aligned in W.
std::string Right(const std::string& s, int width) {
  std::string cut = s.substr(0, static_cast<size_t>(width));
  if (static_cast<int>(cut.size()) < width) cut.insert(0, width - cut.size(), ' ');
  return cut;
}

bool Integral(int32_t type) {
  return type == format::kType32 || type == format::kTypeU32 || type == format::kType64 ||
         type == format::kTypeU64;
}

// pmrep's format_stdout_value for a number.
std::string NumberCell(const PmrepColumn& col, const PmrepCell& cell) {
  const int w = col.width;
  const double v = cell.number;
  if (Integral(col.type)) {
    const std::string t = PmrepNumberText(col, cell);
    return static_cast<int>(t.size()) > w ? Right("xxx", w) : Right(t, w);
  }
  if (std::isinf(v)) return Right(v > 0 ? (w >= 3 ? "inf" : "xxx") : (w >= 4 ? "-inf" : "xxx"), w);
  if (std::isnan(v)) return Right(w >= 3 ? "NaN" : "xxx", w);
  const std::string whole = absl::StrCat(static_cast<int64_t>(v));  // Python's str(int(v))
  const int s = static_cast<int>(whole.size());
  if (s > w) return Right("xxx", w);
  if (s + 2 > w) return Right(whole, w);
  for (int c = col.precision; c >= 0; --c) {
    const std::string t = absl::StrFormat("%*.*f", w, c, v);
    if (static_cast<int>(t.size()) <= w) return t;
  }
  return Right(whole, w);
}

}  // namespace

void PmrepTextOutput::Begin(const ReplayHeader& header) {
  Output::Begin(header);
  cells_.SetContextStep(header.grid ? absl::ToInt64Nanoseconds(header.step) : 0);
  if (format_.run) {
    text_.buffer() += PmrepExtendedHeader(PmrepRunOf(*format_.run, header, cells_), false);
  }
  if (format_.timestamp) {
    time_width_ = PmrepTime(format_.timefmt, format::Timestamp{}, header.zone).size();
  }
  if (format_.colxrow) {
    // pmrep's instance column: as wide as its title, 8 without one.
    colxrow_width_ = format_.colxrow->empty() ? 8 : static_cast<int>(format_.colxrow->size());
    for (size_t i = 0; i < columns().size(); ++i) {
      const PmrepColumn& c = columns()[i];
      if (i == 0 || c.metric != columns()[i - 1].metric) {
        auto it = std::find_if(labels_.begin(), labels_.end(),
                               [&](const Label& l) { return l.text == c.label; });
        if (it == labels_.end()) {
          labels_.push_back({c.label, c.unit_label, c.width, {}});
          it = labels_.end() - 1;
        }
        it->metrics.emplace_back();
      }
      auto& metric = std::find_if(labels_.begin(), labels_.end(), [&](const Label& l) {
                       return l.text == c.label;
                     })->metrics.back();
      metric.emplace_back(c.instance, i);
      if (std::find(instances_.begin(), instances_.end(), c.instance) == instances_.end()) {
        instances_.push_back(c.instance);
      }
    }
  }
  if (!format_.header) format_.repeat_header = 0;
  if (format_.dynamic_header && format_.repeat_header < 0) format_.repeat_header = 0;
  repeat_auto_ = format_.repeat_header < 0;
  if (repeat_auto_) {
    // "auto" without a terminal: Python's terminal size falls back to 24
    // lines, less the header's (colxrow: 24 lines over the instances).
    bool instances = false;
    for (const PmrepColumn& c : columns()) instances |= !c.instance.empty();
    format_.repeat_header =
        format_.colxrow && !instances_.empty()
            ? 24 / static_cast<int>(instances_.size()) - (format_.unitinfo ? 2 : 1)
            : 24 - (format_.unitinfo ? 3 : 2) - (instances ? 1 : 0);
  }
  if (format_.header && !format_.dynamic_header) WriteHeader();
}

void PmrepTextOutput::WriteHeader() {
  if (format_.separate_header) return WriteSeparateHeader();
  const std::string lead = std::string(time_width_, ' ') + format_.delimiter;
  if (format_.colxrow) {
    const int cw = colxrow_width_;
    std::string names = lead + Right(*format_.colxrow, cw), units = lead + std::string(cw, ' ');
    for (const Label& l : labels_) {
      absl::StrAppend(&names, format_.delimiter, Right(l.text, l.width));
      absl::StrAppend(&units, format_.delimiter, Right(l.unit, l.width));
    }
    absl::StrAppend(&text_.buffer(), names, "\n");
    if (format_.unitinfo) absl::StrAppend(&text_.buffer(), units, "\n");
    return;
  }
  // pmrep's write_header_stdout: every column, or (-1) those shown; an
  // instance's name once a metric so far has an instance domain, the
  // instances' line when any metric has one.
  std::vector<uint8_t> indom_so_far(columns().empty() ? 0 : columns().back().metric + 1, 0);
  for (const PmrepColumn& c : columns()) indom_so_far[c.metric] |= !c.instance.empty();
  for (size_t m = 1; m < indom_so_far.size(); ++m) indom_so_far[m] |= indom_so_far[m - 1];
  std::string names = lead, insts = lead, units = lead;
  for (size_t k = 0; k < ShownCount(); ++k) {
    const PmrepColumn& c = columns()[Shown(k)];
    if (k > 0) {
      names += format_.delimiter;
      insts += format_.delimiter;
      units += format_.delimiter;
    }
    names += Right(c.label, c.width);
    const std::string& name = ShownInstance(Shown(k));
    const bool named = indom_so_far[c.metric] && !c.instance.empty() && !name.empty();
    insts += Right(named ? name : format_.delimiter, c.width);
    units += Right(c.unit_label, c.width);
  }
  std::string& out = text_.buffer();
  absl::StrAppend(&out, names, "\n");
  if (format_.instinfo && !indom_so_far.empty() && indom_so_far.back()) {
    absl::StrAppend(&out, insts, "\n");
  }
  if (format_.unitinfo) absl::StrAppend(&out, units, "\n");
}

// pmrep's write_separate_header (its static header): a line per column,
// its number (with colxrow: its label's) right-aligned in one more place
// than the count of columns (of metrics) has digits, its metric, instance
// and units; a blank line; the numbers in the columns' (labels') widths.
void PmrepTextOutput::WriteSeparateHeader() {
  std::string& out = text_.buffer();
  auto line = [&](size_t k, int c, size_t i) {
    const PmrepColumn& col = columns()[i];
    absl::StrAppend(&out, "[", Right(absl::StrCat(k), c), "] - ", col.metric_name);
    const std::string& name = ShownInstance(i);
    if (!col.instance.empty() && !name.empty()) absl::StrAppend(&out, "[\"", name, "\"]");
    if (format_.unitinfo) {
      absl::StrAppend(&out, " - ", col.unit_label.empty() ? "none" : col.unit_label);
    }
    out += "\n";
  };
  const std::string lead(time_width_, ' ');
  if (format_.colxrow) {
    const size_t metrics = columns().empty() ? 0 : columns().back().metric + 1;
    const int c = static_cast<int>(absl::StrCat(metrics).size()) + 1;
    for (size_t k = 0; k < labels_.size(); ++k) {
      for (const auto& metric : labels_[k].metrics) {
        for (const auto& [instance, i] : metric) line(k + 1, c, i);
      }
    }
    absl::StrAppend(&out, "\n", lead, format_.delimiter, Right("", colxrow_width_));
    for (size_t k = 0; k < labels_.size(); ++k) {
      absl::StrAppend(&out, format_.delimiter, Right(absl::StrCat(k + 1), labels_[k].width));
    }
    out += "\n";
    return;
  }
  const int c = static_cast<int>(absl::StrCat(ShownCount()).size()) + 1;
  for (size_t k = 0; k < ShownCount(); ++k) line(k + 1, c, Shown(k));
  out += "\n";
  out += lead;
  for (size_t k = 0; k < ShownCount(); ++k) {
    absl::StrAppend(&out, format_.delimiter, Right(absl::StrCat(k + 1), columns()[Shown(k)].width));
  }
  out += "\n";
}

// A row of the columns' cells; none (-1, no values): "N/A" as wide as -w
// says.
void PmrepTextOutput::WriteRow(const std::string& time, const std::vector<std::string>& cells) {
  std::string& out = text_.buffer();
  out += time;
  out += format_.delimiter;
  if (cells.empty()) {
    const std::string na = "N/A";
    if (static_cast<int>(na.size()) < format_.width_option) {
      out.append(format_.width_option - na.size(), ' ');
    }
    out += na;
  }
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out += format_.delimiter;
    out += cells[i];
  }
  out += "\n";
}

std::string PmrepTextOutput::CellText(size_t i, const PmrepCell& cell) const {
  const PmrepColumn& col = columns()[i];
  if (cell.kind == PmrepCell::kNumber) return NumberCell(col, cell);
  if (cell.kind == PmrepCell::kNone) return Right("N/A", col.width);
  std::string v = cell.text;
  const std::string& d = format_.delimiter;
  if (!d.empty() && d.find_first_not_of(" \t") != std::string::npos) {
    v = absl::StrReplaceAll(v, {{d, d == "_" ? " " : "_"}});
  }
  return Right(absl::StrReplaceAll(v, {{"\n", "\\n"}}), col.width);
}

bool PmrepTextOutput::TakeRow(const Row& row) {
  if (!text_.ok()) return false;
  if (row.mark) return true;
  if (max_rows_ > 0 && rows_ >= max_rows_) return false;
  ++rows_;
  std::string time;
  if (format_.timestamp) {
    time = PmrepTime(format_.timefmt, row.time, header_.zone);
    if (time.size() < time_width_) time.append(time_width_ - time.size(), ' ');
  }
  if (format_.dynamic_header) {
    // pmrep's dynamic_header_update: a header when the columns with
    // values change, or every repeat_header rows (0: at the first).
    const std::vector<PmrepCell>& taken = cells_.Take(*header_.columns, row);
    PmrepPresentColumns(columns(), *header_.columns, taken, &present_);
    if (!present_.empty() && (lines_ == format_.repeat_header || present_ != prev_present_)) {
      if (format_.header) {
        if (any_row_) text_.buffer() += "\n";
        WriteHeader();
      }
      lines_ = 0;
    }
    ++lines_;
    prev_present_ = present_;
    any_row_ = true;
    std::vector<std::string> cells;
    for (size_t i : present_) cells.push_back(CellText(i, taken[i]));
    WriteRow(time, cells);
    text_.MaybeFlush();
    return max_rows_ == 0 || rows_ < max_rows_;
  }
  // pmrep's test: at N rows when asked for N; when auto, once the rows
  // reach the number (which can be 0 or less: a header before every row).
  if ((!repeat_auto_ && lines_ > 0 && lines_ == format_.repeat_header) ||
      (repeat_auto_ && lines_ >= format_.repeat_header)) {
    text_.buffer() += "\n";
    WriteHeader();
    lines_ = 0;
  }
  ++lines_;
  const std::vector<PmrepCell>& taken = cells_.Take(*header_.columns, row);
  std::vector<std::string> cells(taken.size());
  for (size_t i = 0; i < taken.size(); ++i) cells[i] = CellText(i, taken[i]);
  if (format_.colxrow) {
    if (!format_.sort_metrics.empty()) SortInstances(taken);
    WriteSwapped(time, cells);
  } else {
    WriteRow(time, cells);
  }
  text_.MaybeFlush();
  return max_rows_ == 0 || rows_ < max_rows_;
}

// pmrep's write_stdout_colxrow with sort_metric: each sort metric's
// instances with values, by value (stable: ties in the fetchgroup's
// order), then the rest in the order they had.
void PmrepTextOutput::SortInstances(const std::vector<PmrepCell>& taken) {
  PmrepPresentColumns(columns(), *header_.columns, taken, &present_);
  std::vector<std::string> order;
  for (const auto& [metric, highest] : format_.sort_metrics) {
    std::vector<size_t> mine;
    for (size_t i : present_) {
      if (columns()[i].metric == metric) mine.push_back(i);
    }
    std::stable_sort(mine.begin(), mine.end(), [&](size_t a, size_t b) {
      return highest ? PmrepValueBefore(columns()[b], taken[b], columns()[a], taken[a])
                     : PmrepValueBefore(columns()[a], taken[a], columns()[b], taken[b]);
    });
    for (size_t i : mine) {
      const std::string& name = cells_.InstanceName(*header_.columns, i);
      if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
    }
  }
  for (const std::string& name : instances_) {
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  }
  instances_ = std::move(order);
}

void PmrepTextOutput::WriteSwapped(const std::string& time,
                                   const std::vector<std::string>& cells) {
  std::string& out = text_.buffer();
  const int cw = colxrow_width_;
  for (const std::string& instance : instances_) {
    absl::StrAppend(&out, time.substr(0, time_width_), format_.delimiter,
                    Right(instance.empty() ? "=" : instance, cw));
    for (const Label& l : labels_) {
      const std::string* cell = nullptr;
      for (const auto& metric : l.metrics) {
        for (const auto& [name, i] : metric) {
          if (name == instance) cell = &cells[i];
        }
        if (cell != nullptr) break;
      }
      absl::StrAppend(&out, format_.delimiter, cell != nullptr ? *cell : Right("~", l.width));
    }
    out += "\n";
  }
}

absl::Status PmrepTextOutput::End(const ReplayEnd& /*end*/) { return text_.Finish(); }

}  // namespace mmvlog::archiver

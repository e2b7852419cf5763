#include "archiver/replay/output/pmrep_csv_output.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {
namespace {

// strftime as Python's datetime.strftime: %f is the microseconds.
std::string TimeIn(const std::string& fmt, format::Timestamp t, absl::TimeZone zone) {
  const absl::Time at = format::ToAbslTime(t);
  std::string f = fmt;
  if (f.find("%f") != std::string::npos) {
    const int64_t micros = absl::ToUnixMicros(at) - absl::ToUnixSeconds(at) * 1000000;
    f = absl::StrReplaceAll(f, {{"%f", absl::StrFormat("%06d", micros)}});
  }
  return absl::FormatTime(f, absl::FromUnixSeconds(absl::ToUnixSeconds(at)), zone);
}

}  // namespace

void PmrepCsvOutput::Begin(const ReplayHeader& header) {
  Output::Begin(header);
  last_cell_.assign(columns_.size(), "");
  if (!format_.header) return;
  std::string& out = text_.buffer();
  out += "Time";
  for (const PmrepColumn& c : columns_) {
    std::string name = c.name;
    if (!format_.delimiter.empty()) name = absl::StrReplaceAll(name, {{format_.delimiter, " "}});
    name = absl::StrReplaceAll(name, {{"\n", " "}, {"\"", " "}});
    absl::StrAppend(&out, format_.delimiter, "\"", name, "\"");
  }
  out += "\n";
}

std::string PmrepCsvOutput::Cell(size_t i, const Row& row) const {
  const PmrepColumn& col = columns_[i];
  if (col.string) {
    if (row.kind(col.column) != kString) return "";
    std::string v(row.text(col.column));
    const std::string& d = format_.delimiter;
    if (!d.empty() && std::none_of(d.begin(), d.end(), [](char ch) { return ch == ' ' || ch == '\t'; })) {
      v = absl::StrReplaceAll(v, {{d, d == "_" ? " " : "_"}});
    }
    v = absl::StrReplaceAll(v, {{"\n", " "}, {"\"", " "}});
    return absl::StrCat("\"", v, "\"");
  }
  // pmtimespecSub: the exact difference, then sec + nsec / 1e9.
  double seconds = 0;
  if (have_prev_) {
    const int64_t d = (row.time.sec - prev_.time.sec) * 1000000000 +
                      (static_cast<int64_t>(row.time.nsec) - static_cast<int64_t>(prev_.time.nsec));
    seconds = static_cast<double>(d / 1000000000) + static_cast<double>(d % 1000000000) / 1e9;
  }
  std::optional<double> v = PmrepNumber(col, row, have_prev_ ? &prev_ : nullptr, seconds);
  return v ? PmrepNumberText(col, *v) : "";
}

bool PmrepCsvOutput::TakeRow(const Row& row) {
  if (!text_.ok()) return false;
  if (row.mark) return true;
  if (max_rows_ > 0 && rows_ >= max_rows_) return false;
  ++rows_;
  std::string& out = text_.buffer();
  out += TimeIn(format_.timefmt, row.time, header_.zone);
  // Which discrete metrics have some value in this row.
  const ColumnSet& set = *header_.columns;
  std::vector<uint8_t> any(set.metrics().size(), 0);
  for (const PmrepColumn& c : columns_) any[set.columns()[c.column].metric] |= row.has(c.column);
  for (size_t i = 0; i < columns_.size(); ++i) {
    out += format_.delimiter;
    const PmrepColumn& c = columns_[i];
    if (c.discrete && row.grid && !any[set.columns()[c.column].metric]) {
      out += last_cell_[i];
      continue;
    }
    std::string cell = Cell(i, row);
    if (c.discrete) last_cell_[i] = cell;
    out += cell;
  }
  out += "\n";
  prev_ = row;
  have_prev_ = true;
  text_.MaybeFlush();
  return max_rows_ == 0 || rows_ < max_rows_;
}

absl::Status PmrepCsvOutput::End(const ReplayEnd& /*end*/) { return text_.Finish(); }

}  // namespace mmvlog::archiver

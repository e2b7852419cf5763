#include "archiver/replay/output/pmrep_csv_output.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {

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
  const double seconds = have_prev_ ? PmrepSeconds(prev_.time, row.time) : 0;
  std::optional<double> v = PmrepNumber(col, row, have_prev_ ? &prev_ : nullptr, seconds);
  return v ? PmrepNumberText(col, *v) : "";
}

bool PmrepCsvOutput::TakeRow(const Row& row) {
  if (!text_.ok()) return false;
  if (row.mark) return true;
  if (max_rows_ > 0 && rows_ >= max_rows_) return false;
  ++rows_;
  std::string& out = text_.buffer();
  out += PmrepTime(format_.timefmt, row.time, header_.zone);
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

#include "archiver/replay/output/stats_output.h"

#include <algorithm>

#include "format/utf8.h"
#include "absl/strings/str_format.h"
#include "archiver/replay/display_units.h"
#include "archiver/replay/output/number_text.h"

namespace mmvlog::archiver {

void StatsOutput::Begin(const ReplayHeader& header) {
  Output::Begin(header);
  columns_.assign(header.columns->size(), Running());
}

bool StatsOutput::TakeRow(const Row& row) {
  if (row.mark) return true;
  if (max_rows_ > 0 && rows_ >= max_rows_) return false;
  ++rows_;
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (row.shown[c] != kNumber) continue;
    const double v = row.numbers[c];
    Running& r = columns_[c];
    r.lo = r.n == 0 ? v : std::min(r.lo, v);
    r.hi = r.n == 0 ? v : std::max(r.hi, v);
    r.sum += v;
    r.last = v;
    ++r.n;
  }
  return max_rows_ == 0 || rows_ < max_rows_;
}

absl::Status StatsOutput::End(const ReplayEnd& /*end*/) {
  std::string& o = text_.buffer();
  absl::StrAppendFormat(&o, "%-60s %14s %14s %14s %14s %7s  %s\n", "metric[instance]", "min", "mean",
                        "max", "last", "count", "units");
  const ColumnSet& columns = *header_.columns;
  for (size_t c = 0; c < columns_.size(); ++c) {
    const Running& r = columns_[c];
    if (r.n == 0) continue;
    absl::StrAppendFormat(&o, "%-60s %14s %14s %14s %14s %7d  %s\n", format::ValidUtf8(columns.Label(c)), NumberText(r.lo),
                          NumberText(r.sum / r.n), NumberText(r.hi), NumberText(r.last), r.n,
                          DisplayUnits(columns.desc(c), header_.raw));
  }
  return text_.Finish();
}

}  // namespace mmvlog::archiver

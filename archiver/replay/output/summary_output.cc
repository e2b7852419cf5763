#include "archiver/replay/output/summary_output.h"

#include "format/utf8.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "format/archive/pm_desc_text.h"
#include "format/pm_units.h"

namespace mmvlog::archiver {

void SummaryOutput::Begin(const ReplayHeader& header) {
  Output::Begin(header);
  values_.assign(header.columns->size(), 0);
}

bool SummaryOutput::TakeRow(const Row& row) {
  if (!first_) first_ = row.time;
  last_ = row.time;
  (row.mark ? marks_ : samples_)++;
  for (size_t c = 0; c < values_.size(); ++c) values_[c] += row.has(c);
  return true;
}

absl::Status SummaryOutput::End(const ReplayEnd& end) {
  std::string& o = text_.buffer();
  absl::StrAppendFormat(&o, "archives:  %s\n", absl::StrJoin(end.archives, ", "));
  absl::StrAppendFormat(&o, "host:      %s\n", end.host);
  if (first_) {
    const absl::Duration span = format::ToAbslTime(*last_) - format::ToAbslTime(*first_);
    absl::StrAppendFormat(&o, "time:      %s to %s (%s)\n", TimeText(*first_, header_.zone),
                          TimeText(*last_, header_.zone), absl::FormatDuration(span));
  }
  absl::StrAppendFormat(&o, "samples:   %d, marks (gaps): %d\n", samples_, marks_);
  const ColumnSet& columns = *header_.columns;
  size_t shown = 0;
  std::string lines;
  for (const ReplayMetric& m : columns.metrics()) {
    size_t insts = 0;
    uint64_t values = 0;
    for (size_t c : m.columns) {
      insts += values_[c] > 0;
      values += values_[c];
    }
    if (values == 0) continue;
    ++shown;
    const std::string units = format::UnitsToString(format::UnitsFromWord(m.desc.units));
    absl::StrAppendFormat(&lines, "  %-50s %-20s %-9s %-14s %9d %8d\n", format::ValidUtf8(m.name),
                          format::TypeName(m.desc.type), format::SemanticsName(m.desc.sem),
                          units.empty() ? "none" : units, insts, values);
  }
  absl::StrAppendFormat(&o, "\nmetrics (%d):\n", shown);
  absl::StrAppendFormat(&o, "  %-50s %-20s %-9s %-14s %9s %8s\n", "name", "type", "semantics", "units",
                        "instances", "values");
  o += lines;
  return text_.Finish();
}

}  // namespace mmvlog::archiver

#include "archiver/replay/output/pmrep_csv_output.h"

#include "absl/time/time.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace mmvlog::archiver {

void PmrepCsvOutput::Begin(const ReplayHeader& header) {
  Output::Begin(header);
  cells_.SetContextStep(header.grid ? absl::ToInt64Nanoseconds(header.step) : 0);
  std::string& out = text_.buffer();
  if (format_.run) out += PmrepExtendedHeader(PmrepRunOf(*format_.run, header, cells_), true);
  if (!format_.dynamic_header) WriteHeader(nullptr);
}

// The header of every column, or of those `shown`.
void PmrepCsvOutput::WriteHeader(const std::vector<size_t>* shown) {
  if (!format_.header) return;
  std::string& out = text_.buffer();
  if (format_.extended) out += "Host,Interval,";  // pmrep's commas, whatever the delimiter
  out += "Time";
  const size_t n = shown != nullptr ? shown->size() : cells_.columns().size();
  for (size_t k = 0; k < n; ++k) {
    const size_t i = shown != nullptr ? (*shown)[k] : k;
    const PmrepColumn& col = cells_.columns()[i];
    // -1: the fetchgroup's name of the instance now.
    std::string name = shown == nullptr || col.instance.empty()
                           ? col.name
                           : absl::StrCat(col.metric_name, "-",
                                          cells_.InstanceName(*header_.columns, i));
    if (!format_.delimiter.empty()) name = absl::StrReplaceAll(name, {{format_.delimiter, " "}});
    name = absl::StrReplaceAll(name, {{"\n", " "}, {"\"", " "}});
    absl::StrAppend(&out, format_.delimiter, "\"", name, "\"");
  }
  out += "\n";
}

bool PmrepCsvOutput::TakeRow(const Row& row) {
  if (!text_.ok()) return false;
  if (row.mark) return true;
  if (max_rows_ > 0 && rows_ >= max_rows_) return false;
  ++rows_;
  std::string& out = text_.buffer();
  // The row's beginning (host, interval, time): a dynamic header goes before it.
  std::string& line = line_;
  line.clear();
  if (format_.extended) {
    const double seconds = static_cast<double>(row.time.sec) + row.time.nsec / 1000 * 1e-6;
    if (rows_ == 1) {
      prev_seconds_ = seconds;
      offset_ = " " + PmrepUtcOffset(header_.zone, format::ToAbslTime(row.time));
    }
    // Python's int(x + 0.5): towards zero.
    absl::StrAppend(&line, header_.host, format_.delimiter,
                    static_cast<int64_t>(seconds - prev_seconds_ + 0.5), format_.delimiter);
    prev_seconds_ = seconds;
  }
  line += PmrepTime(format_.timefmt, row.time, header_.zone);
  if (format_.extended) line += offset_;
  const std::vector<PmrepCell>& cells = cells_.Take(*header_.columns, row);
  if (format_.dynamic_header) {
    // pmrep's dynamic_header_update (the header before the row's text).
    PmrepPresentColumns(cells_.columns(), *header_.columns, cells, &present_);
    if (!present_.empty() && (lines_ == format_.repeat_header || present_ != prev_present_)) {
      WriteHeader(&present_);
      lines_ = 0;
    }
    ++lines_;
    prev_present_ = present_;
  }
  out += line;
  const std::string& d = format_.delimiter;
  const bool spaced = d.empty() || d.find_first_not_of(" \t") == std::string::npos;
  const size_t n = format_.dynamic_header ? present_.size() : cells.size();
  for (size_t k = 0; k < n; ++k) {
    const size_t i = format_.dynamic_header ? present_[k] : k;
    out += d;
    const PmrepCell& cell = cells[i];
    if (cell.kind == PmrepCell::kNumber) {
      AppendPmrepNumber(cells_.Format(i), cell, &out);
    } else if (cell.kind == PmrepCell::kString) {
      // The delimiter taken out of strings (unless white space), as pmrep.
      std::string v = spaced ? cell.text : absl::StrReplaceAll(cell.text, {{d, d == "_" ? " " : "_"}});
      absl::StrAppend(&out, "\"", absl::StrReplaceAll(v, {{"\n", " "}, {"\"", " "}}), "\"");
    }
  }
  out += "\n";
  text_.MaybeFlush();
  return max_rows_ == 0 || rows_ < max_rows_;
}

absl::Status PmrepCsvOutput::End(const ReplayEnd& /*end*/) { return text_.Finish(); }

}  // namespace mmvlog::archiver

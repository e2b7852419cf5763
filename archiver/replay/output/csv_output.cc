#include "archiver/replay/output/csv_output.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "archiver/replay/output/decoded_value.h"
#include "archiver/replay/display_units.h"
#include "archiver/replay/output/number_text.h"
#include "format/archive/archive_format.h"
#include "format/json.h"

namespace mmvlog::archiver {

std::string CsvOutput::HeaderLine(const ColumnSet& columns, bool raw) {
  std::string out = "Time";
  // Units depend on the descriptor only: once per metric, not per column.
  std::vector<std::optional<std::string>> units(columns.metrics().size());
  for (size_t c = 0; c < columns.size(); ++c) {
    std::optional<std::string>& u = units[columns.columns()[c].metric];
    if (!u) u = DisplayUnits(columns.desc(c), raw);
    out.push_back(',');
    AppendCsvField(u->empty() ? columns.Label(c) : absl::StrCat(columns.Label(c), " (", *u, ")"),
                   &out);
  }
  return out;
}

// Numbers are written straight into `out`, grown ahead of them, rather than
// appended piece by piece: a row of 100k cells is one pass.
void CsvOutput::AppendCells(const ColumnSet& columns, const Row& row, bool raw, std::string* out) {
  size_t end = out->size();  // of the text written; out->size() is ahead
  const size_t width = columns.size();
  for (size_t c = 0; c < width; ++c) {
    if (out->size() - end < 1 + kMaxNumberText) {
      // Room for the rest of the row as resize() makes it: zeroed, so only
      // what the row needs (the string's capacity grows geometrically by
      // itself); twice the buffer, as before, zeroed the whole buffer
      // again at each narrow row (9% of a replay of 20 columns).
      out->resize(end + (width - c) * 8 + 64 + kMaxNumberText);
    }
    char* p = out->data() + end;
    *p++ = ',';
    const ValueKind kind = row.kind(c);
    if (kind == kString) {
      out->resize(p - out->data());
      const int32_t type = columns.desc(c).type;
      AppendCsvField(IsDecodedType(type)
                         ? DecodedValueJson(type, row.text(c), columns.param_names())
                         : std::string(row.text(c)),
                     out);
      end = out->size();
      continue;
    }
    if (!raw) {
      if (row.shown[c] == kNumber) p = WriteNumber(row.numbers[c], p);
    } else if (kind != kNoValue) {
      const uint64_t b = row.bits[c];
      if (kind == kInt) {
        p = std::to_chars(p, p + kMaxNumberText, static_cast<int64_t>(b)).ptr;
      } else if (kind == kUint) {
        p = std::to_chars(p, p + kMaxNumberText, b).ptr;
      } else {
        const std::string d = format::JsonNumber(std::bit_cast<double>(b));
        std::memcpy(p, d.data(), d.size());
        p += d.size();
      }
    }
    end = static_cast<size_t>(p - out->data());
  }
  out->resize(end);
}

void CsvOutput::AppendCell(const ColumnSet& columns, const Row& row, size_t c, bool raw,
                           std::string* out) {
  const ValueKind kind = row.kind(c);
  if (kind == kString) {
    const int32_t type = columns.desc(c).type;
    AppendCsvField(IsDecodedType(type) ? DecodedValueJson(type, row.text(c), columns.param_names())
                                       : std::string(row.text(c)),
                   out);
    return;
  }
  char buf[kMaxNumberText];
  char* p = buf;
  if (!raw) {
    if (row.shown[c] == kNumber) p = WriteNumber(row.numbers[c], p);
  } else if (kind == kInt) {
    p = std::to_chars(p, p + kMaxNumberText, static_cast<int64_t>(row.bits[c])).ptr;
  } else if (kind == kUint) {
    p = std::to_chars(p, p + kMaxNumberText, row.bits[c]).ptr;
  } else if (kind == kDouble) {
    out->append(format::JsonNumber(std::bit_cast<double>(row.bits[c])));
  }
  out->append(buf, p);
}

void CsvOutput::Begin(const ReplayHeader& header) {
  Output::Begin(header);
  const ColumnSet& columns = *header.columns;
  discrete_metric_.assign(columns.metrics().size(), 0);
  if (header.grid) {
    for (size_t m = 0; m < columns.metrics().size(); ++m) {
      discrete_metric_[m] = columns.metrics()[m].desc.sem == format::kSemDiscrete;
    }
    last_cell_.assign(columns.size(), "");
  }
  if (header_line_) {
    text_.Append(HeaderLine(columns, header.raw));
    text_.Append("\n");
  }
}

bool CsvOutput::TakeRow(const Row& row) {
  if (!text_.ok()) return false;  // a failed write: Finish() says so
  if (row.mark) return true;
  if (max_rows_ > 0 && rows_ >= max_rows_) return false;
  ++rows_;
  const ColumnSet& columns = *header_.columns;
  std::string& out = text_.buffer();
  out += TimeText(row.time, header_.zone);
  if (!row.grid || std::none_of(discrete_metric_.begin(), discrete_metric_.end(),
                                [](uint8_t d) { return d != 0; })) {
    AppendCells(columns, row, header_.raw, &out);
  } else {
    // Cell by cell, keeping discrete metrics' last texts.
    std::vector<uint8_t> any(columns.metrics().size(), 0);
    for (size_t c = 0; c < columns.size(); ++c) any[columns.columns()[c].metric] |= row.has(c);
    for (size_t c = 0; c < columns.size(); ++c) {
      const size_t m = columns.columns()[c].metric;
      out.push_back(',');
      if (!discrete_metric_[m]) {
        AppendCell(columns, row, c, header_.raw, &out);
      } else if (any[m]) {
        last_cell_[c].clear();
        AppendCell(columns, row, c, header_.raw, &last_cell_[c]);
        out += last_cell_[c];
      } else {
        out += last_cell_[c];
      }
    }
  }
  out.push_back('\n');
  text_.MaybeFlush();
  return max_rows_ == 0 || rows_ < max_rows_;
}

absl::Status CsvOutput::End(const ReplayEnd& /*end*/) {
  return text_.Finish();
}

}  // namespace mmvlog::archiver

#include "archiver/replay/output/json_output.h"

#include <bit>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "archiver/replay/output/decoded_value.h"
#include "format/json.h"

namespace mmvlog::archiver {

void JsonOutput::Begin(const ReplayHeader& header) {
  Output::Begin(header);
  keys_.clear();
  for (size_t c = 0; c < header.columns->size(); ++c) {
    keys_.push_back(format::JsonString(header.columns->Label(c)));
  }
}

bool JsonOutput::TakeRow(const Row& row) {
  if (!text_.ok()) return false;  // a failed write: Finish() says so
  if (!row.mark && max_rows_ > 0 && rows_ >= max_rows_) return false;
  std::string& o = text_.buffer();
  absl::StrAppend(&o, "{\"time\":", format::JsonString(TimeText(row.time, header_.zone, 9)),
                  ",\"timestamp\":", row.time.sec, ".", absl::StrFormat("%09d", row.time.nsec));
  if (row.mark) {
    o += ",\"mark\":true}\n";
    return true;
  }
  ++rows_;
  o += ",\"values\":{";
  bool first = true;
  const ColumnSet& columns = *header_.columns;
  for (size_t c = 0; c < columns.size(); ++c) {
    const ValueKind kind = row.kind(c);
    if (kind == kNoValue) continue;
    absl::StrAppend(&o, first ? "" : ",", keys_[c], ":");
    first = false;
    if (kind == kString) {
      const int32_t type = columns.desc(c).type;
      o += IsDecodedType(type) ? DecodedValueJson(type, row.text(c), columns.param_names())
                               : format::JsonString(row.text(c));
    } else if (header_.raw) {
      const uint64_t b = row.bits[c];
      if (kind == kInt) absl::StrAppend(&o, static_cast<int64_t>(b));
      if (kind == kUint) absl::StrAppend(&o, b);
      if (kind == kDouble) o += format::JsonNumber(std::bit_cast<double>(b));
    } else {
      o += row.shown[c] == kNumber ? format::JsonNumber(row.numbers[c]) : "null";
    }
  }
  o += "}}\n";
  text_.MaybeFlush();
  return max_rows_ == 0 || rows_ < max_rows_;
}

absl::Status JsonOutput::End(const ReplayEnd& /*end*/) {
  return text_.Finish();
}

}  // namespace mmvlog::archiver

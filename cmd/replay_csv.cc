#include "cmd/replay_csv.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "format/archive_types.h"
#include "format/archive_format.h"
#include "format/event_record.h"
#include "format/json.h"
#include "format/pm_desc_text.h"

namespace mmvlog::cmd {
namespace {

// The longest text a number cell can take: "%.6g" of a negative double
// ("-1.23457e+308", 13), "%.3f" below 1e15 (20), an int64 (20),
// JsonNumber's shortest round trip (24).
constexpr size_t kMaxNumberText = 32;

// Writes the "%.3f" text in buf[0, len) to `p` without its trailing zeros
// and then its trailing point (there is always a point); returns the end.
char* CopyTrimmed(const char* buf, size_t len, char* p) {
  while (buf[len - 1] == '0') --len;
  if (buf[len - 1] == '.') --len;
  std::memcpy(p, buf, len);
  return p + len;
}

// Writes AppendNumber's text of `v` at `p` (at most kMaxNumberText bytes);
// returns the end.
//
// The common case, 1e-3 <= |v| < ~2e12 (rates, gauges), is formatted from
// the integer round(|v| * 1000). That product is within half an ulp of the
// exact one, so its rounding to an integer is the exact rounding printf does
// unless its fraction lies within that error of one half; such near-ties,
// larger values and the "%.6g" cases go to std::to_chars, which formats
// the exact binary value as printf does (C++17 [charconv.to.chars]).
char* WriteNumber(double v, char* p) {
  char buf[64];
  if (!std::isfinite(v)) {
    const std::string s = absl::StrFormat("%.3f", v);  // "inf", "-inf", "nan", "-nan"
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
  }
  const double a = std::fabs(v);
  if (a >= 1e15 || (v != 0 && a < 1e-3)) {
    return std::to_chars(p, p + kMaxNumberText, v, std::chars_format::general, 6).ptr;
  }
  const double y = a * 1000;
  const double whole = std::floor(y);
  const double frac = y - whole;
  if (!(std::fabs(frac - 0.5) > y * 0x1p-52)) {
    const std::to_chars_result r =
        std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
    return CopyTrimmed(buf, static_cast<size_t>(r.ptr - buf), p);
  }
  const uint64_t n = static_cast<uint64_t>(whole) + (frac > 0.5 ? 1 : 0);
  if (std::signbit(v)) *p++ = '-';
  p = std::to_chars(p, p + 20, n / 1000).ptr;
  uint32_t millis = static_cast<uint32_t>(n % 1000);
  if (millis != 0) {
    *p++ = '.';
    *p++ = static_cast<char>('0' + millis / 100);
    millis %= 100;
    if (millis != 0) {
      *p++ = static_cast<char>('0' + millis / 10);
      millis %= 10;
      if (millis != 0) *p++ = static_cast<char>('0' + millis);
    }
  }
  return p;
}

}  // namespace

void AppendNumber(double v, std::string* out) {
  char buf[kMaxNumberText];
  out->append(buf, WriteNumber(v, buf));
}

std::string NumberText(double v) {
  std::string s;
  AppendNumber(v, &s);
  return s;
}

void AppendCsvField(absl::string_view s, std::string* out) {
  if (s.find_first_of(",\"\n") == absl::string_view::npos) {
    out->append(s.data(), s.size());
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

bool IsDecodedType(int32_t type) {
  return type == format::kTypeAggregate || type == format::kTypeAggregateStatic ||
         type == format::kTypeEvent || type == format::kTypeHighresEvent;
}

std::string DecodedValueJson(const archiver::Timeline& t, int32_t type, absl::string_view bytes) {
  const std::span<const uint8_t> in(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (type != format::kTypeEvent && type != format::kTypeHighresEvent) {
    return format::JsonString(format::HexText(in));
  }
  absl::StatusOr<format::EventArray> a =
      format::DecodeEventArray(in, type == format::kTypeHighresEvent, format::kValueBlockHeader);
  if (!a.ok()) return absl::StrCat("{\"error\":", format::JsonString(a.status().message()), "}");
  return format::EventArrayJson(*a, t.param_names);
}

std::string DecodedValueText(const archiver::Timeline& t, int32_t type, absl::string_view bytes,
                             absl::TimeZone zone) {
  const std::span<const uint8_t> in(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (type != format::kTypeEvent && type != format::kTypeHighresEvent) {
    return absl::StrCat("value ", format::AggregateText(in));
  }
  const bool highres = type == format::kTypeHighresEvent;
  absl::StatusOr<format::EventArray> a = format::DecodeEventArray(in, highres, format::kValueBlockHeader);
  if (!a.ok()) {
    return absl::StrCat("damaged event array (offsets in its pmValueBlock): ", a.status().message());
  }
  std::string text = format::EventCountText(*a);
  for (size_t i = 0; i < a->records.size(); ++i) {
    const format::EventRecord& e = a->records[i];
    absl::StrAppend(&text, "\n        --- event record [", i, "] timestamp ",
                    absl::FormatTime(highres ? "%Y-%m-%d %H:%M:%E9S" : "%Y-%m-%d %H:%M:%E6S",
                                     format::ToAbslTime(e.timestamp), zone),
                    e.flags == 0 ? "" : absl::StrCat(" flags ", format::EventFlagsText(e.flags)),
                    " ---");
    if (e.flags & format::kEventFlagMissed) {
      absl::StrAppend(&text, "\n        ==> ", e.missed, " missed event records");
    }
    for (const format::EventParam& p : e.params) {
      auto name = t.param_names.find(p.pmid);
      absl::StrAppend(&text, "\n        ", format::PmidString(p.pmid), " (",
                      name == t.param_names.end() ? "<noname>" : name->second, ") value ",
                      format::EventParamText(p));
    }
  }
  return text;
}

std::string CsvHeader(const archiver::Timeline& t, bool raw) {
  std::string out = "Time";
  // Units depend on the descriptor only: once per metric, not per column.
  std::vector<std::optional<std::string>> units(t.descs.size());
  for (size_t c = 0; c < t.columns.size(); ++c) {
    std::optional<std::string>& u = units[t.columns[c].desc];
    if (!u) u = archiver::DisplayUnits(t, c, raw);
    out.push_back(',');
    AppendCsvField(u->empty() ? t.columns[c].label()
                              : absl::StrCat(t.columns[c].label(), " (", *u, ")"),
                   &out);
  }
  return out;
}

// Numbers are written straight into `out`, grown ahead of them, rather than
// appended piece by piece: a row of 100k cells is one pass.
void AppendCsvRow(const archiver::Timeline& t, size_t row, bool raw, absl::string_view time,
                  archiver::RowNumbers& numbers, std::string* out) {
  out->append(time.data(), time.size());
  const std::vector<std::optional<double>>* values = raw ? nullptr : &numbers.Of(row);
  const archiver::Row& r = t.rows[row];
  size_t end = out->size();  // of the text written; out->size() is ahead
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (out->size() - end < 1 + kMaxNumberText) {
      out->resize(std::max(2 * out->size(), end + (t.columns.size() - c) * 8 + 64));
    }
    char* p = out->data() + end;
    *p++ = ',';
    const archiver::StoredValue::Kind kind = t.Kind(row, c);
    if (kind == archiver::StoredValue::kString) {
      out->resize(p - out->data());
      const std::string& s = t.strings[t.bits[r.first + c]];
      const int32_t type = t.ColumnDesc(c).type;
      AppendCsvField(IsDecodedType(type) ? DecodedValueJson(t, type, s) : s, out);
      end = out->size();
      continue;
    }
    if (!raw) {
      if (const std::optional<double>& v = (*values)[c]) p = WriteNumber(*v, p);
    } else if (kind != archiver::StoredValue::kNone) {
      // Raw: numbers exactly as stored (StoredValue::Text).
      const uint64_t b = t.bits[r.first + c];
      if (kind == archiver::StoredValue::kInt) {
        p = std::to_chars(p, p + kMaxNumberText, static_cast<int64_t>(b)).ptr;
      } else if (kind == archiver::StoredValue::kUint) {
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
  out->push_back('\n');
}

}  // namespace mmvlog::cmd

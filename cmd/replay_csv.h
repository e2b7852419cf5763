// The text of `mmvlog replay --csv`, and the number format every replay
// output shares. One CSV line per sample: the time, then one cell per
// column: strings as stored (quoted when they hold a comma, quote or
// newline), aggregates and event arrays as DecodedValueJson (quoted), numbers as NumericValue gives them (counters as rates unless
// raw; with raw, stored numbers exactly), an empty cell without a value.
// Output is built in a caller-owned string, for one large write.
#ifndef MMVLOG_CMD_REPLAY_CSV_H_
#define MMVLOG_CMD_REPLAY_CSV_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "archiver/replay/replay.h"

namespace mmvlog::cmd {

// Appends `v` as replay shows numbers: as printf's "%.3f" with trailing
// zeros and then a trailing point removed ("12.5", "3"), or as "%.6g" when
// |v| >= 1e15 or 0 < |v| < 1e-3. The same bytes as printf for every double
// (checked against it by tests/cmd/replay_csv_test.cc), without printf.
void AppendNumber(double v, std::string* out);
std::string NumberText(double v);

// Appends `s` as one CSV field: as it is, or quoted with its quotes
// doubled when it holds a comma, a quote or a newline.
void AppendCsvField(absl::string_view s, std::string* out);

// True for the types whose values replay shows decoded rather than as their
// bytes: aggregates (both kinds) and event arrays (both layouts).
bool IsDecodedType(int32_t type);

// A value of such a type (its bytes as stored), as JSON for scripts: an
// aggregate as a string of hex digits, an event array as
// format::EventArrayJson gives it (parameters named from t.param_names), a
// damaged one as {"error":"what, at which offset in its pmValueBlock"}.
// REQUIRES: IsDecodedType(type).
std::string DecodedValueJson(const archiver::Timeline& t, int32_t type, absl::string_view bytes);

// The value of such a column as pmdumplog -a prints it, after the metric
// and instance: an aggregate as "value " and pmPrintValue's text; an event
// array as its count ("2 event records") and then, each on a line of its own
// indented by 8, each record's timestamp (in `zone`, microseconds or for
// PM_TYPE_HIGHRES_EVENT nanoseconds) and flags, a missed count, and each
// parameter by PMID, name (t.param_names) and value. A damaged array:
// "damaged event array (offsets in its pmValueBlock): " and what, where.
// REQUIRES: IsDecodedType(type).
std::string DecodedValueText(const archiver::Timeline& t, int32_t type, absl::string_view bytes,
                             absl::TimeZone zone);

// The header line, without its newline: "Time", then per column its label
// and, when it has units, " (units)" as DisplayUnits gives them.
std::string CsvHeader(const archiver::Timeline& t, bool raw);

// Appends the line of row `row`, newline included, starting with `time`.
// `numbers` computes the cells' numbers: RowNumbers(t, raw).
// REQUIRES: row < t.rows.size().
void AppendCsvRow(const archiver::Timeline& t, size_t row, bool raw, absl::string_view time,
                  archiver::RowNumbers& numbers, std::string* out);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_REPLAY_CSV_H_

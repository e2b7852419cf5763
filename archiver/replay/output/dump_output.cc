#include "archiver/replay/output/dump_output.h"

#include <bit>

#include "format/utf8.h"
#include "absl/strings/str_cat.h"
#include "archiver/replay/output/decoded_value.h"
#include "format/archive/archive_result.h"
#include "format/archive/pm_desc_text.h"
#include "format/archive/pm_error.h"
#include "format/json.h"

namespace mmvlog::archiver {
namespace {

// A value as the dump shows it: "value 5", "value \"text\"", or the reason
// it cannot be read (the dump shows every value a record holds).
std::string ValueText(const format::DecodedValue& v, int32_t valfmt, int32_t type,
                      const ColumnSet& columns, absl::TimeZone zone) {
  absl::StatusOr<format::ResultValue> r = format::ValueFromDecoded(v, valfmt, type);
  if (!r.ok()) return absl::StrCat("unreadable value: ", r.status().message());
  switch (KindOfType(type)) {
    case kInt: return absl::StrCat("value ", r->i64);
    case kUint: return absl::StrCat("value ", r->u64);
    case kDouble: return absl::StrCat("value ", format::JsonNumber(r->f64));
    default:
      return IsDecodedType(type) ? DecodedValueText(type, r->bytes, columns.param_names(), zone)
                                 : absl::StrCat("value ", format::JsonString(r->bytes));
  }
}

}  // namespace

void DumpOutput::Record(const Sample& s) {
  std::string& o = text_.buffer();
  if (s.mark) {
    absl::StrAppend(&o, TimeText(s.time, header_.zone, 9), "  <mark>\n");
    return;
  }
  if (!s.listed || s.record == nullptr) return;
  const ColumnSet& columns = *header_.columns;
  std::string lines;
  size_t count = 0;
  for (const format::DecodedValueSet& set : s.record->sets) {
    const ptrdiff_t metric = columns.MetricOf(set.pmid);
    if (metric < 0) continue;
    const ReplayMetric& m = columns.metrics()[metric];
    const std::string head =
        absl::StrCat("    ", format::PmidString(set.pmid), " (", format::ValidUtf8(m.name), ")");
    if (set.numval == 0) {
      absl::StrAppend(&lines, head, " no values\n");
      continue;
    }
    if (set.numval < 0) {
      absl::StrAppend(&lines, head, " error ", format::PmErrorText(set.numval), "\n");
      continue;
    }
    const bool singular = m.desc.indom == format::kIndomNull;
    for (const format::DecodedValue& v : set.values) {
      std::string inst;
      if (!singular) {
        const ptrdiff_t column = columns.Find(set.pmid, v.inst);
        if (column < 0 && columns.instances_chosen()) continue;  // not one of -i's instances
        const std::string name =
            column < 0 ? "???" : format::ValidUtf8(columns.columns()[column].instance);
        inst = column < 0 ? absl::StrCat(" inst [", v.inst, " or ???]")
                          : absl::StrCat(" inst [", v.inst, " or \"", name, "\"]");
      }
      absl::StrAppend(&lines, head, inst, " ",
                      ValueText(v, set.valfmt, m.desc.type, columns, header_.zone), "\n");
      ++count;
    }
  }
  absl::StrAppend(&o, TimeText(s.time, header_.zone, 9), "  ", count, " values\n", lines);
  text_.MaybeFlush();
}

absl::Status DumpOutput::End(const ReplayEnd& /*end*/) {
  return text_.Finish();
}

}  // namespace mmvlog::archiver

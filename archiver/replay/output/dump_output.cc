#include "archiver/replay/output/dump_output.h"

#include <bit>

#include "absl/strings/str_cat.h"
#include "archiver/replay/output/decoded_value.h"
#include "format/json.h"
#include "format/archive/pm_desc_text.h"

namespace mmvlog::archiver {

void DumpOutput::Record(const Sample& s) {
  std::string& o = text_.buffer();
  if (s.mark) {
    absl::StrAppend(&o, TimeText(s.time, header_.zone, 9), "  <mark>\n");
    return;
  }
  if (!s.chosen) return;
  absl::StrAppend(&o, TimeText(s.time, header_.zone, 9), "  ", s.values.size(), " values\n");
  const ColumnSet& columns = *header_.columns;
  for (const SampleValue& v : s.values) {
    const Column& col = columns.columns()[v.column];
    const int32_t type = columns.desc(v.column).type;
    std::string value;
    switch (v.kind) {
      case kInt: value = absl::StrCat("value ", static_cast<int64_t>(v.bits)); break;
      case kUint: value = absl::StrCat("value ", v.bits); break;
      case kDouble: value = absl::StrCat("value ", format::JsonNumber(std::bit_cast<double>(v.bits))); break;
      case kString:
        value = IsDecodedType(type)
                    ? DecodedValueText(type, s.strings[v.bits], columns.param_names(), header_.zone)
                    : absl::StrCat("value ", format::JsonString(s.strings[v.bits]));
        break;
      case kNoValue: continue;
    }
    absl::StrAppend(&o, "    ", format::PmidString(col.pmid), " (",
                    columns.metrics()[col.metric].name, ")",
                    col.inst < 0 ? "" : absl::StrCat(" inst [", col.inst, " or \"", col.instance, "\"]"),
                    " ", value, "\n");
  }
  text_.MaybeFlush();
}

absl::Status DumpOutput::End(const ReplayEnd& /*end*/) {
  text_.Flush();
  return absl::OkStatus();
}

}  // namespace mmvlog::archiver

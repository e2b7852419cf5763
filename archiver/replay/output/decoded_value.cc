#include "archiver/replay/output/decoded_value.h"

#include <span>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_types.h"
#include "format/archive/event_record.h"
#include "format/json.h"
#include "format/archive/pm_desc_text.h"

namespace mmvlog::archiver {

bool IsDecodedType(int32_t type) {
  return type == format::kTypeAggregate || type == format::kTypeAggregateStatic ||
         type == format::kTypeEvent || type == format::kTypeHighresEvent;
}

std::string DecodedValueJson(int32_t type, absl::string_view bytes,
                             const std::map<uint32_t, std::string>& param_names) {
  const std::span<const uint8_t> in(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (type != format::kTypeEvent && type != format::kTypeHighresEvent) {
    return format::JsonString(format::HexText(in));
  }
  absl::StatusOr<format::EventArray> a =
      format::DecodeEventArray(in, type == format::kTypeHighresEvent, format::kValueBlockHeader);
  if (!a.ok()) return absl::StrCat("{\"error\":", format::JsonString(a.status().message()), "}");
  return format::EventArrayJson(*a, param_names);
}

std::string DecodedValueText(int32_t type, absl::string_view bytes,
                             const std::map<uint32_t, std::string>& param_names,
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
      auto name = param_names.find(p.pmid);
      absl::StrAppend(&text, "\n        ", format::PmidString(p.pmid), " (",
                      name == param_names.end() ? "<noname>" : name->second, ") value ",
                      format::EventParamText(p));
    }
  }
  return text;
}

}  // namespace mmvlog::archiver

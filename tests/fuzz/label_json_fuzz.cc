// libFuzzer target: label JSON as an MMV file carries it (any bytes) through
// MakeLabelSet, MergeLabelJson and the label record encoder. What makes a
// set must have every entry inside its text, name a valid label name, and
// encode and decode back equal.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_split.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_meta.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mmvlog::format;
  const std::string in(reinterpret_cast<const char*>(data), size);
  // Objects to merge, split at NUL (a file's several payloads for one entity).
  std::vector<std::string> objects = absl::StrSplit(in, '\0');
  absl::StatusOr<std::string> merged = MergeLabelJson(objects);
  absl::StatusOr<LabelSet> set = MakeLabelSet(kInNull, objects[0], kLabelItem);
  if (merged.ok()) (void)MakeLabelSet(kInNull, *merged, kLabelItem);
  if (!set.ok()) return 0;
  for (const LabelEntry& e : set->labels) {
    if (e.name_offset + e.name_length > set->json.size() ||
        e.value_offset + e.value_length > set->json.size() || e.name_length == 0 ||
        e.value_length == 0) {
      std::abort();
    }
  }
  LabelRecord r;
  r.type = kLabelItem;
  r.ident = PmidBuild(70, 1, 1);
  r.sets.push_back(*set);
  std::vector<uint8_t> out;
  if (!EncodeLabelRecord(kLogVersion3, r, &out).ok()) std::abort();
  absl::StatusOr<MetaRecord> back =
      DecodeMetaRecord(kLogVersion3, std::span<const uint8_t>(out).subspan(4, out.size() - 8), 0);
  if (!back.ok()) std::abort();
  const LabelRecord* again = std::get_if<LabelRecord>(&*back);
  if (again == nullptr || !(*again == r)) std::abort();
  return 0;
}

// libFuzzer target: an event array value (first byte: odd for the
// PM_TYPE_HIGHRES_EVENT layout) through DecodeEventArray; what decodes is
// printed as replay does and must encode back to an array that decodes equal.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <span>
#include <vector>

#include "format/archive/event_record.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  const bool highres = mmvlog::fuzz::VersionOf(in) == 3;
  absl::StatusOr<mmvlog::format::EventArray> a =
      mmvlog::format::DecodeEventArray(mmvlog::fuzz::AfterSelector(in), highres);
  (void)mmvlog::format::AggregateText(mmvlog::fuzz::AfterSelector(in));
  if (!a.ok()) return 0;
  (void)mmvlog::format::EventCountText(*a);
  (void)mmvlog::format::EventArrayJson(*a, {});
  for (const mmvlog::format::EventRecord& e : a->records) {
    (void)mmvlog::format::EventFlagsText(e.flags);
    for (const mmvlog::format::EventParam& p : e.params) (void)mmvlog::format::EventParamText(p);
  }
  std::vector<uint8_t> again;
  mmvlog::format::EncodeEventArray(*a, highres, &again);
  absl::StatusOr<mmvlog::format::EventArray> b = mmvlog::format::DecodeEventArray(again, highres);
  if (!b.ok() || !(*b == *a)) std::abort();
  return 0;
}

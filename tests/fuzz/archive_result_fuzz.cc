// libFuzzer target: a result record payload (first byte: the version, odd
// for 3) through DecodeResult, and every decoded set through
// ValueSetFromDecoded for each metric type.
#include <cstddef>
#include <cstdint>
#include <span>

#include "format/archive/archive_result.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  absl::StatusOr<mmvlog::format::DecodedResult> r = mmvlog::format::DecodeResult(
      mmvlog::fuzz::VersionOf(in), mmvlog::fuzz::AfterSelector(in), 132);
  if (!r.ok()) return 0;
  for (const mmvlog::format::DecodedValueSet& set : r->sets) {
    for (int32_t type = 0; type <= 6; ++type) {
      (void)mmvlog::format::ValueSetFromDecoded(set, type);
    }
  }
  return 0;
}

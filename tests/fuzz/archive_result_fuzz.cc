// libFuzzer target: a result record payload (first byte: the version, odd
// for 3) through DecodeResult, and every decoded set through
// ValueSetFromDecoded for each metric type. A record that decodes gives its
// ResultShape, which must match the record itself; and a copy with one byte
// changed (at 64 places spread over it) that the shape still matches must
// decode to the same layout (what lets replay skip decoding it): aborts
// otherwise.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "format/archive/archive_result.h"
#include "format/archive/result_shape.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

using mmvlog::format::DecodedResult;

// Everything of a decoded record but its timestamp and its values' bytes.
bool SameLayout(const DecodedResult& a, const uint8_t* pa, const DecodedResult& b,
                const uint8_t* pb) {
  if (a.sets.size() != b.sets.size()) return false;
  for (size_t i = 0; i < a.sets.size(); ++i) {
    const auto& x = a.sets[i];
    const auto& y = b.sets[i];
    if (x.pmid != y.pmid || x.numval != y.numval || x.valfmt != y.valfmt ||
        x.values.size() != y.values.size()) {
      return false;
    }
    for (size_t k = 0; k < x.values.size(); ++k) {
      const auto& u = x.values[k];
      const auto& v = y.values[k];
      if (u.inst != v.inst || u.block_type != v.block_type || u.block.size() != v.block.size() ||
          (u.block.empty() ? 0 : u.block.data() - pa) != (v.block.empty() ? 0 : v.block.data() - pb)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  const int version = mmvlog::fuzz::VersionOf(in);
  const std::span<const uint8_t> payload = mmvlog::fuzz::AfterSelector(in);
  absl::StatusOr<DecodedResult> r = mmvlog::format::DecodeResult(version, payload, 132);
  if (!r.ok()) return 0;
  for (const mmvlog::format::DecodedValueSet& set : r->sets) {
    for (int32_t type = 0; type <= 6; ++type) {
      (void)mmvlog::format::ValueSetFromDecoded(set, type);
    }
  }
  const mmvlog::format::ResultShape shape(version, payload, *r);
  if (!shape.Matches(payload)) std::abort();
  std::vector<uint8_t> changed(payload.begin(), payload.end());
  const size_t stamp = version == 2 ? 8 : 12;
  for (size_t n = 0; n < 64 && changed.size() > stamp; ++n) {
    const size_t at = stamp + n * (changed.size() - stamp) / 64;
    const uint8_t was = changed[at];
    changed[at] ^= static_cast<uint8_t>(0x5a + n);
    if (shape.Matches(changed)) {
      absl::StatusOr<DecodedResult> again = mmvlog::format::DecodeResult(version, changed, 132);
      if (!again.ok() || !SameLayout(*r, payload.data(), *again, changed.data())) std::abort();
    }
    changed[at] = was;
  }
  return 0;
}

// libFuzzer target: a .meta record payload (first byte: the version, odd
// for 3) through DecodeMetaRecord.
#include <cstddef>
#include <cstdint>
#include <span>

#include "format/archive/archive_meta.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  (void)mmvlog::format::DecodeMetaRecord(mmvlog::fuzz::VersionOf(in),
                                         mmvlog::fuzz::AfterSelector(in), 132);
  return 0;
}

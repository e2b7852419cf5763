// libFuzzer target: temporal index entries (first byte: the version, odd
// for 3) through DecodeIndexEntry, as the reader walks an .index after its
// label.
#include <cstddef>
#include <cstdint>
#include <span>

#include "format/archive/archive_index.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  const int version = mmvlog::fuzz::VersionOf(in);
  std::span<const uint8_t> rest = mmvlog::fuzz::AfterSelector(in);
  (void)mmvlog::format::DecodeIndexEntry(version, rest);  // exactly one, or an error
  const size_t n = mmvlog::format::IndexEntrySize(version);
  for (size_t at = 0; at + n <= rest.size(); at += n) {
    (void)mmvlog::format::DecodeIndexEntry(version, rest.subspan(at, n));
  }
  return 0;
}

// libFuzzer target: an MMV file image through ParseMmv, MmvExtent and, for
// images that parse, ReadMmvValue for every value (strings included).
#include <cstddef>
#include <cstdint>
#include <span>

#include "format/mmv/mmv_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  (void)mmvlog::format::MmvExtent(bytes, size);
  (void)mmvlog::format::MmvExtent(bytes, uint64_t{1} << 40);  // as a sparse file's
  absl::StatusOr<mmvlog::format::MmvFile> file = mmvlog::format::ParseMmv(bytes);
  if (!file.ok()) return 0;
  for (const mmvlog::format::MmvValueEntry& v : file->values) {
    (void)mmvlog::format::ReadMmvValue(bytes, *file, v);
  }
  return 0;
}

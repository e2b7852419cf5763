// libFuzzer target: a volume's bytes through RecordScanner, record after
// record, to the end or the first error.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "format/archive/archive_framing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mmvlog::format::RecordScanner scanner(std::span<const uint8_t>(data, size), 0);
  for (;;) {
    absl::StatusOr<std::optional<mmvlog::format::Frame>> f = scanner.Next();
    if (!f.ok() || !f->has_value()) break;
  }
  return 0;
}

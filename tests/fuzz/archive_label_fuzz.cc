// libFuzzer target: a label payload through DecodeLogLabel; a decoded label
// must encode again (the encoder's own checks).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "format/archive/archive_label.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<mmvlog::format::LogLabel> label =
      mmvlog::format::DecodeLogLabel(std::span<const uint8_t>(data, size));
  if (label.ok()) {
    std::vector<uint8_t> out;
    (void)mmvlog::format::EncodeLogLabel(*label, &out);
  }
  return 0;
}

// libFuzzer target: every string replay and inspect put in JSON, through a
// real JSON parser (nlohmann-json3): JsonString of any bytes is one valid
// JSON string that reads back as ValidUtf8 of them (UTF-8 unchanged, other
// bytes U+FFFD), and ValidUtf8's result is itself valid UTF-8 and stable.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "format/json.h"
#include "format/utf8.h"
#include "nlohmann/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string valid = mmvlog::format::ValidUtf8(bytes);
  if (!mmvlog::format::IsValidUtf8(valid)) std::abort();
  if (mmvlog::format::ValidUtf8(valid) != valid) std::abort();
  if (mmvlog::format::IsValidUtf8(bytes) != (valid == bytes)) std::abort();
  const std::string json = mmvlog::format::JsonString(bytes);
  const nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_string()) std::abort();
  if (parsed.get<std::string>() != valid) std::abort();
  // Inside a document, as the JSON output writes it.
  const nlohmann::json doc = nlohmann::json::parse("{" + json + ":[" + json + "]}", nullptr, false);
  if (!doc.is_object() || doc.size() != 1 || doc.begin().key() != valid) std::abort();
  return 0;
}

#include "format/mmv/mmv_strings.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "format/errors.h"

namespace mmvlog::format {

// A C string inside a fixed-width field; M15 when it has no NUL.
absl::StatusOr<std::string> FixedMmvString(std::span<const uint8_t> bytes,
                                           uint64_t offset, size_t width,
                                           absl::string_view what) {
  const uint8_t* p = bytes.data() + offset;
  const void* nul = std::memchr(p, 0, width);
  if (nul == nullptr) {
    return DataLossAt(offset, absl::StrCat(what, " has no NUL within its ",
                                           width, " bytes"));
  }
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<const uint8_t*>(nul) - p);
}

absl::StatusOr<std::string> ReadMmvString(std::span<const uint8_t> bytes,
                                          const MmvFile& file, uint64_t offset,
                                          uint64_t referrer) {
  const uint64_t begin = file.strings_offset;
  const uint64_t end = begin + file.strings_size;
  // Anywhere inside the section, as PCP's MMV agent reads them: libpcp_mmv
  // puts strings on 256-byte slots, other writers need not.
  if (file.strings_size == 0 || offset < begin || offset >= end ||
      end > bytes.size()) {  // M14
    return DataLossAt(
        referrer,
        absl::StrCat("string offset ", offset,
                     file.strings_size == 0
                         ? std::string(" but the file has no STRINGS section")
                         : absl::StrCat(" is not inside the STRINGS section [",
                                        begin, ", ", end, ")")));
  }
  return FixedMmvString(bytes, offset,
                     static_cast<size_t>(std::min<uint64_t>(kMmvStringSlotSize, end - offset)),
                     "string");  // M15
}

}  // namespace mmvlog::format

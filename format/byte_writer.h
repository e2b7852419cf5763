// Appending big-endian integers to a caller-owned byte vector (the archive's
// byte order; LOGARCHIVE(5)). The counterpart of ByteReader.
#ifndef MMVLOG_FORMAT_BYTE_WRITER_H_
#define MMVLOG_FORMAT_BYTE_WRITER_H_

#include <cstdint>
#include <vector>

#include "format/endian.h"

namespace mmvlog::format {

inline void AppendBig16(uint16_t v, std::vector<uint8_t>* out) {
  out->resize(out->size() + 2);
  StoreBig16(out->data() + out->size() - 2, v);
}

inline void AppendBig32(uint32_t v, std::vector<uint8_t>* out) {
  out->resize(out->size() + 4);
  StoreBig32(out->data() + out->size() - 4, v);
}

inline void AppendBig64(uint64_t v, std::vector<uint8_t>* out) {
  out->resize(out->size() + 8);
  StoreBig64(out->data() + out->size() - 8, v);
}

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_BYTE_WRITER_H_

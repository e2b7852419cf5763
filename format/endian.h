// Byte-order helpers. Archive data is big-endian (LOGARCHIVE(5)); MMV files
// are in the writer's native order (mmv(5)). Every load and store goes through
// memcpy, so callers never depend on alignment or aliasing rules.
#ifndef MMVLOG_FORMAT_ENDIAN_H_
#define MMVLOG_FORMAT_ENDIAN_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace mmvlog::format {

// Loads a T in the host's byte order from `p` (MMV files).
template <typename T>
inline T LoadNative(const uint8_t* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Stores `v` in the host's byte order at `p`.
template <typename T>
inline void StoreNative(uint8_t* p, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(p, &v, sizeof(T));
}

inline uint16_t ByteSwap16(uint16_t v) { return __builtin_bswap16(v); }
inline uint32_t ByteSwap32(uint32_t v) { return __builtin_bswap32(v); }
inline uint64_t ByteSwap64(uint64_t v) { return __builtin_bswap64(v); }

inline uint16_t LoadBig16(const uint8_t* p) {
  uint16_t v = LoadNative<uint16_t>(p);
  return std::endian::native == std::endian::big ? v : ByteSwap16(v);
}
inline uint32_t LoadBig32(const uint8_t* p) {
  uint32_t v = LoadNative<uint32_t>(p);
  return std::endian::native == std::endian::big ? v : ByteSwap32(v);
}
inline uint64_t LoadBig64(const uint8_t* p) {
  uint64_t v = LoadNative<uint64_t>(p);
  return std::endian::native == std::endian::big ? v : ByteSwap64(v);
}
inline void StoreBig16(uint8_t* p, uint16_t v) {
  StoreNative(p, std::endian::native == std::endian::big ? v : ByteSwap16(v));
}
inline void StoreBig32(uint8_t* p, uint32_t v) {
  StoreNative(p, std::endian::native == std::endian::big ? v : ByteSwap32(v));
}
inline void StoreBig64(uint8_t* p, uint64_t v) {
  StoreNative(p, std::endian::native == std::endian::big ? v : ByteSwap64(v));
}

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ENDIAN_H_

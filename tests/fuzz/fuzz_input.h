// A small reader of a fuzzer's input: a selector byte, then the rest. Keeps
// the targets short and their use of the input explicit.
#ifndef MMVLOG_TESTS_FUZZ_FUZZ_INPUT_H_
#define MMVLOG_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <span>

namespace mmvlog::fuzz {

// The archive version a record is decoded as: 2 or 3, from the first byte.
inline int VersionOf(std::span<const uint8_t> data) {
  return !data.empty() && (data[0] & 1) ? 3 : 2;
}

// The input after its selector byte.
inline std::span<const uint8_t> AfterSelector(std::span<const uint8_t> data) {
  return data.empty() ? data : data.subspan(1);
}

}  // namespace mmvlog::fuzz

#endif  // MMVLOG_TESTS_FUZZ_FUZZ_INPUT_H_

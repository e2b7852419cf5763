#include "format/derive/integer_reduce.h"

namespace mmvlog::format {

// Plain loops over pointers, which the vectorizer takes (a conditional, not
// std::min, whose reference it does not see as a reduction).
#define MMVLOG_REDUCE [[gnu::target_clones("arch=x86-64-v4", "avx2", "default")]]

MMVLOG_REDUCE uint64_t SumBits(std::span<const uint64_t> v) {
  const uint64_t* p = v.data();
  uint64_t sum = 0;
  for (size_t i = 0; i < v.size(); ++i) sum += p[i];
  return sum;
}

MMVLOG_REDUCE uint64_t MinUnsigned(std::span<const uint64_t> v) {
  const uint64_t* p = v.data();
  uint64_t acc = p[0];
  for (size_t i = 0; i < v.size(); ++i) acc = p[i] < acc ? p[i] : acc;
  return acc;
}

MMVLOG_REDUCE uint64_t MaxUnsigned(std::span<const uint64_t> v) {
  const uint64_t* p = v.data();
  uint64_t acc = p[0];
  for (size_t i = 0; i < v.size(); ++i) acc = p[i] > acc ? p[i] : acc;
  return acc;
}

MMVLOG_REDUCE int64_t MinSigned(std::span<const uint64_t> v) {
  const uint64_t* p = v.data();
  int64_t acc = static_cast<int64_t>(p[0]);
  for (size_t i = 0; i < v.size(); ++i) acc = static_cast<int64_t>(p[i]) < acc ? static_cast<int64_t>(p[i]) : acc;
  return acc;
}

MMVLOG_REDUCE int64_t MaxSigned(std::span<const uint64_t> v) {
  const uint64_t* p = v.data();
  int64_t acc = static_cast<int64_t>(p[0]);
  for (size_t i = 0; i < v.size(); ++i) acc = static_cast<int64_t>(p[i]) > acc ? static_cast<int64_t>(p[i]) : acc;
  return acc;
}

#undef MMVLOG_REDUCE

}  // namespace mmvlog::format

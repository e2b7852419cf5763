// Sums and extremes over a metric's integers (sum(), min(), max() of
// derive_eval.cc), vectorized: built with -ftree-vectorize, in AVX-512
// (x86-64-v4), AVX2 and plain clones that the dynamic loader picks between
// by the CPU (GCC's target_clones). A sum modulo 2^64 and an extreme are the same in
// any order, so the result is libpcp's whichever runs.
#ifndef MMVLOG_FORMAT_DERIVE_INTEGER_REDUCE_H_
#define MMVLOG_FORMAT_DERIVE_INTEGER_REDUCE_H_

#include <cstdint>
#include <span>

namespace mmvlog::format {

// Modulo 2^64 (so modulo 2^32 for the 32-bit types, once cut).
uint64_t SumBits(std::span<const uint64_t> v);
// REQUIRES: !v.empty().
uint64_t MinUnsigned(std::span<const uint64_t> v);
uint64_t MaxUnsigned(std::span<const uint64_t> v);
// The bits as two's complement.
int64_t MinSigned(std::span<const uint64_t> v);
int64_t MaxSigned(std::span<const uint64_t> v);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_DERIVE_INTEGER_REDUCE_H_

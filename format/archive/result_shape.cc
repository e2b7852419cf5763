#include "format/archive/result_shape.h"

#include <algorithm>
#include <cstring>

#include "format/archive/archive_format.h"

namespace mmvlog::format {

ResultShape::ResultShape(int version, std::span<const uint8_t> payload,
                         const DecodedResult& decoded)
    : size_(payload.size()) {
  // A payload DecodeResultInto accepts is whole words (its blocks padded).
  const size_t words = payload.size() / 4;
  expected_.resize(words);
  std::memcpy(expected_.data(), payload.data(), words * 4);
  mask_.assign(words, ~uint32_t{0});
  if (payload.size() % 4 != 0) {
    size_ = SIZE_MAX;  // never matches
    return;
  }
  const size_t stamp = version == kLogVersion2 ? 8 : 12;
  for (size_t w = 0; w < stamp / 4; ++w) mask_[w] = 0;
  auto unmask = [&](size_t from, size_t to) {  // bytes [from, to) padded
    for (size_t w = from / 4; w < PadTo32Bits(to) / 4; ++w) mask_[w] = 0;
  };
  size_t at = stamp + 4;  // the first set, after numpmid
  first_.reserve(decoded.sets.size());
  for (const DecodedValueSet& set : decoded.sets) {
    first_.push_back(offsets_.size());
    if (set.numval <= 0) {
      at += kValueSetNoValuesSize;
      continue;
    }
    at += kValueSetHeader;
    for (const DecodedValue& v : set.values) {
      if (set.valfmt == kValInsitu) {
        offsets_.push_back(static_cast<uint32_t>(at + 4));
        unmask(at + 4, at + 8);
      } else {
        const size_t from = static_cast<size_t>(v.block.data() - payload.data());
        offsets_.push_back(static_cast<uint32_t>(from));
        unmask(from, from + v.block.size());
      }
      at += kValueSize;
    }
  }
  // Every block's header compared, even one a hostile record laid inside
  // another value's bytes: its type and length say how to read the value.
  for (size_t i = 0, set = 0; set < decoded.sets.size(); ++set) {
    const DecodedValueSet& s = decoded.sets[set];
    for (size_t k = 0; k < s.values.size(); ++k, ++i) {
      if (s.numval > 0 && s.valfmt != kValInsitu) mask_[(offsets_[i] - kValueBlockHeader) / 4] = ~uint32_t{0};
    }
  }
  for (size_t w = 0; w < words; ++w) expected_[w] &= mask_[w];
}

namespace {

// A plain loop over words without an early exit, which the vectorizer
// takes; a free function, as clang's target_clones wants.
[[gnu::target_clones("avx2", "default")]] bool MaskedEqual(const uint8_t* p, const uint32_t* e,
                                                           const uint32_t* m, size_t words) {
  uint32_t diff = 0;
  // The payload is most often read in place from the page cache, this its
  // first reading: asked for 1 KB ahead, as the CPU's own prefetch stops at
  // each 4 KB page (13% less of this, 3% of a scalar replay: issue 31).
  constexpr size_t kBlock = 64;  // words: 256 bytes, four cache lines
  constexpr size_t kAhead = 1024;
  for (size_t b = 0; b < words; b += kBlock) {
    for (size_t line = 0; line < 4 * kBlock; line += 64) __builtin_prefetch(p + 4 * b + kAhead + line);
    const size_t end = std::min(b + kBlock, words);
    for (size_t w = b; w < end; ++w) {
      uint32_t word;
      std::memcpy(&word, p + 4 * w, 4);
      diff |= (word & m[w]) ^ e[w];
    }
  }
  return diff == 0;
}

}  // namespace

bool ResultShape::Matches(std::span<const uint8_t> payload) const {
  return payload.size() == size_ &&
         MaskedEqual(payload.data(), expected_.data(), mask_.data(), expected_.size());
}

}  // namespace mmvlog::format

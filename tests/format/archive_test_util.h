// Helpers shared by the archive record tests: a byte builder for writing
// expected encodings field by field, a hex dump so that failing comparisons
// show where bytes differ, and matchers for "offset N: ..." errors.
#ifndef MMVLOG_TESTS_FORMAT_ARCHIVE_TEST_UTIL_H_
#define MMVLOG_TESTS_FORMAT_ARCHIVE_TEST_UTIL_H_

#include <gmock/gmock.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_result.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::format::testing {

// A random value of fixed-size type `type` into the member of `*v` that
// ValueSet uses for it (a FLOAT's a float's value); other types untouched.
inline void RandomFixedValue(std::mt19937_64& rng, int32_t type, ResultValue* v) {
  const uint64_t x = rng();
  switch (type) {
    case kType32: v->i64 = static_cast<int32_t>(x); break;
    case kTypeU32: v->u64 = static_cast<uint32_t>(x); break;
    case kType64: v->i64 = static_cast<int64_t>(x); break;
    case kTypeU64: v->u64 = x; break;
    case kTypeFloat: v->f64 = static_cast<float>(static_cast<int32_t>(x)) / 7.0f; break;
    case kTypeDouble: v->f64 = static_cast<double>(static_cast<int64_t>(x)) / 3.0; break;
  }
}

// Hex dump, 16 bytes per line, each line prefixed with its offset, e.g.
// "0010: 00 00 00 84 ...". Compare two dumps with EXPECT_EQ to see the first
// differing line.
inline std::string HexDump(std::span<const uint8_t> bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 16) {
    char line[24];
    std::snprintf(line, sizeof line, "%04zx:", i);
    out += line;
    for (size_t j = i; j < i + 16 && j < bytes.size(); ++j) {
      std::snprintf(line, sizeof line, " %02x", bytes[j]);
      out += line;
    }
    out += '\n';
  }
  return out;
}

// Builds expected bytes field by field, big-endian:
//   Bytes().Be32(0x84)  // length
//          .Str("host", 64)  // hostname, NUL padded
class Bytes {
 public:
  Bytes& Be32(uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b_.push_back(static_cast<uint8_t>(v >> s));
    return *this;
  }
  Bytes& Be64(uint64_t v) {
    for (int s = 56; s >= 0; s -= 8) b_.push_back(static_cast<uint8_t>(v >> s));
    return *this;
  }
  Bytes& U8(uint8_t v) {
    b_.push_back(v);
    return *this;
  }
  Bytes& Raw(std::initializer_list<uint8_t> v) {
    b_.insert(b_.end(), v.begin(), v.end());
    return *this;
  }
  Bytes& Raw(absl::string_view s) {
    b_.insert(b_.end(), s.begin(), s.end());
    return *this;
  }
  // `s` followed by NULs up to `width` bytes.
  Bytes& Str(absl::string_view s, size_t width) {
    Raw(s);
    b_.resize(b_.size() + (width - s.size()), 0);
    return *this;
  }
  Bytes& Fill(size_t n, uint8_t byte) {
    b_.resize(b_.size() + n, byte);
    return *this;
  }
  const std::vector<uint8_t>& vec() const { return b_; }
  operator std::span<const uint8_t>() const { return b_; }
  size_t size() const { return b_.size(); }

 private:
  std::vector<uint8_t> b_;
};

// An error with `code` whose message starts "offset <offset>: " and
// contains `what`.
inline auto IsErrorAt(absl::StatusCode code, uint64_t offset,
                      const std::string& what) {
  return ::mmvlog::testing::StatusIs(
      code, ::testing::AllOf(
                ::testing::StartsWith(absl::StrCat("offset ", offset, ": ")),
                ::testing::HasSubstr(what)));
}
inline auto IsDataLossAt(uint64_t offset, const std::string& what) {
  return IsErrorAt(absl::StatusCode::kDataLoss, offset, what);
}

}  // namespace mmvlog::format::testing

#endif  // MMVLOG_TESTS_FORMAT_ARCHIVE_TEST_UTIL_H_

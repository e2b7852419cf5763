// Tests of //format/archive:result_shape: a record of the same layout with
// other values and another timestamp matches, its values where
// value_offset() says; a record of any other layout does not; and, byte by
// byte over random records, a record that matches decodes to the same
// layout (what lets a reader skip decoding it), whatever byte was changed.
#include "format/archive/result_shape.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "format/archive/archive_format.h"
#include "format/archive/archive_result.h"
#include "format/endian.h"
#include "tests/format/archive_test_util.h"

namespace mmvlog::format {
namespace {

constexpr int32_t kTypes[] = {kType32, kTypeU32, kType64, kTypeU64, kTypeFloat, kTypeDouble, kTypeString};

// Drawn again (`again`), a string keeps its length: a new value, not a new
// layout.
void RandomValue(std::mt19937_64& rng, int32_t type, ResultValue* v, bool again = false) {
  if (type != kTypeString) {
    testing::RandomFixedValue(rng, type, v);
    return;
  }
  const uint64_t x = rng();
  v->bytes.assign(again ? v->bytes.size() : x % 9, static_cast<char>('a' + x % 26));
}

Result RandomResult(std::mt19937_64& rng) {
  Result r;
  r.timestamp = {1'700'000'000 + static_cast<int64_t>(rng() % 1000),
                 static_cast<uint32_t>(rng() % 1'000'000'000)};
  const size_t sets = rng() % 6;
  for (size_t i = 0; i < sets; ++i) {
    ValueSet s;
    s.pmid = PmidBuild(70, 1, static_cast<uint32_t>(i));
    s.type = kTypes[rng() % 7];
    const uint64_t shape = rng() % 8;
    if (shape == 0) {
      s.error = -12357;
    } else if (shape != 1) {
      const size_t n = rng() % 6 + 1;
      for (size_t k = 0; k < n; ++k) {
        ResultValue v;
        v.inst = static_cast<int32_t>(k * 3);
        RandomValue(rng, s.type, &v);
        s.values.push_back(v);
      }
    }
    r.sets.push_back(s);
  }
  return r;
}

std::vector<uint8_t> Payload(int version, const Result& r) {
  std::vector<uint8_t> rec;
  EncodeResult(version, r, &rec);
  return std::vector<uint8_t>(rec.begin() + 4, rec.end() - 4);  // without the lengths
}

DecodedResult Decoded(int version, std::span<const uint8_t> payload) {
  absl::StatusOr<DecodedResult> d = DecodeResult(version, payload, 0);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *d : DecodedResult{};
}

// The layout of a decoded record: everything but the timestamp and the
// values' bytes, with each value's offset in the payload.
std::string Layout(const DecodedResult& d, std::span<const uint8_t> payload) {
  std::string out;
  for (const DecodedValueSet& s : d.sets) {
    out += std::to_string(s.pmid) + "/" + std::to_string(s.numval) + "/" + std::to_string(s.valfmt) + ":";
    for (const DecodedValue& v : s.values) {
      out += std::to_string(v.inst) + "," + std::to_string(v.block_type) + "," +
             std::to_string(v.block.size()) + "@" +
             std::to_string(v.block.empty() ? -1 : v.block.data() - payload.data()) + " ";
    }
  }
  return out;
}

TEST(ResultShapeTest, OtherValuesAndTimeMatchAtTheirOffsets) {
  std::mt19937_64 rng(20261129);
  for (int version : {kLogVersion2, kLogVersion3}) {
    for (int round = 0; round < 300; ++round) {
      Result r = RandomResult(rng);
      const std::vector<uint8_t> first = Payload(version, r);
      const ResultShape shape(version, first, Decoded(version, first));
      r.timestamp.sec += 7;
      r.timestamp.nsec = static_cast<uint32_t>(rng() % 1'000'000'000);
      for (ValueSet& s : r.sets) {
        for (ResultValue& v : s.values) RandomValue(rng, s.type, &v, true);
      }
      const std::vector<uint8_t> next = Payload(version, r);
      ASSERT_TRUE(shape.Matches(next)) << "version " << version << " round " << round;
      const DecodedResult d = Decoded(version, next);
      for (size_t i = 0; i < d.sets.size(); ++i) {
        for (size_t k = 0; k < d.sets[i].values.size(); ++k) {
          const DecodedValue& v = d.sets[i].values[k];
          const uint32_t at = shape.value_offset(i, k);
          if (d.sets[i].valfmt == kValInsitu) {
            EXPECT_EQ(LoadBig32(next.data() + at), v.insitu);
          } else {
            EXPECT_EQ(next.data() + at, v.block.data());
          }
        }
      }
    }
  }
}

TEST(ResultShapeTest, AnotherLayoutDoesNotMatch) {
  std::mt19937_64 rng(20261130);
  int changes = 0;
  for (int version : {kLogVersion2, kLogVersion3}) {
    for (int round = 0; round < 300; ++round) {
      Result r = RandomResult(rng);
      const std::vector<uint8_t> first = Payload(version, r);
      const ResultShape shape(version, first, Decoded(version, first));
      Result other = r;
      switch (rng() % 5) {
        case 0: other.sets.push_back({PmidBuild(70, 2, 0), kTypeU32, 0, {ResultValue{}}}); break;
        case 1:
          if (other.sets.empty()) continue;
          other.sets.pop_back();
          break;
        case 2: {  // an instance renumbered
          bool done = false;
          for (ValueSet& s : other.sets) {
            if (!s.values.empty() && !done) s.values[0].inst += 1, done = true;
          }
          if (!done) continue;
          break;
        }
        case 3: {  // a string grown past its padding
          bool done = false;
          for (ValueSet& s : other.sets) {
            if (s.type == kTypeString && !s.values.empty() && !done) {
              s.values[0].bytes += "0123";
              done = true;
            }
          }
          if (!done) continue;
          break;
        }
        case 4: {  // values become an error, or an error no values
          if (other.sets.empty()) continue;
          ValueSet& s = other.sets[0];
          if (s.error != 0) {
            s.error = 0;
          } else {
            s.error = -12345;
            s.values.clear();
          }
          if (Payload(version, other) == first) continue;
          break;
        }
      }
      ++changes;
      EXPECT_FALSE(shape.Matches(Payload(version, other))) << "version " << version << " round " << round;
    }
  }
  EXPECT_GT(changes, 300);
}

// Every single byte of random records changed in turn: a record that still
// matches decodes (its timestamp aside, which a reader checks apart) to
// the same layout, values at the same offsets; a changed byte outside the
// timestamp and the values never matches.
TEST(ResultShapeTest, AMatchDecodesToTheSameLayoutWhateverByteChanged) {
  std::mt19937_64 rng(20261131);
  int matched = 0, refused = 0;
  for (int version : {kLogVersion2, kLogVersion3}) {
    for (int round = 0; round < 60; ++round) {
      const Result r = RandomResult(rng);
      const std::vector<uint8_t> first = Payload(version, r);
      const DecodedResult d = Decoded(version, first);
      const ResultShape shape(version, first, d);
      const std::string layout = Layout(d, first);
      const size_t stamp = version == kLogVersion2 ? 8 : 12;
      for (size_t at = stamp; at < first.size(); ++at) {
        std::vector<uint8_t> changed = first;
        changed[at] ^= static_cast<uint8_t>(1 + rng() % 255);
        if (!shape.Matches(changed)) {
          ++refused;
          continue;
        }
        ++matched;
        absl::StatusOr<DecodedResult> again = DecodeResult(version, changed, 0);
        ASSERT_TRUE(again.ok()) << again.status() << " byte " << at;
        EXPECT_EQ(Layout(*again, changed), layout) << "byte " << at;
      }
    }
  }
  EXPECT_GT(matched, 100);
  EXPECT_GT(refused, 100);
}

TEST(ResultShapeTest, ALengthOrAPartialWordNeverMatches) {
  Result r;
  r.timestamp = {1'700'000'000, 0};
  r.sets.push_back({PmidBuild(70, 1, 0), kTypeU64, 0, {ResultValue{.inst = 1, .u64 = 5}}});
  const std::vector<uint8_t> first = Payload(kLogVersion3, r);
  const ResultShape shape(kLogVersion3, first, Decoded(kLogVersion3, first));
  std::vector<uint8_t> longer = first;
  longer.push_back(0);
  EXPECT_FALSE(shape.Matches(longer));
  EXPECT_FALSE(shape.Matches(std::span<const uint8_t>(first).first(first.size() - 4)));
  EXPECT_TRUE(shape.Matches(first));
}

}  // namespace
}  // namespace mmvlog::format

// Tests of //format/archive:result_template: a template with new values and a new
// timestamp stored through its slots must be byte for byte what
// EncodeResult makes of the same result, for every fixed-size type and
// strings, both versions, error and empty sets, and random layouts.
#include "format/archive/result_template.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "format/archive/archive_format.h"
#include "format/archive/archive_result.h"
#include "format/endian.h"
#include "tests/format/archive_test_util.h"

namespace mmvlog::format {
namespace {

constexpr int32_t kFixedTypes[] = {kType32, kTypeU32, kType64, kTypeU64, kTypeFloat, kTypeDouble};

// Stores `v`'s value into the slot as a recorder would.
void Store(const ValueSlots& s, size_t k, const ResultValue& v, uint8_t* rec) {
  uint8_t* p = rec + s.first + k * s.stride;
  switch (s.type) {
    case kType32: StoreBig32(p, static_cast<uint32_t>(static_cast<int32_t>(v.i64))); break;
    case kTypeU32: StoreBig32(p, static_cast<uint32_t>(v.u64)); break;
    case kType64: StoreBig64(p, static_cast<uint64_t>(v.i64)); break;
    case kTypeU64: StoreBig64(p, v.u64); break;
    case kTypeFloat: StoreBig32(p, std::bit_cast<uint32_t>(static_cast<float>(v.f64))); break;
    case kTypeDouble: StoreBig64(p, std::bit_cast<uint64_t>(v.f64)); break;
  }
}

using testing::RandomFixedValue;

Result RandomResult(std::mt19937_64& rng) {
  Result r;
  r.timestamp = {1'700'000'000 + static_cast<int64_t>(rng() % 1000), static_cast<uint32_t>(rng() % 1'000'000'000)};
  const size_t sets = rng() % 12;
  for (size_t i = 0; i < sets; ++i) {
    ValueSet s;
    s.pmid = PmidBuild(70, 1, static_cast<uint32_t>(i));
    s.type = kFixedTypes[rng() % 6];
    const uint64_t shape = rng() % 8;
    if (shape == 0) {
      s.error = -12357;  // an error set
    } else if (shape != 1) {  // shape 1: no values
      const size_t n = rng() % 20 + 1;
      for (size_t k = 0; k < n; ++k) {
        ResultValue v;
        v.inst = n == 1 && rng() % 2 ? kInNull : static_cast<int32_t>(k * 3);
        RandomFixedValue(rng, s.type, &v);
        s.values.push_back(v);
      }
    }
    r.sets.push_back(s);
  }
  return r;
}

TEST(ResultTemplateTest, NewValuesThroughSlotsEqualEncodeResult) {
  std::mt19937_64 rng(20261122);
  for (int version : {kLogVersion2, kLogVersion3}) {
    for (int round = 0; round < 500; ++round) {
      Result r = RandomResult(rng);
      std::optional<ResultTemplate> t = ResultTemplate::Make(version, r);
      ASSERT_TRUE(t.has_value());
      ASSERT_EQ(t->sets().size(), r.sets.size());
      // Three samples: new values and timestamps each time.
      for (int sample = 0; sample < 3; ++sample) {
        r.timestamp.sec += 1;
        r.timestamp.nsec = static_cast<uint32_t>(rng() % 1'000'000'000);
        t->SetTimestamp(r.timestamp);
        size_t values = 0;
        for (size_t i = 0; i < r.sets.size(); ++i) {
          const ValueSlots& s = t->sets()[i];
          ASSERT_EQ(s.count, r.sets[i].error == 0 ? r.sets[i].values.size() : 0);
          ASSERT_EQ(s.type, r.sets[i].type);
          for (size_t k = 0; k < s.count; ++k) {
            RandomFixedValue(rng, s.type, &r.sets[i].values[k]);
            Store(s, k, r.sets[i].values[k], t->data());
          }
          values += s.count;
        }
        EXPECT_EQ(t->values(), values);
        std::vector<uint8_t> want;
        EncodeResult(version, r, &want);
        ASSERT_EQ(std::vector<uint8_t>(t->record().begin(), t->record().end()), want)
            << "version " << version << " round " << round << " sample " << sample;
      }
    }
  }
}

// Strings of random lengths (0 to 20 bytes, so the padded block size
// sometimes stays and sometimes not) stored into a template of strings and
// numbers: whatever StoreString accepts gives EncodeResult's bytes; what it
// refuses leaves the record as it was, and a new template takes it.
TEST(ResultTemplateTest, StringsThatKeepTheirPaddedSizeAreStoredInPlace) {
  std::mt19937_64 rng(20261126);
  int stored = 0, refused = 0;
  for (int version : {kLogVersion2, kLogVersion3}) {
    for (int round = 0; round < 200; ++round) {
      Result r;
      r.timestamp = {1'700'000'000, 0};
      const size_t sets = rng() % 5 + 1;
      for (size_t i = 0; i < sets; ++i) {
        ValueSet s;
        s.pmid = PmidBuild(70, 2, static_cast<uint32_t>(i));
        s.type = rng() % 2 ? kTypeString : kTypeU64;
        const size_t n = rng() % 4 + 1;
        for (size_t k = 0; k < n; ++k) {
          ResultValue v;
          v.inst = static_cast<int32_t>(k);
          if (s.type == kTypeString) {
            v.bytes = std::string(rng() % 21, static_cast<char>('a' + rng() % 26));
          } else {
            v.u64 = rng();
          }
          s.values.push_back(v);
        }
        r.sets.push_back(s);
      }
      std::optional<ResultTemplate> t = ResultTemplate::Make(version, r);
      ASSERT_TRUE(t.has_value());
      for (int sample = 0; sample < 4; ++sample) {
        r.timestamp.sec += 1;
        t->SetTimestamp(r.timestamp);
        bool relayout = false;
        for (size_t i = 0; i < r.sets.size(); ++i) {
          const ValueSlots& slots = t->sets()[i];
          for (size_t k = 0; k < slots.count; ++k) {
            ResultValue& v = r.sets[i].values[k];
            if (slots.type != kTypeString) {
              v.u64 = rng();
              Store(slots, k, v, t->data());
              continue;
            }
            const std::vector<uint8_t> before(t->record().begin(), t->record().end());
            v.bytes = std::string(rng() % 21, static_cast<char>('a' + rng() % 26));
            if (t->StoreString(i, k, {reinterpret_cast<const uint8_t*>(v.bytes.data()),
                                      v.bytes.size()})) {
              ++stored;
            } else {
              ++refused;
              relayout = true;
              EXPECT_EQ(std::vector<uint8_t>(t->record().begin(), t->record().end()), before);
            }
          }
        }
        if (relayout) {
          t = ResultTemplate::Make(version, r);
          ASSERT_TRUE(t.has_value());
        }
        EXPECT_EQ(t->values(), [&] {
          size_t n = 0;
          for (const ValueSet& s : r.sets) n += s.values.size();
          return n;
        }());
        std::vector<uint8_t> want;
        EncodeResult(version, r, &want);
        ASSERT_EQ(std::vector<uint8_t>(t->record().begin(), t->record().end()), want)
            << "version " << version << " round " << round << " sample " << sample;
      }
    }
  }
  // Both paths were taken.
  EXPECT_GT(stored, 100);
  EXPECT_GT(refused, 100);
}

TEST(ResultTemplateTest, StringSetWithoutSizesHasNoTemplate) {
  const int32_t inst[] = {1, 2};
  const uint32_t sizes[] = {4};
  SetLayout s{1, kTypeString, 0, inst, {}};
  EXPECT_FALSE(ResultTemplate::FromLayout(kLogVersion3, {}, {&s, 1}).has_value());
  s.sizes = sizes;  // one size for two values
  EXPECT_FALSE(ResultTemplate::FromLayout(kLogVersion3, {}, {&s, 1}).has_value());
}

TEST(ResultTemplateTest, OtherVariableSizeValuesHaveNoTemplate) {
  for (int32_t type : {kTypeAggregate}) {
    Result r;
    ValueSet s;
    s.pmid = 1;
    s.type = type;
    ResultValue v;
    v.bytes = "abc";
    s.values.push_back(v);
    r.sets.push_back(s);
    EXPECT_FALSE(ResultTemplate::Make(kLogVersion2, r).has_value()) << type;
    // The same type with an error instead of values has a fixed layout.
    r.sets[0].values.clear();
    r.sets[0].error = -12357;
    EXPECT_TRUE(ResultTemplate::Make(kLogVersion2, r).has_value()) << type;
  }
}

TEST(ResultTemplateTest, MarkRecordIsATemplateWithNoSlots) {
  Result mark;
  mark.timestamp = {1'700'000'000, 5'000};
  std::optional<ResultTemplate> t = ResultTemplate::Make(kLogVersion3, mark);
  ASSERT_TRUE(t.has_value());
  EXPECT_TRUE(t->sets().empty());
  EXPECT_EQ(t->record().size(), kMarkRecordV3);
}

}  // namespace
}  // namespace mmvlog::format

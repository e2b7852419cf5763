// DeriveEvaluator over made-up fetches: pairing by instance, a singular
// operand with every instance, types as libpcp computes in them, scales,
// delta() and rate() across fetches (and a Reset), ?: per instance, the
// functions over instances and instance filters. Values beside pmval's and
// pmrep's on real archives: tests/pcp:derive_values_test.
#include "format/derive/derive_eval.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "format/derive/derive_desc.h"
#include "format/derive/derive_parser.h"

namespace mmvlog::format {
namespace {

constexpr uint32_t kDisk = (60u << 22) | 1;

// Metrics: c (U64 counter, count, per disk), i (U32 instant, Kbyte, per
// disk), t (U64 counter, millisec, singular), k (U32 instant, byte), n (U32
// instant, no units).
std::optional<DeriveDesc> Lookup(const std::string& name) {
  PmUnits count;
  count.dim_count = 1;
  PmUnits kbyte;
  kbyte.dim_space = 1;
  kbyte.scale_space = kSpaceKbyte;
  PmUnits byte;
  byte.dim_space = 1;
  PmUnits msec;
  msec.dim_time = 1;
  msec.scale_time = kTimeMsec;
  if (name == "c") return DeriveDesc{kTypeU64, kSemCounter, count, kDisk};
  if (name == "i") return DeriveDesc{kTypeU32, kSemInstant, kbyte, kDisk};
  if (name == "t") return DeriveDesc{kTypeU64, kSemCounter, msec, kIndomNull};
  if (name == "k") return DeriveDesc{kTypeU32, kSemInstant, byte, kIndomNull};
  if (name == "n") return DeriveDesc{kTypeU32, kSemInstant, PmUnits{}, kIndomNull};
  if (name == "s") return DeriveDesc{kType32, kSemInstant, count, kDisk};
  if (name == "u") return DeriveDesc{kTypeU32, kSemCounter, count, kIndomNull};
  if (name == "sc") return DeriveDesc{kType32, kSemCounter, count, kIndomNull};
  if (name == "g") return DeriveDesc{kType64, kSemCounter, count, kDisk};
  if (name == "ms") return DeriveDesc{kTypeU32, kSemCounter, msec, kDisk};
  return std::nullopt;
}

class Evaluated {
 public:
  explicit Evaluated(const std::string& expr) : parse_(ParseDerived(expr)) {
    EXPECT_FALSE(parse_.error.has_value()) << expr;
    check_ = CheckDerived(*parse_.tree, Lookup);
    EXPECT_NE(check_.bound, nullptr) << expr << ": " << check_.error;
    eval_ = std::make_unique<DeriveEvaluator>(*check_.bound);
  }
  // Values at time `seconds` with these metric values.
  // `failed`: metrics whose sets are PCP errors at this fetch.
  std::map<int32_t, long double> At(double seconds,
                                    const std::map<std::string, DeriveValues>& metrics,
                                    const std::set<std::string>& failed = {}) {
    DeriveFetch f;
    if (!failed.empty()) {
      f.failed = [&](const std::string& name) { return failed.count(name) > 0; };
    }
    f.ns = std::llround(seconds * 1e9);
    f.rate_wraps_backwards = wraps_;
    f.metric = [&](const std::string& name) -> const DeriveValues* {
      auto it = metrics.find(name);
      return it != metrics.end() ? &it->second : nullptr;
    };
    f.instance = [](uint32_t, int32_t inst) { return "sd" + std::string(1, 'a' + inst) + " disk"; };
    // As replay gives them (archiver/replay/derived_columns.cc): integer
    // metrics' values as their bits too.
    std::map<std::string, DeriveIntegers> ints;
    std::map<std::string, std::vector<uint64_t>> bits;
    std::map<std::string, std::vector<int32_t>> insts;
    if (integers_) {
      for (const auto& [name, values] : metrics) {
        const std::optional<DeriveDesc> d = Lookup(name);
        if (!d.has_value() || d->type == kTypeFloat || d->type == kTypeDouble) continue;
        DeriveIntegers& i = ints[name];
        i.is_signed = d->type == kType32 || d->type == kType64;
        std::vector<uint64_t>& b = bits[name];
        std::vector<int32_t>& n = insts[name];
        for (const DeriveValue& v : values) {
          b.push_back(i.is_signed ? static_cast<uint64_t>(static_cast<int64_t>(v.v))
                                  : static_cast<uint64_t>(v.v));
          n.push_back(v.inst);
        }
        i.bits = b;
        i.insts = n;
      }
      f.integers = [&](const std::string& name) -> const DeriveIntegers* {
        auto it = ints.find(name);
        return it != ints.end() ? &it->second : nullptr;
      };
    }
    std::map<int32_t, long double> out;
    for (const DeriveValue& v : eval_->Evaluate(f)) out[v.inst] = v.v;
    return out;
  }
  // rate() of a counter that went down as PCP before 6.2.1.
  Evaluated& Wrapping() {
    wraps_ = true;
    return *this;
  }
  // Gives integer metrics' values as integers too (DeriveFetch::integers).
  Evaluated& WithIntegers(bool on = true) {
    integers_ = on;
    return *this;
  }
  DeriveEvaluator& eval() { return *eval_; }
  const DeriveDesc& desc() const { return check_.bound->desc; }

 private:
  bool wraps_ = false;
  DeriveParse parse_;
  DeriveCheck check_;
  std::unique_ptr<DeriveEvaluator> eval_;
  bool integers_ = false;
};

using M = std::map<int32_t, long double>;

TEST(DeriveEvalTest, PairsByInstanceAndBroadcastsSingular) {
  Evaluated e("i + k / 1024 * 0 + i");
  // i has instances 0, 1, 2 now; c only 0 and 2.
  EXPECT_EQ(e.At(1, {{"i", {{0, 10}, {1, 20}, {2, 30}}}, {"k", {{-1, 2048}}}}),
            (M{{0, 20}, {1, 40}, {2, 60}}));
  Evaluated pair("delta(c) + delta(c)");
  pair.At(1, {{"c", {{0, 1}, {2, 5}}}});
  EXPECT_EQ(pair.At(2, {{"c", {{0, 4}, {1, 9}, {2, 6}}}}), (M{{0, 6}, {2, 2}}));
}

TEST(DeriveEvalTest, TypesAsLibpcpComputes) {
  // U32 - U32 wraps; the quotient is DOUBLE; x / y is 0 when x is 0.
  Evaluated wrap("n - 3");
  EXPECT_EQ(wrap.desc().type, kTypeU32);
  EXPECT_EQ(wrap.At(1, {{"n", {{-1, 1}}}}), (M{{-1, 4294967294.0L}}));
  Evaluated zero("k / (k - k)");
  EXPECT_EQ(zero.At(1, {{"k", {{-1, 0}}}}), (M{{-1, 0}}));
  Evaluated neg("-n");
  EXPECT_EQ(neg.desc().type, kType32);
  EXPECT_EQ(neg.At(1, {{"n", {{-1, 5}}}}), (M{{-1, -5}}));
}

TEST(DeriveEvalTest, IntegerArithmeticInTheType) {
  // U64 arithmetic wraps in 64 bits exactly, as libpcp's: 0 - 1203 wraps to
  // 2^64 - 1203, and adding 21126284 wraps back to 21125081 (long double
  // would round 2^64 + 21125081 to an even number first).
  Evaluated sum("c - c - c + c + c");
  const long double two64 = 18446744073709551616.0L;
  EXPECT_EQ(sum.At(1, {{"c", {{0, 21126284}}}}), (M{{0, 21126284}}));
  Evaluated back("(c - (c + c + c)) + c * 3");  // out below 0 and back
  EXPECT_EQ(back.At(1, {{"c", {{0, 21126283}}}}), (M{{0, 21126283}}));  // odd: 2^64 + c
  Evaluated pcp("c + (c * 0 - c)");  // 20201109-b's case: c + (0 - 1203)
  EXPECT_EQ(pcp.At(1, {{"c", {{0, 1203}}}}), (M{{0, 0}}));
  Evaluated wrap("c - (c + c)");  // 0 - c wraps, in U64
  EXPECT_EQ(wrap.At(1, {{"c", {{0, 1203}}}}), (M{{0, two64 - 1203}}));
  // Comparisons signed for signed types; unsigned for unsigned ones, so a
  // 32 against a constant (U32, as libpcp types it) compares unsigned.
  EXPECT_EQ(Evaluated("s < -s").At(1, {{"s", {{0, -5}, {1, 5}}}}), (M{{0, 1}, {1, 0}}));
  EXPECT_EQ(Evaluated("s < 0").At(1, {{"s", {{0, -5}, {1, 5}}}}), (M{{0, 0}, {1, 0}}));
  EXPECT_EQ(Evaluated("s - s - s").At(1, {{"s", {{0, -2147483648.0L}}}}),
            (M{{0, -2147483648.0L}}));  // wraps in 32 bits
}

TEST(DeriveEvalTest, DeltaAndRateInTheOperandsType) {
  // rate() of an instant U32 that went down: the difference wraps in 32
  // bits, as libpcp's (2^32 - 7 a second), where a counter's has no value.
  Evaluated down("rate(n)");
  EXPECT_EQ(down.At(1, {{"n", {{-1, 107}}}}), M{});
  EXPECT_EQ(down.At(2, {{"n", {{-1, 100}}}}), (M{{-1, 4294967289.0L}}));
  // delta() of a U64: the two as doubles, then their difference (libpcp's
  // order), not the exact difference rounded once.
  Evaluated big("delta(c)");
  const long double a = 9007199254740993.0L;  // 2^53 + 1: no double holds it
  EXPECT_EQ(big.At(1, {{"c", {{0, a}}}}), M{});
  EXPECT_EQ(big.At(2, {{"c", {{0, a + 2}}}}), (M{{0, 4}}));  // 2^53+4 - 2^53 (ties to even)
}

TEST(DeriveEvalTest, CastToTypeAsC) {
  // Integers of the type stay; anything else truncates and wraps as C's
  // conversions do (and for the values at the edges of each range).
  const long double two63 = 9223372036854775808.0L;
  const long double two64 = 18446744073709551616.0L;
  EXPECT_EQ(CastToType(kTypeU64, two64 - 1), two64 - 1);
  EXPECT_EQ(CastToType(kTypeU64, two63), two63);
  EXPECT_EQ(CastToType(kTypeU64, 2.75L), 2);
  EXPECT_EQ(CastToType(kTypeU64, -1), two64 - 1);
  EXPECT_EQ(CastToType(kTypeU64, two64 + 4096), 4096);
  EXPECT_EQ(CastToType(kType64, -two63), -two63);
  EXPECT_EQ(CastToType(kType64, two63), -two63);
  EXPECT_EQ(CastToType(kType64, -2.75L), -2);
  EXPECT_EQ(CastToType(kType64, -two63 + 0.5L), -two63 + 1);
  EXPECT_EQ(CastToType(kTypeU32, 4294967295.0L), 4294967295.0L);
  EXPECT_EQ(CastToType(kTypeU32, 4294967296.0L + 3), 3);
  EXPECT_EQ(CastToType(kTypeU32, 7.5L), 7);
  EXPECT_EQ(CastToType(kTypeU32, -1), 4294967295.0L);
  EXPECT_EQ(CastToType(kType32, 2147483648.0L), -2147483648.0L);
  EXPECT_EQ(CastToType(kType32, -2147483648.0L), -2147483648.0L);
  EXPECT_EQ(CastToType(kType32, -7.5L), -7);
  EXPECT_EQ(CastToType(kType32, 0.25L), 0);
  EXPECT_EQ(CastToType(kTypeDouble, 0.1L), 0.1);
  EXPECT_EQ(CastToType(kTypeFloat, 0.1L), 0.1f);
}

TEST(DeriveEvalTest, ScalesAreConverted) {
  // Kbyte + byte: the byte operand divided by 1024, the sum in Kbyte.
  Evaluated e("i + k");
  EXPECT_EQ(e.desc().units.scale_space, kSpaceKbyte);
  EXPECT_EQ(e.At(1, {{"i", {{0, 1}}}, {"k", {{-1, 2048}}}}), (M{{0, 3}}));
}

TEST(DeriveEvalTest, DeltaAndRateAcrossFetches) {
  Evaluated rate("rate(c)");
  EXPECT_EQ(rate.At(10, {{"c", {{0, 100}, {1, 50}}}}), M{});
  EXPECT_EQ(rate.At(12, {{"c", {{0, 110}, {1, 40}}}}), (M{{0, 5}}));  // 1 went down: none
  rate.eval().Reset();
  EXPECT_EQ(rate.At(14, {{"c", {{0, 120}}}}), M{});
  // A millisecond counter's rate: seconds per second.
  Evaluated busy("rate(t)");
  busy.At(0, {{"t", {{-1, 0}}}});
  EXPECT_EQ(busy.At(2, {{"t", {{-1, 1000}}}}), (M{{-1, 0.5}}));
  EXPECT_EQ(busy.desc().units.dim_time, 0);
  // The seconds between as libpcp reckons them, rounded once (PCP QA's
  // omen.client: 4 s and 999806000 ns; in double, 4.9998059999999995 s
  // and a rate one bit from libpcp's).
  Evaluated apart("rate(t)");
  apart.At(0.031025, {{"t", {{-1, 25515930}}}});
  EXPECT_EQ(apart.At(5.030831, {{"t", {{-1, 25516080}}}}), (M{{-1, 150 / 4.999806 * 0.001}}));
}

// rate() of a COUNTER that went down: PCP 6.2.1 and later give no value
// (but do not check a signed 32-bit counter); before, the difference in the
// counter's type, so a U32 wraps (PCP QA's pmiostat_mark after its <mark>:
// pmrep 6.0.3 shows disk.dev.avg_qlen 53812.985 where 7.2 shows none).
TEST(DeriveEvalTest, RateOfACounterThatWentDownByVersion) {
  Evaluated now("rate(u)");
  now.At(1, {{"u", {{-1, 100}}}});
  EXPECT_EQ(now.At(2, {{"u", {{-1, 93}}}}), M{});
  Evaluated old("rate(u)");
  old.Wrapping().At(1, {{"u", {{-1, 100}}}});
  EXPECT_EQ(old.At(2, {{"u", {{-1, 93}}}}), (M{{-1, 4294967289.0L}}));
  Evaluated signed32("rate(sc)");
  signed32.At(1, {{"sc", {{-1, 100}}}});
  EXPECT_EQ(signed32.At(2, {{"sc", {{-1, 93}}}}), (M{{-1, -7}}));
  Evaluated big("rate(c)");
  big.Wrapping().At(1, {{"c", {{0, 100}}}});
  EXPECT_EQ(big.At(3, {{"c", {{0, 98}}}}), (M{{0, 18446744073709551616.0L / 2}}));  // (2^64 - 2) / 2 as double
}

// delta() and rate() of an integer metric read from its integers
// (DeriveIntegers with instances: AcrossIntegers) give, value for value,
// what they give from its long doubles: over random fetches with instances
// that come, go and change places, counters that go down, values beside
// 2^53, 2^63 and 2^64, signed ones below 0, and fetches that switch from one
// way to the other.
TEST(DeriveEvalTest, DeltaAndRateFromIntegersAsFromLongDoubles) {
  std::mt19937_64 rng(32);
  const long double two63 = 9223372036854775808.0L;
  auto value = [&](const std::string& metric) -> long double {
    const uint64_t r = rng();
    const long double near[] = {0, 9007199254740992.0L, two63, 2 * two63 - 4096};
    if (metric == "c") {  // U64
      if (r % 3 == 0) return near[r % 4] + static_cast<long double>(rng() % 4096);
      return static_cast<long double>(rng() % 100000);
    }
    if (metric == "g") {  // 64
      if (r % 3 == 0) return (r % 2 ? -two63 : two63 - 4096) + static_cast<long double>(rng() % 4096);
      return static_cast<long double>(static_cast<int64_t>(rng() % 200000) - 100000);
    }
    if (metric == "s") return static_cast<long double>(static_cast<int32_t>(rng()));
    return static_cast<long double>(static_cast<uint32_t>(r % 2 ? rng() : rng() % 1000));
  };
  for (const char* metric : {"c", "g", "i", "s", "u", "sc", "ms", "t"}) {
    for (const char* fn : {"delta", "rate"}) {
      for (bool wraps : {false, true}) {
        const std::string expr = absl::StrCat(fn, "(", metric, ")");
        Evaluated longs(expr), ints(expr);
        if (wraps) {
          longs.Wrapping();
          ints.Wrapping();
        }
        const bool singular = Lookup(metric)->indom == kIndomNull;
        double t = 0;
        for (int fetch = 0; fetch < 60; ++fetch) {
          DeriveValues values;
          const int n = singular ? 1 : static_cast<int>(rng() % 6);
          for (int k = 0; k < n; ++k) values.push_back({singular ? -1 : k, value(metric)});
          if (rng() % 4 == 0) std::shuffle(values.begin(), values.end(), rng);
          if (rng() % 5 == 0 && !values.empty()) values.erase(values.begin());
          t += 0.5 + static_cast<double>(rng() % 1000) / 7;
          ints.WithIntegers(rng() % 6 != 0);  // now and then the long doubles' way
          if (rng() % 25 == 0) {
            longs.eval().Reset();
            ints.eval().Reset();
          }
          const std::map<std::string, DeriveValues> m = {{metric, values}};
          EXPECT_EQ(ints.At(t, m), longs.At(t, m)) << expr << " wraps " << wraps << " fetch "
                                                   << fetch;
        }
      }
    }
  }
}

TEST(DeriveEvalTest, FunctionsOverInstances) {
  const std::map<std::string, DeriveValues> m = {{"i", {{0, 4}, {1, 10}, {2, 1}}}};
  EXPECT_EQ(Evaluated("sum(i)").At(1, m), (M{{-1, 15}}));
  EXPECT_EQ(Evaluated("avg(i)").At(1, m), (M{{-1, 5}}));
  EXPECT_EQ(Evaluated("min(i)").At(1, m), (M{{-1, 1}}));
  EXPECT_EQ(Evaluated("max(i)").At(1, m), (M{{-1, 10}}));
  EXPECT_EQ(Evaluated("count(i)").At(1, m), (M{{-1, 3}}));
  EXPECT_EQ(Evaluated("count(i)").At(1, {}), (M{{-1, 0}}));
  EXPECT_EQ(Evaluated("sum(i)").At(1, {}), (M{{-1, 0}}));  // libpcp's 0
  // Instances by external name (or its first word), and by pattern.
  EXPECT_EQ(Evaluated("i[sdb]").At(1, m), (M{{1, 10}}));
  EXPECT_EQ(Evaluated("matchinst(/sd[ac]/, i)").At(1, m), (M{{0, 4}, {2, 1}}));
  EXPECT_EQ(Evaluated("matchinst(!/sd[ac]/, i)").At(1, m), (M{{1, 10}}));
  // A pattern sees the name up to its first space ("sda", not "sda disk").
  EXPECT_EQ(Evaluated("matchinst(/disk/, i)").At(1, m), M{});
  EXPECT_EQ(Evaluated("matchinst(!/disk/, i)").At(1, m), (M{{0, 4}, {1, 10}, {2, 1}}));
  EXPECT_EQ(Evaluated("matchinst(/^sdb$/, i)").At(1, m), (M{{1, 10}}));
  EXPECT_EQ(Evaluated("scalar(i[sdc])").At(1, m), (M{{-1, 1}}));
}

TEST(DeriveEvalTest, AggregatesOverIntegersAsLibpcpComputesThem) {
  // In the metric's type, as libpcp sums and compares (derive_fetch.c):
  // a U64 sum wraps at 2^64 exactly (in long double, 2^64 + 7 would round
  // to 2^64 + 8 first).
  const long double two63 = 9223372036854775808.0L;
  const std::map<std::string, DeriveValues> c = {{"c", {{0, two63}, {1, two63}, {2, 7}}}};
  EXPECT_EQ(Evaluated("sum(c)").WithIntegers().At(1, c), (M{{-1, 7}}));
  EXPECT_EQ(Evaluated("max(c)").WithIntegers().At(1, c), (M{{-1, two63}}));
  EXPECT_EQ(Evaluated("min(c)").WithIntegers().At(1, c), (M{{-1, 7}}));
  // U32 wraps at 2^32; a 32 compares signed.
  const std::map<std::string, DeriveValues> i = {{"i", {{0, 4294967295.0L}, {1, 2}, {2, 1}}}};
  EXPECT_EQ(Evaluated("sum(i)").WithIntegers().At(1, i), (M{{-1, 2}}));
  EXPECT_EQ(Evaluated("sum(i)").At(1, i), (M{{-1, 2}}));
  const std::map<std::string, DeriveValues> s = {{"s", {{0, -5}, {1, 3}, {2, -7}}}};
  for (bool ints : {false, true}) {
    auto at = [&](const std::string& expr) {
      Evaluated e(expr);
      if (ints) e.WithIntegers();
      return e.At(1, s);
    };
    EXPECT_EQ(at("sum(s)"), (M{{-1, -9}})) << ints;
    EXPECT_EQ(at("min(s)"), (M{{-1, -7}})) << ints;
    EXPECT_EQ(at("max(s)"), (M{{-1, 3}})) << ints;
    EXPECT_EQ(at("avg(s)"), (M{{-1, -3}})) << ints;
    EXPECT_EQ(at("min(s)").size(), 1u) << ints;
    Evaluated none("max(s)");
    if (ints) none.WithIntegers();
    EXPECT_EQ(none.At(1, {{"s", {}}}), M{}) << ints;  // over no value: none
  }
  // Where no sum leaves 64 bits, both ways agree on every aggregate.
  std::mt19937_64 rng(31);
  for (int round = 0; round < 200; ++round) {
    std::map<std::string, DeriveValues> m;
    const int n = 1 + static_cast<int>(rng() % 50);
    for (int k = 0; k < n; ++k) {
      m["c"].push_back({k, static_cast<long double>(rng() >> 8)});
      m["i"].push_back({k, static_cast<long double>(static_cast<uint32_t>(rng()))});
      m["s"].push_back({k, static_cast<long double>(static_cast<int32_t>(rng()))});
    }
    for (const char* metric : {"c", "i", "s"}) {
      for (const char* op : {"sum", "min", "max", "avg"}) {
        const std::string expr = absl::StrCat(op, "(", metric, ")");
        EXPECT_EQ(Evaluated(expr).WithIntegers().At(1, m), Evaluated(expr).At(1, m)) << expr;
      }
    }
  }
}

TEST(DeriveEvalTest, TernaryPerInstance) {
  const std::map<std::string, DeriveValues> m = {{"i", {{0, 4}, {1, 10}, {2, 1}}},
                                                 {"k", {{-1, 7}}}};
  EXPECT_EQ(Evaluated("i > 3 ? i : i * 0").At(1, m), (M{{0, 4}, {1, 10}, {2, 0}}));
  EXPECT_EQ(Evaluated("defined(k) ? k : 0").At(1, m), (M{{-1, 7}}));
  EXPECT_EQ(Evaluated("defined(nosuch) ? nosuch : k").At(1, m), (M{{-1, 7}}));
  EXPECT_EQ(Evaluated("i > 3 ? i : novalue()").At(1, m), (M{{0, 4}, {1, 10}}));
  // novalue() picked before other instances: each picked value under its
  // own instance (libpcp 7.2 keeps the count of values, not their places:
  // garbage in the first slot, the last value lost; mmvlog.1 says so).
  EXPECT_EQ(Evaluated("i < 3 ? novalue() : i").At(1, m), (M{{0, 4}, {1, 10}}));
  EXPECT_EQ(Evaluated("i > 3 ? novalue() : i").At(1, m), (M{{2, 1}}));
  EXPECT_EQ(Evaluated("i < 5 ? novalue() : i").At(1, m), (M{{1, 10}}));
  EXPECT_EQ(Evaluated("i < 5 ? novalue() : i * 2").At(1, m), (M{{1, 20}}));
}

// Metrics that share subtrees (rate(c) under rate(c) and rate(c) * 8, the
// same delta() twice in one tree) evaluated with one DeriveShared give, fetch
// after fetch, what each gives evaluated on its own: instances come and go,
// counters go down, a constant guard skips a branch.
TEST(DeriveEvalTest, SharedSubtreesGiveWhatEachGivesAlone) {
  const std::vector<std::string> exprs = {
      "rate(c)", "rate(c) * 8", "delta(c)", "delta(c) - delta(c)", "delta(c) / delta(i)",
      "sum(c)", "sum(c) + sum(c)", "sum(i) - max(i)", "rate(c) + rate(c)", "delta(i) > 3 ? rate(c) : rate(c) * 2",
      "matchinst(/sd[ab]/, rate(c))", "matchinst(/sd[ab]/, rate(c)) * 2", "instant(c)",
      "defined(c) ? rate(c) : 0", "avg(i) + avg(i)", "max(c) - min(c)", "count(c) * 2",
      "rate(t)", "rate(t) * 1000", "c[sdb] + c", "delta(c[sdb]) + delta(c)"};
  struct One {
    DeriveParse parse;
    DeriveCheck check;
    std::unique_ptr<DeriveEvaluator> alone, together;
  };
  DeriveShared shared;
  std::vector<std::unique_ptr<One>> ones;
  for (const std::string& e : exprs) {
    auto one = std::make_unique<One>();
    one->parse = ParseDerived(e);
    ASSERT_FALSE(one->parse.error.has_value()) << e;
    one->check = CheckDerived(*one->parse.tree, Lookup);
    ASSERT_NE(one->check.bound, nullptr) << e << ": " << one->check.error;
    one->alone = std::make_unique<DeriveEvaluator>(*one->check.bound);
    one->together = std::make_unique<DeriveEvaluator>(*one->check.bound, &shared);
    ones.push_back(std::move(one));
  }
  std::mt19937_64 rng(32);
  std::map<std::string, DeriveValues> m;
  size_t compared = 0;
  for (uint64_t fetch = 1; fetch <= 300; ++fetch) {
    m.clear();
    for (int k = 0; k < 4; ++k) {
      if (rng() % 5 == 0) continue;  // an instance missing at this fetch
      // Mostly rising, sometimes down (a counter reset).
      const long double c = static_cast<long double>(fetch * 100 + k - (rng() % 7 == 0 ? 150 : 0));
      m["c"].push_back({k, c});
      m["i"].push_back({k, static_cast<long double>(rng() % 10)});
    }
    if (rng() % 4 != 0) m["t"].push_back({-1, static_cast<long double>(fetch * 700)});
    DeriveFetch f;
    f.ns = static_cast<int64_t>(fetch) * 1000000000 + static_cast<int64_t>(rng() % 1000);
    f.metric = [&](const std::string& name) -> const DeriveValues* {
      auto it = m.find(name);
      return it != m.end() ? &it->second : nullptr;
    };
    f.instance = [](uint32_t, int32_t inst) { return "sd" + std::string(1, 'a' + inst) + " disk"; };
    DeriveFetch g = f;
    g.serial = fetch;
    for (const auto& one : ones) {
      const DeriveValues& a = one->alone->Evaluate(f);
      std::map<int32_t, long double> want;
      for (const DeriveValue& v : a) want[v.inst] = v.v;
      std::map<int32_t, long double> got;
      for (const DeriveValue& v : one->together->Evaluate(g)) got[v.inst] = v.v;
      EXPECT_EQ(got, want) << one->parse.tree->text << " at fetch " << fetch;
      compared += want.size();
    }
  }
  EXPECT_GT(compared, 3000u);
}

// A metric whose set is a PCP error at a fetch, as libpcp's eval_expr
// takes it: the expression has no value and nothing after the failed
// operand is evaluated (a delta() there keeps the fetch before), but count()
// of it is 0. Shared subtrees carry the failure to every evaluator.
TEST(DeriveEvalTest, FailedOperandsAsLibpcpEvaluatesThem) {
  for (bool integers : {false, true}) {
    Evaluated sum("sum(c)");
    sum.WithIntegers(integers);
    EXPECT_EQ(sum.At(0, {{"c", {{0, 1}}}}, {"c"}), M{});
    EXPECT_EQ(sum.At(1, {{"c", {{0, 1}}}}), (M{{-1, 1}}));
    Evaluated count("count(c) * k");
    count.WithIntegers(integers);
    EXPECT_EQ(count.At(0, {{"k", {{-1, 5}}}}, {"c"}), (M{{-1, 0}}));
    EXPECT_EQ(count.At(1, {{"k", {{-1, 5}}}}, {"k"}), M{});
    // delta() keeps the fetch before a failed one.
    Evaluated delta("delta(t)");
    delta.WithIntegers(integers);
    delta.At(0, {{"t", {{-1, 100}}}});
    EXPECT_EQ(delta.At(1, {{"t", {{-1, 200}}}}, {"t"}), M{});
    EXPECT_EQ(delta.At(2, {{"t", {{-1, 130}}}}), (M{{-1, 30}}));
    // The left operand first: after it fails the right is not evaluated.
    Evaluated right("k * delta(t)");
    Evaluated left("delta(t) * k");
    for (Evaluated* e : {&right, &left}) {
      e->WithIntegers(integers);
      e->At(0, {{"k", {{-1, 1}}}, {"t", {{-1, 100}}}});
      EXPECT_EQ(e->At(1, {{"t", {{-1, 200}}}}, {"k"}), M{});
    }
    EXPECT_EQ(right.At(2, {{"k", {{-1, 1}}}, {"t", {{-1, 300}}}}), (M{{-1, 200}}));
    EXPECT_EQ(left.At(2, {{"k", {{-1, 1}}}, {"t", {{-1, 300}}}}), (M{{-1, 100}}));
  }
  // sum(c) shared: the evaluator that reads it computed by the other
  // fails too, so its delta() keeps the fetch before.
  DeriveShared shared;
  DeriveParse pa = ParseDerived("sum(c) * 2");
  DeriveParse pb = ParseDerived("delta(sum(c))");
  DeriveCheck ca = CheckDerived(*pa.tree, Lookup);
  DeriveCheck cb = CheckDerived(*pb.tree, Lookup);
  ASSERT_NE(ca.bound, nullptr);
  ASSERT_NE(cb.bound, nullptr) << cb.error;
  DeriveEvaluator a(*ca.bound, &shared);
  DeriveEvaluator b(*cb.bound, &shared);
  const long double sums[] = {10, 20, 40};
  for (int fetch = 0; fetch < 3; ++fetch) {
    const std::map<std::string, DeriveValues> m = {{"c", {{0, sums[fetch]}}}};
    DeriveFetch f;
    f.ns = int64_t{fetch} * 1000000000;
    f.serial = static_cast<uint64_t>(fetch) + 1;
    f.metric = [&](const std::string& name) -> const DeriveValues* {
      auto it = m.find(name);
      return it != m.end() ? &it->second : nullptr;
    };
    f.failed = [&](const std::string& name) { return fetch == 1 && name == "c"; };
    const DeriveValues& va = a.Evaluate(f);
    EXPECT_EQ(va.empty(), fetch == 1) << fetch;
    const DeriveValues& vb = b.Evaluate(f);
    if (fetch == 2) {
      ASSERT_EQ(vb.size(), 1u);
      EXPECT_EQ(vb[0].v, 30);  // 40 - 10: fetch 1 failed
    } else {
      EXPECT_TRUE(vb.empty()) << fetch;
    }
  }
}

// The bits of an integer value as C's conversion gives them, by either
// path (through a double below 2^53, the significand above).
TEST(DeriveEvalTest, IntegerBitsAsCConverts) {
  std::mt19937_64 rng(33);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t u = rng() >> (rng() % 64);
    const long double lu = static_cast<long double>(u);
    EXPECT_EQ(DeriveIntegerBits(lu, false), u) << u;
    const int64_t s = static_cast<int64_t>(rng()) >> (rng() % 64);
    const long double ls = static_cast<long double>(s);
    EXPECT_EQ(DeriveIntegerBits(ls, true), static_cast<uint64_t>(s)) << s;
  }
  EXPECT_EQ(DeriveIntegerBits(18446744073709551615.0L, false), ~uint64_t{0});
  EXPECT_EQ(DeriveIntegerBits(-9223372036854775808.0L, true), uint64_t{1} << 63);
  EXPECT_EQ(DeriveIntegerBits(9007199254740993.0L, false), 9007199254740993u);
  EXPECT_EQ(DeriveIntegerBits(-9007199254740993.0L, true),
            static_cast<uint64_t>(int64_t{-9007199254740993}));
  EXPECT_EQ(DeriveIntegerBits(2.75L, false), 2u);  // not an integer: truncated
  EXPECT_EQ(DeriveIntegerBits(-2.75L, true), static_cast<uint64_t>(int64_t{-2}));
}

}  // namespace
}  // namespace mmvlog::format

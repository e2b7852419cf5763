// format/size_spec: pmlogger's -s/-v sizes and plain byte sizes, as tables.
#include "format/text/size_spec.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/time/time.h"

namespace mmvlog::format {
namespace {

using ::testing::HasSubstr;

TEST(EndSizeTest, Table) {
  constexpr uint64_t K = 1024, M = K * K, G = M * K;
  struct Case {
    const char* text;
    EndSize::Kind kind;
    uint64_t number;          // samples or bytes
    absl::Duration duration;  // kDuration
    const char* error;        // nullptr when ok
  } cases[] = {
      // pmlogger(1)'s own examples.
      {"100", EndSize::kSamples, 100, {}, nullptr},
      {"100bytes", EndSize::kBytes, 100, {}, nullptr},
      {"100K", EndSize::kBytes, 100 * K, {}, nullptr},
      {"100Mb", EndSize::kBytes, 100 * M, {}, nullptr},
      {"10Gbyte", EndSize::kBytes, 10 * G, {}, nullptr},
      {"10mins", EndSize::kDuration, 0, absl::Minutes(10), nullptr},
      {"1.5hours", EndSize::kDuration, 0, absl::Minutes(90), nullptr},
      // More spellings.
      {"100b", EndSize::kBytes, 100, {}, nullptr},
      {"1byte", EndSize::kBytes, 1, {}, nullptr},
      {"2KiB", EndSize::kBytes, 2 * K, {}, nullptr},
      {"2kilobytes", EndSize::kBytes, 2 * K, {}, nullptr},
      {"3mebibyte", EndSize::kBytes, 3 * M, {}, nullptr},
      {"1GIGABYTES", EndSize::kBytes, G, {}, nullptr},
      {"10m", EndSize::kBytes, 10 * M, {}, nullptr},  // as pmlogger: 10m is 10 MiB
      {"10min", EndSize::kDuration, 0, absl::Minutes(10), nullptr},
      {"30sec", EndSize::kDuration, 0, absl::Seconds(30), nullptr},
      {"0.5sec", EndSize::kDuration, 0, absl::Milliseconds(500), nullptr},
      {"1h30m", EndSize::kDuration, 0, absl::Minutes(90), nullptr},
      // Errors.
      {"0", EndSize::kSamples, 0, {}, "must be positive"},
      {"0K", EndSize::kBytes, 0, {}, "must be positive"},
      {"", EndSize::kSamples, 0, {}, "bad size ''"},
      {"lots", EndSize::kSamples, 0, {}, "bad size 'lots'"},
      {"-5", EndSize::kSamples, 0, {}, "bad size '-5'"},
      {"10 parsecs", EndSize::kSamples, 0, {}, "bad size '10 parsecs'"},
      {"99999999999G", EndSize::kBytes, 0, {}, "too large"},
      {"99999999999999999999", EndSize::kSamples, 0, {}, "bad size"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<EndSize> got = ParseEndSize(c.text);
    if (c.error != nullptr) {
      ASSERT_FALSE(got.ok()) << c.text;
      EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(got.status().message()), HasSubstr(c.error)) << c.text;
      continue;
    }
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.status();
    EXPECT_EQ(got->kind, c.kind) << c.text;
    if (c.kind == EndSize::kSamples) EXPECT_EQ(got->samples, c.number) << c.text;
    if (c.kind == EndSize::kBytes) EXPECT_EQ(got->bytes, c.number) << c.text;
    if (c.kind == EndSize::kDuration) EXPECT_EQ(got->duration, c.duration) << c.text;
  }
}

TEST(ByteSizeTest, Table) {
  struct Case {
    const char* text;
    uint64_t bytes;      // 0: an error
    const char* error;
  } cases[] = {
      {"100M", 100ull << 20, nullptr}, {"2G", 2ull << 30, nullptr},
      {"512K", 512ull << 10, nullptr}, {"10Gbyte", 10ull << 30, nullptr},
      {"4096", 4096, nullptr},         {"7b", 7, nullptr},
      {"0", 0, "must be positive"},    {"10min", 0, "bad size '10min'"},
      {"M", 0, "bad size 'M'"},        {"9999999999G", 0, "too large"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<uint64_t> got = ParseByteSize(c.text);
    if (c.error != nullptr) {
      ASSERT_FALSE(got.ok()) << c.text;
      EXPECT_THAT(std::string(got.status().message()), HasSubstr(c.error)) << c.text;
    } else {
      ASSERT_TRUE(got.ok()) << c.text << ": " << got.status();
      EXPECT_EQ(*got, c.bytes) << c.text;
    }
  }
}

}  // namespace
}  // namespace mmvlog::format

// format/pcp_interval: PCP's interval syntax (pmParseInterval(3)), as a table.
#include "format/text/pcp_interval.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/time/time.h"

namespace mmvlog::format {
namespace {

using ::testing::HasSubstr;

TEST(PcpIntervalTest, Table) {
  const absl::Duration ms = absl::Milliseconds(1), s = absl::Seconds(1), min = absl::Minutes(1);
  struct Case {
    const char* text;
    absl::Duration want;   // when ok
    const char* error;     // a substring of the message, or nullptr when ok
  } cases[] = {
      {"10sec", 10 * s, nullptr},
      {"10 sec", 10 * s, nullptr},
      {"10secs", 10 * s, nullptr},
      {"10seconds", 10 * s, nullptr},
      {"1.5 min", 90 * s, nullptr},
      {"1.5min", 90 * s, nullptr},
      {"250msec", 250 * ms, nullptr},
      {"250ms", 250 * ms, nullptr},           // milliseconds, unlike libpcp
      {"250 milliseconds", 250 * ms, nullptr},
      {"2h30m", 150 * min, nullptr},
      {"1min 30sec", 90 * s, nullptr},
      {"1hr", 60 * min, nullptr},
      {"2 hours", 120 * min, nullptr},
      {"1d", absl::Hours(24), nullptr},
      {"2days", absl::Hours(48), nullptr},
      {"5", 5 * s, nullptr},
      {"0.25", 250 * ms, nullptr},
      {".5", 500 * ms, nullptr},
      {"100usec", absl::Microseconds(100), nullptr},
      {"7nsec", absl::Nanoseconds(7), nullptr},
      {"3 MIN", 3 * min, nullptr},
      {"  10sec  ", 10 * s, nullptr},
      {"10 parsecs", {}, "unexpected 'parsecs' at column 4"},
      {"10parsecs", {}, "unexpected 'parsecs' at column 3"},
      {"", {}, "empty interval"},
      {"   ", {}, "empty interval"},
      {"sec", {}, "unexpected 'sec' at column 1"},
      {"-5sec", {}, "unexpected '-5sec' at column 1"},
      {"1.2.3sec", {}, "unexpected '1.2.3sec'"},
      {"0", {}, "must be positive"},
      {"0sec 0min", {}, "must be positive"},
      {"1e3", {}, "unexpected 'e'"},
      {"10 sec 5", 15 * s, nullptr},
      {"99999999999 days", {}, "too long"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<absl::Duration> got = ParsePcpInterval(c.text);
    if (c.error == nullptr) {
      ASSERT_TRUE(got.ok()) << c.text << ": " << got.status();
      EXPECT_EQ(*got, c.want) << c.text;
    } else {
      ASSERT_FALSE(got.ok()) << c.text << " gave " << *got;
      EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
      EXPECT_THAT(std::string(got.status().message()), HasSubstr(c.error)) << c.text;
      // The message names what was typed, in one line.
      EXPECT_THAT(std::string(got.status().message()), HasSubstr(std::string("'") + c.text))
          << c.text;
      EXPECT_EQ(std::string(got.status().message()).find('\n'), std::string::npos);
    }
  }
  // Zero is an interval where pmlogger allows one (every 0 sec: once).
  EXPECT_EQ(*ParsePcpIntervalAllowZero("0"), absl::ZeroDuration());
  EXPECT_EQ(*ParsePcpIntervalAllowZero("0 sec"), absl::ZeroDuration());
  EXPECT_FALSE(ParsePcpIntervalAllowZero("").ok());
}

TEST(PcpIntervalTest, NeverCrashesOnAnyPrefixOrByte) {
  const std::string text = "1min 30sec 2h30m 250msec .5 1.5 hours \xff\x80 nsec";
  for (size_t n = 0; n <= text.size(); ++n) (void)ParsePcpInterval(text.substr(0, n));
  for (int b = 0; b < 256; ++b) (void)ParsePcpInterval(std::string(1, static_cast<char>(b)) + "5sec");
}

}  // namespace
}  // namespace mmvlog::format

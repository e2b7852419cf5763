// gtest helpers for absl::Status (Abseil 20220623 ships none).
#ifndef MMVLOG_TESTS_TESTING_STATUS_MATCHERS_H_
#define MMVLOG_TESTS_TESTING_STATUS_MATCHERS_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mmvlog::testing {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& s = GetStatus(arg);
  if (!s.ok()) *result_listener << "status: " << s.ToString();
  return s.ok();
}

// StatusIs(code, message_matcher), e.g.
// EXPECT_THAT(ParseMmv(b), StatusIs(absl::StatusCode::kDataLoss,
//                                   HasSubstr("offset 40: ")));
MATCHER_P2(StatusIs, code, message_matcher, "") {
  const absl::Status& s = GetStatus(arg);
  *result_listener << "status: " << s.ToString();
  return s.code() == code &&
         ::testing::Matches(message_matcher)(std::string(s.message()));
}

// StatusIs(code): any message.
MATCHER_P(StatusIs, code, "") {
  const absl::Status& s = GetStatus(arg);
  *result_listener << "status: " << s.ToString();
  return s.code() == code;
}

// IsOkAndHolds(value) for a StatusOr.
MATCHER_P(IsOkAndHolds, value, "") {
  if (!arg.ok()) {
    *result_listener << "status: " << arg.status().ToString();
    return false;
  }
  *result_listener << "value: " << ::testing::PrintToString(*arg);
  return *arg == value;
}

}  // namespace mmvlog::testing

#define ASSERT_OK(expr) ASSERT_THAT((expr), ::mmvlog::testing::IsOk())
#define EXPECT_OK(expr) EXPECT_THAT((expr), ::mmvlog::testing::IsOk())

#endif  // MMVLOG_TESTS_TESTING_STATUS_MATCHERS_H_

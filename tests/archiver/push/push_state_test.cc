// Tests of //archiver/push:push_state: the file's text, a round trip of
// every field, the file saved and loaded, and lines it does not know.
#include "archiver/push/push_state.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "archiver/file/posix_file.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

PushState Sample() {
  PushState s;
  s.archive = "/var/log/pcp/mmvlog/20261126.10.00";
  s.server = "http://pmproxy:44322";
  s.logid = 1804289383;
  s.clean = false;
  s.meta = 10932;
  s.index = 1064;
  s.volume = 2;
  s.data = 52840;
  s.remote_data = 4808;
  s.map.Map(2, 48840, 808);
  s.map.Drop(2, 50000);
  s.gap = true;
  s.gap_from = {1795677201, 967258000};
  s.gap_records = 45;
  s.gap_bytes = 21960;
  s.records = 86;
  s.bytes = 51724;
  s.dropped_records = 45;
  s.dropped_bytes = 21960;
  s.remote_archives = 3;
  return s;
}

void ExpectSame(const PushState& a, const PushState& b) {
  EXPECT_EQ(EncodePushState(a), EncodePushState(b));
  EXPECT_EQ(a.map.segments(), b.map.segments());
  EXPECT_EQ(a.gap_from, b.gap_from);
}

TEST(PushState, TextGolden) {
  EXPECT_EQ(EncodePushState(Sample()),
            "mmvlog-push 1\n"
            "archive /var/log/pcp/mmvlog/20261126.10.00\n"
            "server http://pmproxy:44322\n"
            "logid 1804289383\n"
            "clean 0\n"
            "meta 10932\n"
            "index 1064\n"
            "volume 2 52840\n"
            "remote 4808\n"
            "gap 1 1795677201 967258000 45 21960\n"
            "segment 2 48840 808 0\n"
            "segment 2 50000 0 1\n"
            "totals 86 51724 45 21960 3\n");
}

TEST(PushState, RoundTrip) {
  absl::StatusOr<PushState> back = DecodePushState(EncodePushState(Sample()));
  ASSERT_OK(back.status());
  ExpectSame(*back, Sample());
  PushState fresh;
  fresh.archive = "a";
  back = DecodePushState(EncodePushState(fresh));
  ASSERT_OK(back.status());
  ExpectSame(*back, fresh);
}

TEST(PushState, SavedAndLoaded) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/push.state";
  ASSERT_OK(SavePushState(path, Sample()));
  absl::StatusOr<PushState> back = LoadPushState(path);
  ASSERT_OK(back.status());
  ExpectSame(*back, Sample());
  EXPECT_THAT(LoadPushState(path + ".missing"), StatusIs(absl::StatusCode::kNotFound));
}

// Tests of the error paths follow.

TEST(PushState, WhatItDoesNotUnderstandIsInvalidArgumentNamingTheLine) {
  EXPECT_THAT(DecodePushState("something else\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 1")));
  const std::string good = EncodePushState(Sample());
  for (const char* bad : {"volume 2\n", "volume -1 5\n", "logid x\n", "gap 1 2 3\n",
                          "gap 1 2 1000000000 4 5\n", "segment 1 2 3\n", "frobnicate 1\n"}) {
    EXPECT_THAT(DecodePushState(good + bad),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 14"))) << bad;
  }
  EXPECT_THAT(DecodePushState("mmvlog-push 1\nlogid 3\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no archive")));
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/bad.state";
  const std::string text = "mmvlog-push 1\nwhat\n";
  ASSERT_OK(WriteFileAtomically(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size())));
  EXPECT_THAT(LoadPushState(path), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(path)));
}

}  // namespace
}  // namespace mmvlog::archiver

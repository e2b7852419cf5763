// Tests of //archiver/push:http_message: the request head, byte for byte;
// responses split at every byte, by Content-Length, chunked and to the
// connection's end; interim responses; and the malformed ones, each an
// error naming the byte where it went wrong.
#include "archiver/push/http_message.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <span>
#include <string>

#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::IsOk;
using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Feeds `wire` in pieces of `step` bytes; returns the bytes consumed.
size_t FeedAll(HttpResponseParser& p, const std::string& wire, size_t step) {
  size_t at = 0;
  while (at < wire.size() && !p.done()) {
    const size_t n = std::min(step, wire.size() - at);
    absl::StatusOr<size_t> used = p.Feed(Bytes(wire.substr(at, n)));
    EXPECT_OK(used.status());
    if (!used.ok()) return at;
    at += *used;
    if (*used < n) break;
  }
  return at;
}

TEST(EncodeRequestHead, PostWithBodyGoldenBytes) {
  HttpRequestHead h{"POST", "/logger/meta/42", "pmproxy:44322", "application/octet-stream",
                    "Basic bW06cHc="};
  EXPECT_EQ(EncodeRequestHead(h, 1234),
            "POST /logger/meta/42 HTTP/1.1\r\n"
            "Host: pmproxy:44322\r\n"
            "Connection: keep-alive\r\n"
            "Accept: application/json\r\n"
            "Authorization: Basic bW06cHc=\r\n"
            "Content-Type: application/octet-stream\r\n"
            "Content-Length: 1234\r\n"
            "\r\n");
}

TEST(EncodeRequestHead, GetHasNoBodyHeaders) {
  HttpRequestHead h{"GET", "/logger/ping", "h:1", "", ""};
  EXPECT_EQ(EncodeRequestHead(h, 0),
            "GET /logger/ping HTTP/1.1\r\nHost: h:1\r\nConnection: keep-alive\r\n"
            "Accept: application/json\r\n\r\n");
}

// pmproxy 7.2's answer to a label POST, as it sends it.
const std::string kPmproxyAnswer =
    "HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\nAccess-Control-Allow-Origin: *\r\n"
    "Content-Length: 38\r\nContent-Type: application/json\r\n\r\n"
    "{\"archive\":1804289383,\"success\":true}\n";

TEST(HttpResponseParser, ContentLengthSplitAtEveryByte) {
  for (size_t step = 1; step <= kPmproxyAnswer.size(); ++step) {
    HttpResponseParser p;
    EXPECT_EQ(FeedAll(p, kPmproxyAnswer, step), kPmproxyAnswer.size()) << step;
    ASSERT_TRUE(p.done()) << step;
    EXPECT_EQ(p.response().status, 200);
    EXPECT_EQ(p.response().reason, "OK");
    EXPECT_EQ(p.response().content_type, "application/json");
    EXPECT_EQ(p.response().body, "{\"archive\":1804289383,\"success\":true}\n");
    EXPECT_TRUE(p.response().keep_alive);
  }
}

TEST(HttpResponseParser, StopsAtTheEndOfItsResponse) {
  HttpResponseParser p;
  absl::StatusOr<size_t> used = p.Feed(Bytes(kPmproxyAnswer + "HTTP/1.1 200 OK\r\n"));
  ASSERT_OK(used.status());
  EXPECT_EQ(*used, kPmproxyAnswer.size());
  EXPECT_TRUE(p.done());
}

TEST(HttpResponseParser, ChunkedSplitAtEveryByte) {
  const std::string wire =
      "HTTP/1.1 410 Gone\r\nTransfer-encoding: chunked\r\nContent-Type: application/json; "
      "charset=utf-8\r\n\r\n"
      "7\r\n{\"succe\r\n"
      "a;ext=1\r\nss\":false}\r\n"
      "0\r\nX-Trailer: y\r\n\r\n";
  for (size_t step = 1; step <= wire.size(); ++step) {
    HttpResponseParser p;
    EXPECT_EQ(FeedAll(p, wire, step), wire.size()) << step;
    ASSERT_TRUE(p.done()) << step;
    EXPECT_EQ(p.response().status, 410);
    EXPECT_EQ(p.response().content_type, "application/json");
    EXPECT_EQ(p.response().body, "{\"success\":false}");
  }
}

TEST(HttpResponseParser, BodyToTheEndOfTheConnection) {
  HttpResponseParser p;
  ASSERT_OK(p.Feed(Bytes("HTTP/1.0 500 Oops\r\n\r\nit broke")).status());
  EXPECT_FALSE(p.done());
  ASSERT_OK(p.Finish());
  EXPECT_TRUE(p.done());
  EXPECT_EQ(p.response().status, 500);
  EXPECT_EQ(p.response().body, "it broke");
  EXPECT_FALSE(p.response().keep_alive);
}

TEST(HttpResponseParser, InterimResponsesAreSkipped) {
  HttpResponseParser p;
  ASSERT_OK(p.Feed(Bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n"
                         "Connection: close\r\n\r\n"))
                .status());
  ASSERT_TRUE(p.done());
  EXPECT_EQ(p.response().status, 204);
  EXPECT_FALSE(p.response().keep_alive);
}

// Tests of the error paths follow.

TEST(HttpResponseParser, NotHttpIsDataLossAtItsByte) {
  HttpResponseParser p;
  EXPECT_THAT(p.Feed(Bytes("SSH-2.0-OpenSSH_9.2\r\n\r\n")),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("byte 23: not an HTTP/1.x status line: \"SSH-2.0-OpenSSH_9.2\"")));
}

TEST(HttpResponseParser, BadHeadersAndChunksAreDataLoss) {
  for (const char* wire : {"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
                           "HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n",
                           "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",
                           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
                           "HTTP/1.1 2000 OK\r\n\r\n"}) {
    HttpResponseParser p;
    EXPECT_THAT(p.Feed(Bytes(wire)), StatusIs(absl::StatusCode::kDataLoss)) << wire;
  }
}

TEST(HttpResponseParser, EndlessHeadIsDataLoss) {
  HttpResponseParser p;
  const std::string junk(HttpResponseParser::kMaxHead + 1, 'x');
  EXPECT_THAT(p.Feed(Bytes("HTTP/1.1 200 OK\r\n" + junk)),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("too large")));
}

TEST(HttpResponseParser, ConnectionEndingEarlyIsUnavailable) {
  // Every cut of the answer but the whole.
  for (size_t n = 0; n < kPmproxyAnswer.size(); ++n) {
    HttpResponseParser p;
    ASSERT_OK(p.Feed(Bytes(kPmproxyAnswer.substr(0, n))).status());
    EXPECT_EQ(p.started(), n > 0);
    EXPECT_THAT(p.Finish(), StatusIs(absl::StatusCode::kUnavailable,
                                     HasSubstr("closed after " + std::to_string(n) + " bytes")))
        << n;
  }
}

}  // namespace
}  // namespace mmvlog::archiver

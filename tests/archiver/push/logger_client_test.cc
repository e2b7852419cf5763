// Tests of //archiver/push:logger_client against the scripted server: how
// each of pmproxy's answers (and no answer) becomes the status the pusher
// decides by, what the label's LOGID is, and the body limit. Answers are
// laid out as PCP 7.2's src/pmproxy/src/logger.c sends them.
#include "archiver/push/logger_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/archiver/push/scripted_server.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::archiver::testing::kClose;
using ::mmvlog::archiver::testing::kHang;
using ::mmvlog::archiver::testing::Ok;
using ::mmvlog::archiver::testing::ScriptedServer;
using ::mmvlog::testing::IsOkAndHolds;
using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

std::string Fail(int code, const char* reason) {
  const std::string body = "{\"success\":false}\r\n";
  return absl::StrCat("HTTP/1.1 ", code, " ", reason, "\r\nConnection: Keep-Alive\r\n"
                      "Content-Length: ", body.size(), "\r\nContent-Type: application/json\r\n\r\n",
                      body);
}

HttpEndpoint Local(int port) {
  HttpEndpoint e;
  e.host = "127.0.0.1";
  e.port = port;
  return e;
}

const std::vector<uint8_t> kBody = {1, 2, 3, 4};

TEST(LoggerClient, LabelGivesTheLogidAndSendsItsParameters) {
  ScriptedServer server({{Ok("{\"archive\":1804289383,\"client\":\"h1\",\"success\":true}\r\n"),
                          Ok("{\"success\":true}\r\n"), Ok("{\"success\":true}\r\n")}});
  HttpClient http(Local(server.port()), HttpClientOptions());
  LoggerClient c(&http, "h 1", 30);
  EXPECT_THAT(c.Label(kBody), IsOkAndHolds(1804289383u));
  EXPECT_OK(c.Volume(2, 1804289383, kBody));
  EXPECT_OK(c.Ping());
  EXPECT_EQ(c.posts(), 3u);
  const std::vector<std::string> seen = server.requests();
  EXPECT_THAT(seen[0], HasSubstr("POST /logger/label?polltimeout=30&client=h%201 HTTP/1.1"));
  EXPECT_THAT(seen[0], HasSubstr("Content-Type: application/octet-stream\r\n"));
  EXPECT_THAT(seen[1], HasSubstr("POST /logger/volume/2/1804289383 HTTP/1.1"));
  EXPECT_THAT(seen[2], HasSubstr("GET /logger/ping HTTP/1.1"));
}

TEST(LoggerClient, EachAnswerIsTheStatusThePusherDecidesBy) {
  struct Case {
    std::string answer;
    absl::StatusCode code;
    const char* says;
  } cases[] = {
      {Fail(410, "Gone"), absl::StatusCode::kNotFound, "HTTP 410 Gone"},
      {Fail(500, "Internal Server Error"), absl::StatusCode::kAborted, "HTTP 500"},
      {Fail(403, "Forbidden"), absl::StatusCode::kPermissionDenied, "HTTP 403"},
      {Fail(400, "Bad Request"), absl::StatusCode::kInvalidArgument, "HTTP 400"},
      {Fail(409, "Conflict"), absl::StatusCode::kInvalidArgument, "HTTP 409"},
      {Ok("<html>a web server</html>"), absl::StatusCode::kInvalidArgument,
       "not pmproxy's logger API"},
      {kClose, absl::StatusCode::kAborted, "outcome unknown"},
  };
  for (const Case& k : cases) {
    ScriptedServer server({{k.answer}});
    HttpClient http(Local(server.port()), HttpClientOptions());
    LoggerClient c(&http);
    EXPECT_THAT(c.Meta(7, kBody),
                StatusIs(k.code, AllOf(HasSubstr("POST /logger/meta/7"), HasSubstr(k.says))))
        << k.answer;
    EXPECT_EQ(c.posts(), 0u);
  }
}

TEST(LoggerClient, NoAnswerInTimeMayHaveBeenApplied) {
  ScriptedServer server({{kHang}});
  HttpClientOptions o;
  o.timeout = absl::Milliseconds(200);
  HttpClient http(Local(server.port()), o);
  LoggerClient c(&http);
  EXPECT_THAT(c.Index(7, kBody), StatusIs(absl::StatusCode::kAborted, HasSubstr("outcome unknown")));
}

TEST(LoggerClient, NoServerIsUnavailable) {
  int port;
  {
    ScriptedServer gone({});
    port = gone.port();
  }
  HttpClient http(Local(port), HttpClientOptions());
  LoggerClient c(&http);
  EXPECT_THAT(c.Label(kBody), StatusIs(absl::StatusCode::kUnavailable,
                                        HasSubstr("POST /logger/label: connect to")));
}

TEST(LoggerClient, ALabelAnswerWithoutAnArchiveIsInvalidArgument) {
  ScriptedServer server({{Ok("{\"success\":true}")}});
  HttpClient http(Local(server.port()), HttpClientOptions());
  LoggerClient c(&http);
  EXPECT_THAT(c.Label(kBody), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("no archive id")));
}

TEST(LoggerClient, RepliesAreReadAsJsonInAnySpelling) {
  // The same JSON in other spellings (spaces, key order, escapes, newlines)
  // reads the same; look-alikes that are not it do not.
  const char* const good[] = {
      "{\"archive\":42,\"success\":true}",
      "{ \"success\" : true , \"archive\" : 42 }",
      "{\n  \"client\": \"h\\u0031\",\n  \"archive\": 42,\n  \"success\": true\n}\n",
      "{\"\\u0061rchive\":42,\"success\":true}",
  };
  for (const char* body : good) {
    ScriptedServer server({{Ok(body)}});
    HttpClient http(Local(server.port()), HttpClientOptions());
    LoggerClient c(&http);
    EXPECT_THAT(c.Label(kBody), IsOkAndHolds(42u)) << body;
  }
  const char* const bad[] = {
      "{\"archive\":42,\"success\":false}",
      "{\"archive\":42,\"success\":\"true\"}",
      "{\"note\":\"\\\"success\\\":true\",\"archive\":42}",
      "[{\"archive\":42,\"success\":true}]",
      "{\"archive\":42,\"success\":true",
  };
  for (const char* body : bad) {
    ScriptedServer server({{Ok(body)}});
    HttpClient http(Local(server.port()), HttpClientOptions());
    LoggerClient c(&http);
    EXPECT_THAT(c.Label(kBody), StatusIs(absl::StatusCode::kInvalidArgument)) << body;
  }
  for (const char* body : {"{\"archive\":-1,\"success\":true}", "{\"archive\":\"42\",\"success\":true}",
                           "{\"archive\":4294967296,\"success\":true}", "{\"archive\":4.5,\"success\":true}"}) {
    ScriptedServer server({{Ok(body)}});
    HttpClient http(Local(server.port()), HttpClientOptions());
    LoggerClient c(&http);
    EXPECT_THAT(c.Label(kBody), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no archive id")))
        << body;
  }
}

TEST(LoggerClient, ABodyOverPmproxysLimitIsNotSent) {
  ScriptedServer server({{Ok("{\"success\":true}")}});
  HttpClient http(Local(server.port()), HttpClientOptions());
  LoggerClient c(&http);
  const std::vector<uint8_t> big(LoggerClient::kMaxBody);
  EXPECT_THAT(c.Volume(0, 7, big), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("over pmproxy's limit")));
  EXPECT_TRUE(server.requests().empty());
  EXPECT_OK(c.Volume(0, 7, std::vector<uint8_t>(LoggerClient::kMaxBody - 1)));
}

}  // namespace
}  // namespace mmvlog::archiver

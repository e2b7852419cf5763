// format/logger_config: pmlogger's configuration grammar, as tables of good
// and broken configurations.
#include "format/text/logger_config.h"

#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace mmvlog::format {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<LoggerConfig> Parse(const std::string& text,
                                   std::map<std::string, std::string> files = {}) {
  PmcppOptions o;
  o.load = [files = std::move(files)](const std::string& path) -> absl::StatusOr<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return absl::NotFoundError(path);
    return it->second;
  };
  return ParseLoggerConfigText(text, "cfg", o);
}

// One line per clause: control state interval {metric[inst,...] ...}.
std::string Show(const LoggerConfig& c) {
  std::string out;
  for (const LogClause& cl : c.clauses) {
    out += cl.control == LogControl::kMandatory ? "M " : "A ";
    out += cl.state == LogState::kOn ? "on " : cl.state == LogState::kOff ? "off " : "maybe ";
    if (cl.state == LogState::kOn) {
      out += cl.interval.has_value() ? absl::FormatDuration(*cl.interval) : "default";
      out += " ";
    }
    out += "{";
    for (const MetricSpec& m : cl.metrics) {
      out += " " + m.name;
      if (!m.instances.empty()) {
        out += "[";
        for (const InstanceSpec& i : m.instances) {
          out += i.id.has_value() ? "#" + std::to_string(*i.id) : i.name;
          out += ",";
        }
        out += "]";
      }
    }
    out += " }\n";
  }
  if (c.access.has_value()) out += "access at " + c.access->ToString() + "\n";
  return out;
}

TEST(LoggerConfigTest, GoodConfigurations) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"log mandatory on 10 sec mmv.a.x", "M on 10s { mmv.a.x }\n"},
      {"log mandatory on every 10 seconds { mmv.a.x mmv.a.y }",
       "M on 10s { mmv.a.x mmv.a.y }\n"},
      {"log advisory on 1 min { mmv.a.x, mmv.a.y }", "A on 1m { mmv.a.x mmv.a.y }\n"},
      {"on 250 msec mmv", "A on 250ms { mmv }\n"},  // log and the controller are optional
      {"log mandatory on once { mmv.a.x }", "M on 0 { mmv.a.x }\n"},
      {"log mandatory on every 0 sec mmv.a.x", "M on 0 { mmv.a.x }\n"},  // zero is once
      {"log mandatory on default mmv.a", "M on default { mmv.a }\n"},
      {"log mandatory off mmv.a.x", "M off { mmv.a.x }\n"},
      {"log advisory off { mmv.a.x }", "A off { mmv.a.x }\n"},
      {"off mmv.a.x", "A off { mmv.a.x }\n"},
      {"log mandatory maybe { mmv.a.x }", "M maybe { mmv.a.x }\n"},
      {"log mandatory on 2 hours mmv.a.x", "M on 2h { mmv.a.x }\n"},
      {"log mandatory on 3 milliseconds mmv.a.x", "M on 3ms { mmv.a.x }\n"},
      {"log mandatory on 1 msecs mmv.a.x", "M on 1ms { mmv.a.x }\n"},
      {"log mandatory on 1 mins mmv.a.x", "M on 1m { mmv.a.x }\n"},
      {"log mandatory on 1 hour mmv.a.x", "M on 1h { mmv.a.x }\n"},
      {"log mandatory on 1 secs mmv.a.x", "M on 1s { mmv.a.x }\n"},
      {"log mandatory on 10sec mmv.a.x", "M on 10s { mmv.a.x }\n"},
      {"log mandatory on 1 sec { mmv.a.x [ \"one\" \"two words\" 3 ] mmv.a.y [4,5] }",
       "M on 1s { mmv.a.x[one,two words,#3,] mmv.a.y[#4,#5,] }\n"},
      {"log mandatory on 1 sec mmv.a.x [ red, green ]", "M on 1s { mmv.a.x[red,green,] }\n"},
      // Inside braces keywords are names (pmlogger's lexer state INSPEC).
      {"log mandatory on 1 sec { on [ off once ] }", "M on 1s { on[off,once,] }\n"},
      {"# a comment\nlog mandatory on 1 sec {  # why\n  mmv.a.x # the x\n}\n",
       "M on 1s { mmv.a.x }\n"},
      {"log mandatory on 1 sec mmv.a.x\nlog advisory on 1 sec mmv.a.y\nmandatory off mmv.a.z",
       "M on 1s { mmv.a.x }\nA on 1s { mmv.a.y }\nM off { mmv.a.z }\n"},
      {"log mandatory on 1 sec mmv.a.x\n[access]\nallow localhost : all;\n"
       "disallow 192.168.1.*, ::1, host-name.example : advisory, mandatory;\n"
       "allow * : all except enquire;\n",
       "M on 1s { mmv.a.x }\naccess at cfg:2:1\n"},
      {"", ""},
      {"# only comments\n\n", ""},
      {"%define INTERVAL \"5 sec\"\n%define APP mmv.app\nlog mandatory on every %INTERVAL "
       "{ %APP.x %{APP}.y }\n",
       "M on 5s { mmv.app.x mmv.app.y }\n"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<LoggerConfig> got = Parse(c.text);
    ASSERT_TRUE(got.ok()) << c.text << "\n" << got.status();
    EXPECT_EQ(Show(*got), c.want) << c.text;
  }
}

TEST(LoggerConfigTest, PositionsOfClausesAndMetrics) {
  absl::StatusOr<LoggerConfig> got = Parse("\n  log mandatory on 1 sec {\n\tmmv.a.x\n}\n");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->clauses.size(), 1u);
  EXPECT_EQ(got->clauses[0].where.ToString(), "cfg:2:3");
  EXPECT_EQ(got->clauses[0].metrics[0].where.ToString(), "cfg:3:2");
}

TEST(LoggerConfigTest, BrokenConfigurations) {
  struct Case {
    const char* text;
    const char* error;  // the whole message
  } cases[] = {
      {"log mandatory on every 10 parsecs mmv.a.x",
       "cfg:1:27: expected a time unit after 10 (msec, sec, min or hour), found 'parsecs'"},
      {"log mandatory on every 10 { mmv.a.x }",
       "cfg:1:27: expected a time unit after 10 (msec, sec, min or hour), found '{'"},
      {"log mandatory on every 1.5 sec mmv.a.x",
       "cfg:1:24: interval 1.5 is not a whole number: write it in a smaller unit (every 1500 "
       "msec)"},
      {"log mandatory on sometimes mmv.a.x",
       "cfg:1:18: expected an interval ('every 10 sec', 'once' or 'default'), found 'sometimes'"},
      {"log mandatory on 75 hours mmv.a.x",
       "cfg:1:18: interval too long: pmlogger's limit is 268435455 msec (about 74 hours)"},
      {"log mandatory onn 10 sec mmv.a.x",
       "cfg:1:15: expected 'on', 'off' or 'maybe', found 'onn'"},
      {"log advisory maybe mmv.a.x",
       "cfg:1:14: 'maybe' needs 'mandatory' before it (log mandatory maybe ...)"},
      {"log advisory sometimes mmv.a.x", "cfg:1:14: expected 'on' or 'off', found 'sometimes'"},
      {"lgo mandatory on 1 sec mmv.a.x",
       "cfg:1:1: expected a logging specification ('log mandatory on ...', 'log advisory off "
       "...'), found 'lgo'"},
      {"log mandatory on 1 sec", "cfg:1:23: expected a metric name, found the end of the file"},
      {"log mandatory on 1 sec\nlog mandatory on 2 sec x",
       "cfg:2:1: expected a metric name, found the keyword 'log' (a metric list needs '{' ... "
       "'}')"},
      {"log mandatory on 1 sec { }", "cfg:1:26: expected a metric name, found '}'"},
      {"log mandatory on 1 sec {\n mmv.a.x\n", "cfg:1:24: '{' is never closed (expected '}')"},
      {"log mandatory on 1 sec { mmv.a.x [ ] }",
       "cfg:1:36: expected an instance name or number, found ']'"},
      {"log mandatory on 1 sec { mmv.a.x [ eth-0 ] }",
       "cfg:1:36: expected an instance name (quote names with spaces or '-') or number, or ']', "
       "found 'eth-0'"},
      {"log mandatory on 1 sec { mmv.a.x [ 1 2\n", "cfg:1:34: '[' is never closed (expected ']')"},
      {"log mandatory on 1 sec { mmv.a.x [ 99999999999 ] }",
       "cfg:1:36: instance number 99999999999 is too large"},
      {"log mandatory on 1 sec { mmv.a. }", "cfg:1:26: 'mmv.a.' is not a metric name"},
      {"log mandatory on 1 sec { mmv.a.x ; }", "cfg:1:34: expected a metric name, found ';'"},
      {"log mandatory on 1 sec { mmv.a.x @ }", "cfg:1:34: expected a metric name, found '@'"},
      {"log mandatory on 1 sec { mmv.a.x \"\" }", "cfg:1:34: expected a metric name, found '\"\"'"},
      {"log mandatory on 1 sec mmv.a.x\n[access]\n",
       "cfg:2:9: expected an access rule ('allow * : all;'), found the end of the file"},
      {"log mandatory on 1 sec mmv.a.x\n[access]\npermit * : all;\n",
       "cfg:3:1: expected 'allow' or 'disallow', found 'permit'"},
      {"log mandatory on 1 sec mmv.a.x\n[access]\nallow * : all\n",
       "cfg:3:14: expected ';' to end the access rule"},
      {"log mandatory on 1 sec mmv.a.x\n[access]\nallow * : fly;\n",
       "cfg:3:11: unknown access operation 'fly' (advisory, mandatory, enquire, all, all except "
       "...)"},
      {"log mandatory on 1 sec mmv.a.x\n[access]\nallow * all;\n",
       "cfg:3:7: expected 'hosts : operations;' in the access rule"},
      {"log mandatory on 1 sec mmv.a.x\n[access\n", "cfg:2:8: expected ']' after '[access', found the end of the file"},
      {"%ifdef X\nlog mandatory on 1 sec mmv.a.x\n", "cfg:1: %ifdef has no matching %endif"},
      {"%define I \"1 sec\"\nlog mandatory on %I mmv.a.x %BAD",
       "cfg:2:32: expected a logging specification ('log mandatory on ...', 'log advisory off "
       "...'), found '%'"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<LoggerConfig> got = Parse(c.text);
    ASSERT_FALSE(got.ok()) << c.text;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_EQ(std::string(got.status().message()), std::string(c.error)) << c.text;
  }
}

TEST(LoggerConfigTest, ErrorsInAnIncludedFileNameIt) {
  absl::StatusOr<LoggerConfig> got =
      Parse("%include \"part\"\n", {{"part", "log mandatory on 1 sec mmv.a.x\n\nlog on x\n"}});
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(), HasSubstr("part:3:8: expected an interval"));
}

}  // namespace
}  // namespace mmvlog::format

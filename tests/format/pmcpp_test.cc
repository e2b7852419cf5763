// format/pmcpp: pmcpp -rs preprocessing, good and broken input as tables.
#include "format/text/pmcpp.h"

#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/status/status.h"

namespace mmvlog::format {
namespace {

using ::testing::HasSubstr;

// Files by path; anything else is NotFound.
PmcppOptions Files(std::map<std::string, std::string> files) {
  PmcppOptions o;
  o.load = [files = std::move(files)](const std::string& path) -> absl::StatusOr<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return absl::NotFoundError(path);
    return it->second;
  };
  o.include_dirs = {"/var/lib/pcp/config/pmlogger"};
  return o;
}

std::string Text(const std::vector<SourceLine>& lines) {
  std::string out;
  for (const SourceLine& l : lines) out += l.file + ":" + std::to_string(l.line) + ":" + l.text + "\n";
  return out;
}

TEST(PmcppTest, GoodInput) {
  struct Case {
    const char* name;
    const char* text;
    const char* want;  // FILE:LINE:TEXT per kept line
  } cases[] = {
      {"plain text passes", "log on 1 sec x\n# comment\n", "c:1:log on 1 sec x\nc:2:# comment\n"},
      {"no final newline", "a\nb", "c:1:a\nc:2:b\n"},
      {"define and expand", "%define I \"250 msec\"\nlog on %I x\n", "c:2:log on 250 msec x\n"},
      {"braced expansion", "%define M mmv.app\nlog on 1 sec %{M}.x\n", "c:2:log on 1 sec mmv.app.x\n"},
      {"word value", "%define M   mmv   \nx %M y\n", "c:2:x mmv y\n"},
      {"single quotes", "%define M 'a b'\n%M\n", "c:2:a b\n"},
      {"empty value", "%define E\n[%E]\n", "c:2:[]\n"},
      {"unknown macro kept", "%define A 1\n%B %A%\n", "c:2:%B 1%\n"},
      {"only %name is expanded (-r)", "%define A 1\nA %A\n", "c:2:A 1\n"},
      {"value not rescanned", "%define A %B\n%define B 2\n%A\n", "c:3:%B\n"},
      {"ifdef true", "%define D\n%ifdef D\nyes\n%else\nno\n%endif\n", "c:3:yes\n"},
      {"ifdef false", "%ifdef D\nyes\n%else\nno\n%endif\n", "c:4:no\n"},
      {"ifndef", "%ifndef D\nyes\n%endif\n", "c:2:yes\n"},
      {"undef", "%define D\n%undef D\n%ifdef D\nyes\n%endif\nend\n", "c:6:end\n"},
      {"define skipped when false", "%ifdef X\n%define Y 1\n%endif\n%ifdef Y\nyes\n%endif\n", ""},
      {"redefine after undef", "%define A 1\n%undef A\n%define A 2\n%A\n", "c:4:2\n"},
      {"percent not a directive", "%defined\n", "c:1:%defined\n"},
      {"directive only at column 1", " %define A 1\n", "c:1: %define A 1\n"},
      {"crlf", "%define A 1\r\n%A\r\n", "c:2:1\n"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<SourceLine>> got = Pmcpp(c.text, "c", Files({}));
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.status();
    EXPECT_EQ(Text(*got), c.want) << c.name;
  }
}

TEST(PmcppTest, IncludeBesideTheIncludingFileThenTheIncludeDirs) {
  PmcppOptions o = Files({
      {"/etc/cfg/main", "top\n%include \"sub/a\"\nafter\n"},
      {"/etc/cfg/sub/a", "%define M from_a\n%include \"b\"\n%M\n"},
      {"/etc/cfg/sub/b", "in b\n"},  // beside sub/a, not beside main
      {"/var/lib/pcp/config/pmlogger/c", "in c\n"},
  });
  absl::StatusOr<std::vector<SourceLine>> got = Pmcpp("%include <c>\n%include \"/etc/cfg/main\"\n",
                                                      "/tmp/x", o);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(Text(*got),
            "/var/lib/pcp/config/pmlogger/c:1:in c\n"
            "/etc/cfg/main:1:top\n"
            "/etc/cfg/sub/b:1:in b\n"
            "/etc/cfg/sub/a:3:from_a\n"
            "/etc/cfg/main:3:after\n");
}

TEST(PmcppTest, PredefinedMacros) {
  PmcppOptions o = Files({});
  o.defines = {{"HOST", "db1"}};
  absl::StatusOr<std::vector<SourceLine>> got = Pmcpp("%HOST\n", "c", o);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(Text(*got), "c:1:db1\n");
}

TEST(PmcppTest, BrokenInputNamesFileLineAndColumn) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"%define\n", "c:1:8: missing macro name after %define"},
      {"%define 1A x\n", "c:1:9: illegal character '1' in macro name"},
      {"%define A-B x\n", "c:1:10: illegal character '-' in macro name"},
      {"%define A \"x y\n", "c:1:11: unterminated value string in %define"},
      {"%define A x y\n", "c:1:13: unexpected extra text after %define (quote a value"},
      {"%define A 1\n%define A 2\n", "c:2:1: macro A redefined (defined before at c:1"},
      {"%endif\n", "c:1:1: %endif without %ifdef or %ifndef"},
      {"x\n%else\n", "c:2:1: %else without %ifdef or %ifndef"},
      {"%ifdef A\n%ifdef B\n%endif\n%endif\n", "c:2:1: nested %ifdef (pmcpp allows no %ifdef or "
                                                "%ifndef inside another; the open one is at c:1)"},
      {"\n%ifndef A\nx\n", "c:2: %ifndef has no matching %endif"},
      {"%ifdef\n", "c:1:7: missing macro name after %ifdef"},
      {"%endif x\n", "unexpected extra text after %endif"},
      {"%include missing\n", "c:1:10: expected \"file\" or <file> after %include"},
      {"%include \"x\n", "c:1:10: expected \" after the file name"},
      {"%include \"a\" b\n", "c:1:14: unexpected extra text after %include"},
      {"%include \"\"\n", "c:1:11: empty file name in %include"},
      {"\n\n%include \"nope\"\n",
       "c:3:11: cannot find %include file \"nope\" (looked for nope, "
       "/var/lib/pcp/config/pmlogger/nope)"},
      {"%shell \"date\"\n", "c:1:1: %shell is not supported"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<SourceLine>> got = Pmcpp(c.text, "c", Files({}));
    ASSERT_FALSE(got.ok()) << c.text;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(got.status().message(), HasSubstr(c.error)) << c.text;
  }
}

TEST(PmcppTest, ErrorsInsideAnIncludeNameTheIncludedFile) {
  PmcppOptions o = Files({{"d/inc", "ok\n\n%endif\n"}});
  absl::StatusOr<std::vector<SourceLine>> got = Pmcpp("%include \"inc\"\n", "d/main", o);
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(), HasSubstr("d/inc:3:1: %endif without"));
}

TEST(PmcppTest, IncludeLoopIsNamed) {
  PmcppOptions o = Files({{"d/a", "%include \"b\"\n"}, {"d/b", "x\n%include \"a\"\n"}});
  absl::StatusOr<std::vector<SourceLine>> got = Pmcpp("%include \"a\"\n", "d/main", o);
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(),
              HasSubstr("d/b:2:11: %include loop: d/main -> d/a -> d/b -> d/a"));
}

TEST(PmcppTest, NestingDeeperThanPmcppIsRefused) {
  PmcppOptions o = Files({{"d/1", "%include \"2\"\n"}, {"d/2", "%include \"3\"\n"},
                          {"d/3", "%include \"4\"\n"}, {"d/4", "%include \"5\"\n"},
                          {"d/5", "five\n"}});
  absl::StatusOr<std::vector<SourceLine>> four = Pmcpp("%include \"2\"\n", "d/1", o);
  ASSERT_TRUE(four.ok()) << four.status();  // 1 -> 2 -> 3 -> 4 -> 5: five levels
  absl::StatusOr<std::vector<SourceLine>> six = Pmcpp("%include \"1\"\n", "d/0", o);
  ASSERT_FALSE(six.ok());
  EXPECT_THAT(six.status().message(), HasSubstr("d/4:1:11: %include nesting too deep"));
}

TEST(PmcppTest, ALoaderErrorOtherThanNotFoundStops) {
  PmcppOptions o;
  o.load = [](const std::string&) -> absl::StatusOr<std::string> {
    return absl::PermissionDeniedError("permission denied");
  };
  absl::StatusOr<std::vector<SourceLine>> got = Pmcpp("%include \"x\"\n", "c", o);
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(), HasSubstr("c:1:11: cannot read %include file x: permission"));
}

}  // namespace
}  // namespace mmvlog::format

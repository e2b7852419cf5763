// The command line's conventions (cmd/cli): "did you mean", the help layout,
// and how parse errors are reported and with which exit status.
#include "cmd/cli.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmvlog::cmd {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(NearestNameTest, Table) {
  const std::vector<std::string> options = {"--archive-dir", "--archive-name", "--archive-version",
                                            "--interval",    "--mmv-dir",      "-t",
                                            "--include",     "--exclude",      "--compress"};
  struct Case {
    const char* wrong;
    const char* expected;  // "" for no suggestion
  } cases[] = {
      {"--archive_dir", "--archive-dir"},    // the old underscore spelling
      {"--archive-dri", "--archive-dir"},    // a transposition
      {"--archivedir", "--archive-dir"},     // a missing character
      {"--archive-vresion", "--archive-version"},
      {"--intervl", "--interval"},
      {"--mmvdir", "--mmv-dir"},
      {"--inclde", "--include"},
      {"--compres", "--compress"},
      {"--arch", ""},                        // a prefix of three options
      {"--comp", "--compress"},              // a prefix of exactly one
      {"--foo", ""},
      {"--xyzzy-plugh", ""},
      {"-x", ""},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(NearestName(c.wrong, options), c.expected) << c.wrong;
  }
  EXPECT_EQ(NearestName("recrod", {"record", "capture", "replay"}), "record");
  EXPECT_EQ(NearestName("rplay", {"record", "capture", "replay"}), "replay");
  EXPECT_EQ(NearestName("zzz", {"record", "capture", "replay"}), "");
}

// An app like a subcommand's, for the parse tests.
struct TestApp {
  std::unique_ptr<CLI::App> app = NewCommandApp("record", "test command", "[OPTIONS] [ARCHIVE]");
  std::string dir;
  std::string interval = "1sec";
  int version = 3;
  std::vector<std::string> args;
  double samples = 0;
  int port = 0;
  TestApp() {
    app->add_option("--archive-dir", dir, "where")->type_name("DIR")->group("Archive");
    HiddenAlias(app.get(), "--archive_dir", dir);
    app->add_option("-t,--interval", interval, "how often")
        ->type_name("INTERVAL")
        ->capture_default_str()
        ->group("Sampling");
    app->add_option("-V,--archive-version", version, "version")
        ->type_name("VERSION")
        ->check(CLI::IsMember({2, 3}))
        ->group("Archive");
    app->add_option("args", args)->group("");
    app->add_option("-s,--samples", samples, "how many")->check(CLI::NonNegativeNumber);
    app->add_option("--port", port, "which")->check(CLI::Range(1, 65535));
  }
  // Parses `argv`; returns the exit status ReportParseError gives, or -1
  // when the parse succeeded.
  int Parse(std::vector<std::string> argv, std::string* err) {
    std::reverse(argv.begin(), argv.end());
    ::testing::internal::CaptureStderr();
    ::testing::internal::CaptureStdout();
    int rc = -1;
    try {
      app->parse(argv);
    } catch (const CLI::ParseError& e) {
      rc = ReportParseError(*app, "record", e);
    }
    *err = ::testing::internal::GetCapturedStderr();
    (void)::testing::internal::GetCapturedStdout();
    return rc;
  }
};

TEST(ParseTest, HiddenAliasStillWorks) {
  TestApp t;
  std::string err;
  EXPECT_EQ(t.Parse({"--archive_dir", "/x", "-t", "10sec", "a"}, &err), -1) << err;
  EXPECT_EQ(t.dir, "/x");
  EXPECT_EQ(t.interval, "10sec");
  EXPECT_EQ(t.args, std::vector<std::string>{"a"});
}

TEST(ParseTest, GnuSpellings) {
  TestApp t;
  std::string err;
  EXPECT_EQ(t.Parse({"--archive-dir=/y", "-t10sec", "--archive-version", "2"}, &err), -1) << err;
  EXPECT_EQ(t.dir, "/y");
  EXPECT_EQ(t.interval, "10sec");
  EXPECT_EQ(t.version, 2);
}

TEST(ParseTest, UnknownOptionIsOneLineWithSuggestion) {
  TestApp t;
  std::string err;
  EXPECT_EQ(t.Parse({"--archive-dri", "/x"}, &err), kExitUsage);
  EXPECT_EQ(err,
            "mmvlog record: unknown option '--archive-dri'; did you mean '--archive-dir'? "
            "(mmvlog record --help lists the options)\n");
}

TEST(ParseTest, UnknownOptionWithValueAttached) {
  TestApp t;
  std::string err;
  EXPECT_EQ(t.Parse({"--intervl=5"}, &err), kExitUsage);
  EXPECT_THAT(err, HasSubstr("unknown option '--intervl'; did you mean '--interval'?"));
}

TEST(ParseTest, UnknownOptionWithoutSuggestion) {
  TestApp t;
  std::string err;
  EXPECT_EQ(t.Parse({"--frobnicate"}, &err), kExitUsage);
  EXPECT_THAT(err, HasSubstr("unknown option '--frobnicate' ("));
  EXPECT_THAT(err, Not(HasSubstr("did you mean")));
}

TEST(ParseTest, BadValueNamesOptionAndValue) {
  TestApp t;
  std::string err;
  EXPECT_EQ(t.Parse({"-V", "x"}, &err), kExitUsage);
  EXPECT_THAT(err, HasSubstr("'x'"));
  EXPECT_THAT(err, HasSubstr("--archive-version"));
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1);
}

TEST(ParseTest, OutOfSetValue) {
  TestApp t;
  std::string err;
  EXPECT_EQ(t.Parse({"-V", "7"}, &err), kExitUsage);
  EXPECT_THAT(err, HasSubstr("--archive-version"));
  EXPECT_THAT(err, HasSubstr("7"));
}

// CLI11's range checks say "Value V not in range 0.000000 to 1.79769e+308":
// told as the value, the option and the numbers a user can give.
TEST(ParseTest, OutOfRangeValueNamesTheValueAndTheRange) {
  TestApp t;
  std::string err;
  EXPECT_EQ(t.Parse({"-s", "abc"}, &err), kExitUsage);
  EXPECT_THAT(err, HasSubstr("bad value 'abc' for --samples: a number, 0 or more"));
  EXPECT_EQ(t.Parse({"-s", "-2"}, &err), kExitUsage);
  EXPECT_THAT(err, HasSubstr("bad value '-2' for --samples: a number, 0 or more"));
  EXPECT_EQ(t.Parse({"--port", "70000"}, &err), kExitUsage);
  EXPECT_THAT(err, HasSubstr("bad value '70000' for --port: a number, from 1 to 65535"));
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1);
}

TEST(ParseTest, MissingValue) {
  TestApp t;
  std::string err;
  EXPECT_EQ(t.Parse({"-t"}, &err), kExitUsage);
  EXPECT_THAT(err, HasSubstr("--interval needs a value"));
}

TEST(ParseTest, HelpExitsZero) {
  TestApp t;
  std::string err;
  EXPECT_EQ(t.Parse({"--help"}, &err), kExitOk);
  EXPECT_EQ(err, "");
}

TEST(HelpTest, GnuLayoutWithDefaultsAndNoHiddenNames) {
  TestApp t;
  const std::string help = t.app->help();
  EXPECT_THAT(help, HasSubstr("usage: mmvlog record [OPTIONS] [ARCHIVE]\n"));
  EXPECT_THAT(help, HasSubstr("-t, --interval=INTERVAL"));
  EXPECT_THAT(help, HasSubstr("how often (default: 1sec)"));
  EXPECT_THAT(help, HasSubstr("    --archive-dir=DIR"));
  EXPECT_THAT(help, HasSubstr("Sampling:"));
  EXPECT_THAT(help, HasSubstr("Archive:"));
  EXPECT_THAT(help, Not(HasSubstr("archive_dir")));
  EXPECT_THAT(help, Not(HasSubstr(".cc")));
}

}  // namespace
}  // namespace mmvlog::cmd

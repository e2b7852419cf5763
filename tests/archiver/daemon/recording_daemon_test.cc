// archiver/daemon: the recording daemon's life in the library, driven as
// `mmvlog record` drives it (real files, real time, hooks in place of
// signals): its directory made and locked (a second daemon refused, naming
// the first's pid), the pidfile while it runs, a new archive each period,
// finished volumes compressed, a reload (a new volume), the notifications
// systemd gets, and stop.
#include "archiver/daemon/recording_daemon.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "archiver/daemon/archive_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/archiver/recorder_test_util.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::LogSink;
using ::mmvlog::testing::MmvApp;
using ::mmvlog::testing::NewTempDir;
using ::mmvlog::testing::SpecMetric;
using ::mmvlog::testing::TestRecorderOptions;

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

class RecordingDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mmv_ = NewTempDir("mmv");
    format::MmvSpec spec;
    spec.generation = 1;
    spec.metrics = {SpecMetric("requests", 1)};
    app_ = std::make_unique<MmvApp>(mmv_ + "/app", spec);
    app_->Create();
    root_ = NewTempDir("daemon");
  }
  DaemonOptions Options(const std::string& dir) {
    DaemonOptions d;
    d.recorder = TestRecorderOptions(mmv_, "");
    d.limits.interval = absl::Milliseconds(50);
    d.dir = dir;
    d.name_template = "a%H%M%S";
    d.period = absl::ZeroDuration();
    return d;
  }
  std::string mmv_, root_;
  std::unique_ptr<MmvApp> app_;
};

TEST_F(RecordingDaemonTest, MakesLocksAndReleasesItsDirectory) {
  const std::string dir = root_ + "/deep/er/archives";
  DaemonOptions d = Options(dir);
  d.pidfile = root_ + "/mmvlog.pid";
  std::atomic<bool> stop{false};
  std::atomic<int> polls{0};
  DaemonHooks hooks;
  hooks.sleep_until = [](absl::Time t) { absl::SleepFor(std::min(t - absl::Now(), absl::Milliseconds(20))); };
  hooks.stop_requested = [&] { ++polls; return stop.load(); };
  LogSink log;
  std::thread daemon([&] {
    bool started = false;
    EXPECT_TRUE(RunRecordingDaemon(d, hooks, log.fn(), &started).ok());
    EXPECT_TRUE(started);
  });
  while (polls.load() < 5) absl::SleepFor(absl::Milliseconds(10));
  // While it runs: the pidfile, and a second recorder refused.
  EXPECT_TRUE(std::filesystem::exists(d.pidfile));
  absl::StatusOr<ArchiveDirLock> second = ArchiveDirLock::Acquire(dir, std::nullopt);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(second.status().message()),
              ::testing::HasSubstr(absl::StrCat("(pid ", ::getpid(), ") is writing to ", dir)));
  DaemonOptions twin = Options(dir);
  bool started = true;
  EXPECT_FALSE(RunRecordingDaemon(twin, hooks, log.fn(), &started).ok());
  EXPECT_FALSE(started);
  stop = true;
  daemon.join();
  EXPECT_FALSE(std::filesystem::exists(d.pidfile));
  // Released: a new recorder may take the directory.
  EXPECT_TRUE(ArchiveDirLock::Acquire(dir, std::nullopt).ok());
  EXPECT_EQ(log.Count(LogLevel::kInfo, {"stopped: "}), 1u);
}

TEST_F(RecordingDaemonTest, ADirectoryThatCannotBeMadeIsAnErrorBeforeRecording) {
  DaemonOptions d = Options("/proc/no/such/dir");
  DaemonHooks hooks;
  hooks.sleep_until = [](absl::Time) {};
  bool started = true;
  absl::Status s = RunRecordingDaemon(d, hooks, [](LogLevel, const std::string&) {}, &started);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(started);
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("/proc/no/such/dir"));
}

TEST_F(RecordingDaemonTest, PeriodsVolumesCompressionReloadAndNotifications) {
  const std::string dir = root_ + "/archives";
  DaemonOptions d = Options(dir);
  d.period = absl::Seconds(1);  // a new archive each second ("a%H%M%S")
  d.codec = Codec::kXz;
  const std::string sock_path = absl::StrCat("/tmp/mmvlog-daemon-test-", ::getpid());
  ::unlink(sock_path.c_str());
  const int sock = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr {};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, sock_path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)), 0);
  d.notify = SdNotifier(sock_path, absl::Milliseconds(400));
  std::atomic<bool> reload{false};
  const absl::Time end = absl::Now() + absl::Milliseconds(2600);
  DaemonHooks hooks;
  hooks.sleep_until = [](absl::Time t) { absl::SleepFor(std::min(t - absl::Now(), absl::Milliseconds(20))); };
  hooks.stop_requested = [&] { return absl::Now() > end; };
  hooks.take_reload = [&] { return reload.exchange(false); };
  // Read as systemd reads, as they come (the socket's queue is short).
  std::vector<std::string> messages;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    char buf[512];
    while (!done.load()) {
      const ssize_t n = ::recv(sock, buf, sizeof(buf), MSG_DONTWAIT);
      if (n > 0) {
        messages.emplace_back(buf, n);
      } else {
        absl::SleepFor(absl::Milliseconds(5));
      }
    }
  });
  LogSink log;
  std::thread daemon([&] { EXPECT_TRUE(RunRecordingDaemon(d, hooks, log.fn()).ok()); });
  absl::SleepFor(absl::Milliseconds(700));
  reload = true;  // SIGHUP
  daemon.join();
  absl::SleepFor(absl::Milliseconds(50));
  done = true;
  reader.join();
  ::close(sock);
  ::unlink(sock_path.c_str());

  // Two or three archives (periods of a second), every volume compressed.
  const std::vector<std::string> files = Files(dir);
  const auto count = [&](const char* suffix) {
    return std::count_if(files.begin(), files.end(), [&](const std::string& f) { return absl::EndsWith(f, suffix); });
  };
  EXPECT_GE(count(".meta"), 2) << ::testing::PrintToString(files);
  EXPECT_GE(count(".xz"), count(".meta") + 1) << "the reload's second volume";
  EXPECT_EQ(std::count_if(files.begin(), files.end(),
                          [](const std::string& f) { return absl::EndsWith(f, ".0") || absl::EndsWith(f, ".1"); }),
            0) << ::testing::PrintToString(files);
  EXPECT_EQ(log.Count(LogLevel::kInfo, {"new period: next archive"}), static_cast<size_t>(count(".meta") - 1));
  EXPECT_EQ(log.Count(LogLevel::kInfo, {"SIGHUP: new volume"}), 1u);
  // READY first, the watchdog pinged, RELOADING then READY, STOPPING last.
  ASSERT_FALSE(messages.empty());
  EXPECT_TRUE(absl::StartsWith(messages.front(), "READY=1\n")) << messages.front();
  EXPECT_GE(std::count(messages.begin(), messages.end(), "WATCHDOG=1\n"), 4);
  const auto reloading = std::find(messages.begin(), messages.end(), "RELOADING=1\n");
  ASSERT_NE(reloading, messages.end());
  EXPECT_TRUE(absl::StartsWith(*std::next(reloading), "READY=1\n"));
  EXPECT_EQ(messages.back(), "STOPPING=1\n");
}

}  // namespace
}  // namespace mmvlog::archiver

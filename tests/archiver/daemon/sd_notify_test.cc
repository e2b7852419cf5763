// archiver/daemon/sd_notify: systemd's notification protocol against a real
// datagram socket (a path and the abstract namespace), and the watchdog's
// settings read as sd_watchdog_enabled(3) reads them.
#include "archiver/daemon/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace mmvlog::archiver {
namespace {

// A bound datagram socket at `name` ("@x": abstract); Receive() reads one.
class Listener {
 public:
  explicit Listener(const std::string& name) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr {};
    addr.sun_family = AF_UNIX;
    EXPECT_LT(name.size(), sizeof(addr.sun_path));
    std::memcpy(addr.sun_path, name.data(), std::min(name.size(), sizeof(addr.sun_path) - 1));
    if (name[0] == '@') addr.sun_path[0] = '\0';
    const socklen_t len = static_cast<socklen_t>(offsetof(struct sockaddr_un, sun_path) + name.size());
    EXPECT_EQ(::bind(fd_, reinterpret_cast<struct sockaddr*>(&addr), len), 0) << std::strerror(errno);
    struct timeval tv {1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  ~Listener() { ::close(fd_); }
  std::string Receive() {
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    return n > 0 ? std::string(buf, n) : "";
  }

 private:
  int fd_;
};

TEST(SdNotifier, SendsEachStateToAPathSocket) {
  // sun_path holds 108 bytes: $TEST_TMPDIR is longer.
  const std::string path = absl::StrCat("/tmp/mmvlog-notify-test-", ::getpid());
  ::unlink(path.c_str());
  Listener l(path);
  SdNotifier n(path, absl::Seconds(30));
  ASSERT_TRUE(n.enabled());
  EXPECT_EQ(n.watchdog_every(), absl::Seconds(15));
  ASSERT_TRUE(n.Ready("watching").ok());
  EXPECT_EQ(l.Receive(), absl::StrCat("READY=1\nSTATUS=watching\nMAINPID=", ::getpid(), "\n"));
  ASSERT_TRUE(n.Status("12 samples").ok());
  EXPECT_EQ(l.Receive(), "STATUS=12 samples\n");
  ASSERT_TRUE(n.Watchdog().ok());
  EXPECT_EQ(l.Receive(), "WATCHDOG=1\n");
  ASSERT_TRUE(n.Reloading().ok());
  EXPECT_EQ(l.Receive(), "RELOADING=1\n");
  ASSERT_TRUE(n.Stopping().ok());
  EXPECT_EQ(l.Receive(), "STOPPING=1\n");
  ::unlink(path.c_str());
}

TEST(SdNotifier, AbstractNamespace) {
  const std::string name = absl::StrCat("@mmvlog-notify-test-", ::getpid());
  Listener l(name);
  ASSERT_TRUE(SdNotifier(name, absl::ZeroDuration()).Stopping().ok());
  EXPECT_EQ(l.Receive(), "STOPPING=1\n");
}

TEST(SdNotifier, WithoutASocketNothingIsSentAndNothingFails) {
  SdNotifier n("", absl::Seconds(10));
  EXPECT_FALSE(n.enabled());
  EXPECT_TRUE(n.Ready("x").ok());
  EXPECT_TRUE(n.Watchdog().ok());
  // A socket that is gone is an error to log, never fatal.
  EXPECT_FALSE(SdNotifier("/nonexistent/notify", absl::Seconds(10)).Watchdog().ok());
  EXPECT_FALSE(SdNotifier("relative", absl::Seconds(10)).Watchdog().ok());
}

TEST(SdNotifier, AQueueNobodyReadsNeverBlocks) {
  // A datagram socket's queue is short (net.unix.max_dgram_qlen): past it a
  // notification fails at once, and the recorder goes on sampling.
  const std::string path = absl::StrCat("/tmp/mmvlog-notify-full-", ::getpid());
  ::unlink(path.c_str());
  Listener l(path);
  SdNotifier n(path, absl::Seconds(1));
  int failed = 0;
  const absl::Time start = absl::Now();
  for (int i = 0; i < 2000; ++i) failed += !n.Watchdog().ok();
  EXPECT_GT(failed, 0);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(l.Receive(), "WATCHDOG=1\n");
  ::unlink(path.c_str());
}

TEST(SdNotifier, WatchdogFromTheEnvironment) {
  ::setenv("NOTIFY_SOCKET", "/run/x", 1);
  ::setenv("WATCHDOG_USEC", "60000000", 1);
  ::unsetenv("WATCHDOG_PID");
  EXPECT_EQ(SdNotifier::FromEnvironment().watchdog(), absl::Seconds(60));
  ::setenv("WATCHDOG_PID", absl::StrCat(::getpid()).c_str(), 1);
  EXPECT_EQ(SdNotifier::FromEnvironment().watchdog(), absl::Seconds(60));
  // Another process's watchdog (WATCHDOG_PID names it): none here.
  ::setenv("WATCHDOG_PID", "1", 1);
  EXPECT_EQ(SdNotifier::FromEnvironment().watchdog(), absl::ZeroDuration());
  ::setenv("WATCHDOG_USEC", "bogus", 1);
  ::unsetenv("WATCHDOG_PID");
  EXPECT_EQ(SdNotifier::FromEnvironment().watchdog(), absl::ZeroDuration());
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_FALSE(SdNotifier::FromEnvironment().enabled());
}

}  // namespace
}  // namespace mmvlog::archiver

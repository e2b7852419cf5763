// ProcessWatch: a process is alive until it exits, and one Poll tells of
// every exit, whatever the number watched; what kill(2) would say for the
// rest.
#include "archiver/mmv/process_watch.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "gtest/gtest.h"

namespace mmvlog::archiver {
namespace {

pid_t Sleeper() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (;;) ::pause();
  }
  return pid;
}

void Stop(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

TEST(ProcessWatch, OnePollTellsOfEveryExit) {
  ProcessWatch w;
  std::vector<pid_t> pids;
  for (int i = 0; i < 5; ++i) pids.push_back(Sleeper());
  for (pid_t p : pids) EXPECT_TRUE(w.Alive(p));
  EXPECT_EQ(w.watched(), 5u);
  EXPECT_FALSE(w.Poll());
  for (pid_t p : pids) EXPECT_TRUE(w.Alive(p));
  Stop(pids[1]);
  Stop(pids[3]);
  EXPECT_TRUE(w.Poll());
  EXPECT_FALSE(w.Poll());  // told once
  for (size_t i = 0; i < pids.size(); ++i) EXPECT_EQ(w.Alive(pids[i]), i != 1 && i != 3) << i;
  EXPECT_EQ(w.watched(), 3u);
  // An exited process stays dead without asking, until forgotten.
  EXPECT_FALSE(w.Alive(pids[1]));
  w.Forget(pids[1]);
  EXPECT_FALSE(w.Alive(pids[1]));  // asked again: still gone
  Stop(pids[0]);
  Stop(pids[2]);
  Stop(pids[4]);
}

TEST(ProcessWatch, AZombieIsDeadAndNonsenseIsDead) {
  ProcessWatch w;
  const pid_t pid = Sleeper();
  ::kill(pid, SIGKILL);
  // Not reaped yet: a zombie, which kill(pid, 0) would call alive; pmdammv's
  // check too. Its pidfd is readable at once: exited.
  for (int i = 0; i < 100 && w.Alive(pid); ++i) {
    ::usleep(10'000);
    w.Poll();
  }
  EXPECT_FALSE(w.Alive(pid));
  EXPECT_EQ(::kill(pid, 0), 0);  // what kill(2) would have said
  ::waitpid(pid, nullptr, 0);
  EXPECT_FALSE(w.Alive(0));
  EXPECT_FALSE(w.Alive(-5));
  // This process itself: alive.
  EXPECT_TRUE(w.Alive(::getpid()));
}

TEST(ProcessWatch, SweepStopsWatchingWhatWasNotAskedAbout) {
  ProcessWatch w;
  const pid_t a = Sleeper(), b = Sleeper();
  EXPECT_TRUE(w.Alive(a));
  EXPECT_TRUE(w.Alive(b));
  w.Sweep();
  EXPECT_EQ(w.watched(), 2u);
  EXPECT_TRUE(w.Alive(a));
  w.Sweep();
  EXPECT_EQ(w.watched(), 1u);
  Stop(a);
  Stop(b);
  EXPECT_TRUE(w.Poll());
  EXPECT_EQ(w.watched(), 0u);
}

}  // namespace
}  // namespace mmvlog::archiver

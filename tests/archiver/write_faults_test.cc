// Every write fault survived. Through the file-I/O seam (archiver/
// file_syscalls.h), a recording of ten samples with volume switches (every
// three samples, fdatasync at each switch) has its N-th write-path call
// (open, write, fdatasync, close) fail, for every N the recording makes and
// for each kind of fault:
//   - EIO, ENOSPC, EDQUOT, EFBIG: lasting (every call fails for two samples), so
//     the recorder reports it once, drops samples, and resumes once the
//     fault clears, after a <mark>;
//   - EINTR and a short write: retried, nothing lost, no mark;
//   - a failing fdatasync or close.
// Each run must leave an archive that real PCP's pmlogcheck accepts and
// pmdumplog reads, holding every sample that was not dropped, in order.
#include <errno.h>
#include <unistd.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "archiver/file/file_syscalls.h"
#include "archiver/schedule/record_loop.h"
#include "archiver/record/recorder.h"
#include "format/mmv/mmv_format.h"
#include "tests/archiver/recorder_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::ArchiveContents;
using ::mmvlog::testing::LogSink;
using ::mmvlog::testing::MmvApp;
using ::mmvlog::testing::NewTempDir;
using ::mmvlog::testing::ReadArchive;
using ::mmvlog::testing::SpecMetric;
using ::mmvlog::testing::TestRecorderOptions;

enum class Fault { kNone, kErrno, kEintr, kShortWrite, kFsync, kClose };

// The injector's state: global, since the seam is a table of plain function
// pointers.
struct Injector {
  Fault fault = Fault::kNone;
  int err = 0;
  int target = 0;    // the call (1-based) that fails first
  int calls = 0;     // write-path calls so far
  int lasting = 0;   // kErrno: samples the fault lasts for once it fired
  int fired = 0;     // calls that failed
  int samples = 0;   // samples taken so far
  int fired_at = -1;  // the sample during which it first fired
  bool cleared() const { return fired_at >= 0 && samples > fired_at + lasting; }
  // A sample was taken after the fault cleared: recording can have resumed.
  bool sample_after_clearing() const { return fired_at >= 0 && fired_at + lasting < samples - 1; }
} g;

// True when this call fails with kErrno: from the target call on, until
// `lasting` samples have passed (a disk that stays full for a while).
bool ErrnoFault(int call) {
  if (g.fault != Fault::kErrno || call < g.target || g.cleared()) return false;
  if (g.fired_at < 0) g.fired_at = g.samples;
  ++g.fired;
  errno = g.err;
  return true;
}

int FaultyOpen(const char* path, int flags, mode_t mode) {
  const int call = ++g.calls;
  if (ErrnoFault(call)) return -1;
  return RealFileSyscalls().open(path, flags, mode);
}

ssize_t FaultyWrite(int fd, const void* data, size_t n) {
  const int call = ++g.calls;
  if (ErrnoFault(call)) return -1;
  if (call == g.target && g.fault == Fault::kEintr) {
    ++g.fired;
    g.fired_at = g.samples;
    errno = EINTR;
    return -1;
  }
  if (call == g.target && g.fault == Fault::kShortWrite && n > 1) {
    ++g.fired;
    g.fired_at = g.samples;
    return RealFileSyscalls().write(fd, data, n / 2);
  }
  return RealFileSyscalls().write(fd, data, n);
}

int FaultyFdatasync(int fd) {
  const int call = ++g.calls;
  if (ErrnoFault(call)) return -1;
  if (call == g.target && g.fault == Fault::kFsync) {
    ++g.fired;
    g.fired_at = g.samples;
    errno = EIO;
    return -1;
  }
  return RealFileSyscalls().fdatasync(fd);
}

int FaultyClose(int fd) {
  const int call = ++g.calls;
  // close(2) releases the descriptor even when it reports an error.
  const int rc = RealFileSyscalls().close(fd);
  if (ErrnoFault(call)) return -1;
  if (call == g.target && g.fault == Fault::kClose) {
    ++g.fired;
    g.fired_at = g.samples;
    errno = EIO;
    return -1;
  }
  return rc;
}

const FileSyscallTable kFaulty = {FaultyOpen, FaultyWrite, FaultyFdatasync,
                                  RealFileSyscalls().ftruncate, FaultyClose};

constexpr int kSamples = 10;

struct Recording {
  RecorderStats stats;
  std::vector<std::pair<LogLevel, std::string>> log;
  std::string base;
};

// Records kSamples samples one second apart (a fake clock) with the
// injector as it is set, and closes the archive.
Recording Record(const std::string& mmv_dir) {
  Recording run;
  run.base = NewTempDir("out") + "/arch";
  RecorderOptions o = TestRecorderOptions(mmv_dir, run.base);
  o.volume_samples = 3;
  o.archive.sync_on_switch = true;
  LogSink log;
  Recorder recorder(o, log.fn());
  absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  LoopHooks hooks;
  hooks.now = [&] { return now; };
  hooks.wait_until = [&](absl::Time deadline) { now = std::max(now, deadline); };
  hooks.on_sample = [] { ++g.samples; };
  LoopLimits limits;
  limits.samples = kSamples;
  LoopStats loop;
  SetFileSyscallsForTesting(&kFaulty);
  const absl::Status s = RunRecordLoop(recorder, limits, hooks, &loop);
  const absl::Status closed = recorder.Close();
  SetFileSyscallsForTesting(nullptr);
  EXPECT_OK(s);
  (void)closed;  // a failing close is reported; the archive is checked below
  run.stats = recorder.stats();
  run.log = log.lines;
  return run;
}

// Runs `command` and returns its exit status and output.
std::pair<int, std::string> Shell(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), p)) out.append(buf, n);
  const int rc = ::pclose(p);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

class WriteFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = NewTempDir("mmv");
    format::MmvSpec spec;
    spec.metrics = {SpecMetric("n", 1), SpecMetric("m", 2)};
    app_ = std::make_unique<MmvApp>(dir_ + "/app", spec);
    app_->Create();
    g = Injector{};
    Recording dry = Record(dir_);
    calls_ = g.calls;
  }

  // Every N, with `fault`: the archive reads back as PCP reads it. At least
  // `min_fired` of the runs must have met the fault (-1: half of them).
  void EveryCall(Fault fault, int err, int lasting, const char* what, int min_fired = -1) {
    ASSERT_GT(calls_, 20) << "the recording makes too few calls to be a test";
    int fired_runs = 0;
    for (int n = 1; n <= calls_; ++n) {
      SCOPED_TRACE(absl::StrCat(what, " at write-path call ", n, " of ", calls_));
      g = Injector{fault, err, n, 0, lasting};
      Recording run = Record(dir_);
      if (g.fired == 0) continue;
      ++fired_runs;
      Check(run, fault);
    }
    EXPECT_GE(fired_runs, min_fired >= 0 ? min_fired : calls_ / 2) << what;
  }

  void Check(const Recording& run, Fault fault) {
    const auto [check_rc, check_out] = Shell("pmlogcheck " + run.base);
    ASSERT_EQ(check_rc, 0) << check_out;
    const auto [dump_rc, dump_out] = Shell("pmdumplog -a " + run.base);
    ASSERT_EQ(dump_rc, 0) << dump_out;
    ArchiveContents ar = ReadArchive(run.base);
    const size_t data = ar.data().size();
    // Every sample not dropped is in the archive, in time order.
    EXPECT_EQ(data + run.stats.dropped, static_cast<size_t>(kSamples));
    for (size_t i = 1; i < ar.results.size(); ++i) {
      EXPECT_TRUE(ar.results[i - 1].timestamp < ar.results[i].timestamp);
    }
    int errors = 0;
    for (const auto& [level, line] : run.log) errors += level == LogLevel::kError;
    if (fault == Fault::kEintr || fault == Fault::kShortWrite) {
      // Retried: nothing lost, nothing to report.
      EXPECT_EQ(run.stats.dropped, 0u);
      EXPECT_EQ(ar.marks(), 0u);
      EXPECT_EQ(errors, 0);
    } else if (run.stats.dropped > 0 && g.sample_after_clearing()) {
      // Reported once, and recording went on once the fault cleared (a
      // fault still there when the recording ended has nothing to resume).
      EXPECT_EQ(errors, 1);
      EXPECT_GT(data, 0u);
      const bool resumed = std::any_of(run.log.begin(), run.log.end(), [](const auto& l) {
        return l.second.find("writable again") != std::string::npos;
      });
      std::string log_text;
      for (const auto& [level, line] : run.log) absl::StrAppend(&log_text, line, "\n");
      EXPECT_TRUE(resumed) << "dropped " << run.stats.dropped << ", samples " << g.samples
                           << ", fired at sample " << g.fired_at << "\n" << log_text;
      // A gap after the first sample's result is marked (a gap before any
      // result has nothing to mark).
      const absl::Time first = format::ToAbslTime(ar.data().front()->timestamp);
      if (first == absl::FromUnixSeconds(1'700'000'000)) EXPECT_GE(ar.marks(), 1u);
    }
  }

  std::string dir_;
  std::unique_ptr<MmvApp> app_;
  int calls_ = 0;
};

TEST_F(WriteFaultsTest, Eio) { EveryCall(Fault::kErrno, EIO, 2, "EIO"); }
TEST_F(WriteFaultsTest, Enospc) { EveryCall(Fault::kErrno, ENOSPC, 2, "ENOSPC"); }
TEST_F(WriteFaultsTest, Edquot) { EveryCall(Fault::kErrno, EDQUOT, 2, "EDQUOT"); }
TEST_F(WriteFaultsTest, Efbig) { EveryCall(Fault::kErrno, EFBIG, 2, "EFBIG"); }
TEST_F(WriteFaultsTest, EintrIsRetried) { EveryCall(Fault::kEintr, EINTR, 0, "EINTR"); }
TEST_F(WriteFaultsTest, ShortWriteIsRetried) { EveryCall(Fault::kShortWrite, 0, 0, "short write"); }

// Only the calls that are fdatasync or close fail; the recording makes a
// few of each (sync at every volume switch, and at close).
TEST_F(WriteFaultsTest, FailingFsync) { EveryCall(Fault::kFsync, EIO, 0, "fdatasync", 2); }
TEST_F(WriteFaultsTest, FailingClose) { EveryCall(Fault::kClose, EIO, 0, "close", 3); }

}  // namespace
}  // namespace mmvlog::archiver

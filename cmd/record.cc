// mmvlog record: the recording daemon. Records MMV files into PCP archives
// in a directory, a new archive per period (daily, pmlogger_daily style
// names YYYYMMDD.HH.MM), optionally compressing finished volumes and
// deleting old archives. SIGTERM/SIGINT finish the current record and close
// the archive; SIGHUP starts a new volume, as pmlogger does.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "archiver/archive_naming.h"
#include "archiver/compressor.h"
#include "archiver/posix_file.h"
#include "archiver/record_loop.h"
#include "archiver/recorder.h"
#include "archiver/retention.h"
#include "cmd/common.h"
#include "cmd/recording_flags.h"
#include "cmd/subcommand.h"

ABSL_FLAG(std::string, archive_dir, "/var/log/pcp/mmvlog",
          "directory for the archives (created, with its parents, if missing)");
ABSL_FLAG(std::string, archive_name, "",
          "archive base name in --archive_dir (default: the start time, YYYYMMDD.HH.MM, "
          "as pmlogger_daily; a new one each period)");
ABSL_FLAG(std::string, period, "1day",
          "start a new archive every period (at local midnight for 1day); 0 for never");
ABSL_FLAG(bool, utc, false, "name archives and cut periods in UTC instead of local time");
ABSL_FLAG(bool, compress, false,
          "zstd-compress each finished volume to .N.zst (PCP reads these from 6.3.2 on)");
// 8: archiver::kDefaultCompressionLevel (why: archiver/compress.h).
ABSL_FLAG(int, compress_level, 8, "zstd level for --compress (1-19)");
ABSL_FLAG(std::string, retain_age, "", "delete archives older than this (e.g. 14days)");
ABSL_FLAG(std::string, retain_size, "", "delete the oldest archives beyond this total (e.g. 10G)");
ABSL_FLAG(std::string, until, "",
          "stop at this local time, \"YYYY-MM-DD HH:MM[:SS]\" or \"HH:MM\" (today or tomorrow)");
ABSL_FLAG(std::string, pidfile, "", "write the process id to this file while running");
ABSL_FLAG(bool, sync, false, "fdatasync volumes and metadata at each volume switch and close");

namespace mmvlog::cmd {
namespace {

int Usage(const std::string& what) {
  std::fprintf(stderr, "mmvlog record: %s\n", what.c_str());
  return kExitUsage;
}

absl::StatusOr<absl::Time> ParseUntil(const std::string& text, absl::Time now) {
  std::string err;
  absl::Time t;
  const absl::TimeZone tz = absl::LocalTimeZone();
  for (const char* fmt : {"%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"}) {
    if (absl::ParseTime(fmt, text, tz, &t, &err)) return t;
  }
  for (const char* fmt : {"%H:%M:%S", "%H:%M"}) {
    absl::Time tod;
    if (absl::ParseTime(fmt, text, absl::UTCTimeZone(), &tod, &err)) {
      const absl::CivilDay today = absl::ToCivilDay(now, tz);
      absl::Time candidate = absl::FromCivil(absl::CivilSecond(today), tz) +
                             (tod - absl::UnixEpoch());
      if (candidate <= now) candidate += absl::Hours(24);
      return candidate;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "bad --until '", text, "': use \"YYYY-MM-DD HH:MM[:SS]\" or \"HH:MM\""));
}

}  // namespace

int RunRecord(const Invocation& inv) {
  if (!inv.command.empty()) return Usage("takes no command; did you mean 'mmvlog capture'?");
  absl::StatusOr<RecordingSetup> setup = RecordingFromFlags(inv.args);
  if (!setup.ok()) return Usage(std::string(setup.status().message()));
  const absl::Time now = absl::Now();
  if (!absl::GetFlag(FLAGS_until).empty()) {
    absl::StatusOr<absl::Time> until = ParseUntil(absl::GetFlag(FLAGS_until), now);
    if (!until.ok()) return Usage(std::string(until.status().message()));
    setup->limits.until = *until;
  }
  absl::Duration period = absl::ZeroDuration();
  if (absl::GetFlag(FLAGS_period) != "0") {
    absl::StatusOr<absl::Duration> p = ParsePcpInterval(absl::GetFlag(FLAGS_period));
    if (!p.ok()) return Usage(absl::StrCat("--period: ", p.status().message()));
    period = *p;
  }
  archiver::RetentionPolicy retention;
  if (!absl::GetFlag(FLAGS_retain_age).empty()) {
    absl::StatusOr<absl::Duration> a = ParsePcpInterval(absl::GetFlag(FLAGS_retain_age));
    if (!a.ok()) return Usage(absl::StrCat("--retain_age: ", a.status().message()));
    retention.max_age = *a;
  }
  if (!absl::GetFlag(FLAGS_retain_size).empty()) {
    // Reuse the volume size syntax.
    std::string s = absl::GetFlag(FLAGS_retain_size);
    uint64_t mult = 1;
    const char last = s.empty() ? 0 : s.back();
    if (last == 'K' || last == 'k') mult = 1ull << 10;
    if (last == 'M' || last == 'm') mult = 1ull << 20;
    if (last == 'G' || last == 'g') mult = 1ull << 30;
    if (mult != 1) s.pop_back();
    uint64_t n;
    if (!absl::SimpleAtoi(s, &n) || n == 0) {
      return Usage("bad --retain_size: use a number with K, M or G, e.g. 10G");
    }
    retention.max_total_bytes = n * mult;
  }
  const bool utc = absl::GetFlag(FLAGS_utc);
  const std::string dir = absl::GetFlag(FLAGS_archive_dir);
  // Create the directory and any missing parents (mkdir -p).
  for (size_t at = dir.find('/', 1); at != std::string::npos; at = dir.find('/', at + 1)) {
    (void)::mkdir(dir.substr(0, at).c_str(), 0755);
  }
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "mmvlog record: cannot create archive directory %s: %s\n", dir.c_str(),
                 std::strerror(errno));
    return kExitFailure;
  }
  // One recorder per archive directory.
  const std::string lock_path = absl::StrCat(dir, "/.mmvlog.lock");
  const int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    std::string holder;
    if (lock_fd >= 0) {
      char buf[32] = {};
      if (::pread(lock_fd, buf, sizeof(buf) - 1, 0) > 0) holder = absl::StrCat(" (pid ", buf, ")");
    }
    std::fprintf(stderr,
                 "mmvlog record: another mmvlog record%s is writing to %s; stop it or use "
                 "another --archive_dir\n",
                 holder.c_str(), dir.c_str());
    return kExitFailure;
  }
  const std::string pid_text = absl::StrCat(::getpid());
  // Best effort (the lock holds either way). A (void) cast does not silence
  // warn_unused_result, which -c opt's _FORTIFY_SOURCE puts on pwrite.
  if (::ftruncate(lock_fd, 0) == 0 &&
      ::pwrite(lock_fd, pid_text.data(), pid_text.size(), 0) < 0) {
  }
  const std::string pidfile = absl::GetFlag(FLAGS_pidfile);
  if (!pidfile.empty()) {
    std::vector<uint8_t> bytes(pid_text.begin(), pid_text.end());
    bytes.push_back('\n');
    if (absl::Status s = archiver::WriteFileAtomically(pidfile, bytes); !s.ok()) {
      std::fprintf(stderr, "mmvlog record: --pidfile: %s\n", s.ToString().c_str());
      return kExitFailure;
    }
  }

  const std::string fixed_name = absl::GetFlag(FLAGS_archive_name);
  auto base_for = [&](absl::Time t) {
    return absl::StrCat(dir, "/", fixed_name.empty() ? archiver::ArchiveNameAt(t, utc) : fixed_name);
  };
  archiver::RecorderOptions opts = setup->recorder;
  opts.archive_base = base_for(now);
  opts.archive.sync_on_switch = absl::GetFlag(FLAGS_sync);
  opts.resume = true;  // recovery runs when recording resumes into the same archive
  archiver::Recorder recorder(opts, LogLine);
  std::unique_ptr<archiver::BackgroundCompressor> compressor;
  if (absl::GetFlag(FLAGS_compress)) {
    compressor = std::make_unique<archiver::BackgroundCompressor>(
        absl::GetFlag(FLAGS_compress_level), LogLine);
  }
  InstallStopSignals();
  LogLine(archiver::LogLevel::kInfo,
          absl::StrCat("mmvlog record (pid ", ::getpid(), ") every ",
                       absl::FormatDuration(setup->limits.interval), ", MMV files in ",
                       opts.mmv_dir.empty() ? "(none)" : opts.mmv_dir, ", archives in ", dir));

  absl::Time next_period =
      period > absl::ZeroDuration() && fixed_name.empty()
          ? archiver::NextPeriodStart(now, period, utc)
          : absl::InfiniteFuture();
  auto housekeeping = [&] {
    if (compressor) {
      for (std::string& v : recorder.TakeFinishedVolumes()) compressor->Enqueue(std::move(v));
    }
  };
  archiver::LoopHooks hooks;
  hooks.now = [] { return absl::Now(); };
  hooks.wait_until = [](absl::Time deadline) { (void)SleepUntil(deadline); };
  hooks.poll = [&] {
    if (g_stop.load()) return archiver::LoopEvent::kStop;
    const absl::Time t = absl::Now();
    if (t >= next_period) {
      const std::string base = base_for(t);
      LogLine(archiver::LogLevel::kInfo, absl::StrCat("new period: next archive ", base));
      if (absl::Status s = recorder.StartNewArchive(base); !s.ok()) {
        LogLine(archiver::LogLevel::kError, s.ToString());
      }
      next_period = archiver::NextPeriodStart(t, period, utc);
      housekeeping();
      if (retention.max_age != absl::InfiniteDuration() || retention.max_total_bytes > 0) {
        (void)archiver::ApplyRetention(dir, retention, t, base, LogLine);
      }
    }
    if (g_new_volume.exchange(false)) {
      LogLine(archiver::LogLevel::kInfo, "SIGHUP: new volume");
      return archiver::LoopEvent::kNewVolume;
    }
    return archiver::LoopEvent::kNone;
  };
  hooks.on_sample = housekeeping;
  if (retention.max_age != absl::InfiniteDuration() || retention.max_total_bytes > 0) {
    (void)archiver::ApplyRetention(dir, retention, now, opts.archive_base, LogLine);
  }
  archiver::LoopStats stats;
  absl::Status status = archiver::RunRecordLoop(recorder, setup->limits, hooks, &stats);
  absl::Status closed = recorder.Close();
  if (status.ok()) status = closed;
  housekeeping();
  if (compressor) compressor->Drain();
  if (!pidfile.empty()) ::unlink(pidfile.c_str());
  const auto& st = recorder.stats();
  LogLine(archiver::LogLevel::kInfo, absl::StrCat("schedule: ", stats.Summary()));
  LogLine(status.ok() ? archiver::LogLevel::kInfo : archiver::LogLevel::kError,
          absl::StrCat(status.ok() ? "stopped: " : absl::StrCat("stopped on error: ", status.message(), ": "),
                       st.samples, " samples, ", st.values, " values, ", st.marks, " marks, ",
                       stats.skipped_ticks, " missed ticks, ", st.dropped, " dropped; last archive ",
                       recorder.current_archive()));
  return status.ok() ? kExitOk : kExitFailure;
}

}  // namespace mmvlog::cmd

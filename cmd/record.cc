// mmvlog record: the recording daemon. Records MMV files into PCP archives
// named as pmlogger names them: the ARCHIVE argument (or --archive-dir and
// --archive-name) may hold strftime(3) conversions, by default
// pmlogger_daily's %Y%m%d.%H.%M, and then a new archive starts each period
// (a day by default). Optionally compresses finished volumes and deletes old
// archives. SIGTERM/SIGINT finish the current record and close the archive;
// SIGHUP starts a new volume, as pmlogger does, and reads -c's
// configuration again.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "archiver/daemon/sd_notify.h"
#include "archiver/push/live_pusher.h"
#include "archiver/push/push_url.h"
#include "archiver/store/archive_naming.h"
#include "archiver/store/compress.h"
#include "archiver/store/compressor.h"
#include "archiver/store/posix_file.h"
#include "archiver/record/record_loop.h"
#include "archiver/record/recorder.h"
#include "archiver/record/recording.h"
#include "archiver/store/retention.h"
#include "cmd/cli.h"
#include "cmd/common.h"
#include "cmd/push_options.h"
#include "cmd/recording_options.h"
#include "cmd/subcommand.h"
#include "format/text/pcp_interval.h"
#include "format/text/size_spec.h"

namespace mmvlog::cmd {
namespace {

// PCP's layout, one folder per host as pmlogger_daily keeps them:
// $PCP_LOG_DIR/mmvlog/HOST (/var/log/pcp/mmvlog/HOST).
std::string DefaultArchiveDir() {
  struct utsname u {};
  const std::string host = ::uname(&u) == 0 ? u.nodename : "localhost";
  return absl::StrCat(PcpConfValue("PCP_LOG_DIR", "/var/log/pcp"), "/mmvlog/", host);
}

struct RecordFlags {
  RecordingFlags common;
  std::string archive_dir;   // "" for DefaultArchiveDir()
  std::string archive_name;  // "" for archiver::kDailyArchiveTemplate
  std::string period = "1day";
  bool utc = false;
  std::string compress;   // "" (none), "xz", "zstd" or "auto"
  int compress_level = 0;  // 0: the codec's default
  std::string retain_age;
  std::string retain_size;
  std::string until;  // the old --until: now -T
  std::string pidfile;
  bool sync = false;
  PushFlags push;  // ARCHIVE is http://HOST[:PORT]
};

void AddRecordOptions(CLI::App* app, RecordFlags* f) {
  AddRecordingOptions(app, &f->common);
  const char* kArchive = "Archive";
  app->add_option("--archive-dir", f->archive_dir,
                  "directory for the archives, created with its parents if missing (when no "
                  "ARCHIVE is given)")
      ->type_name("DIR")
      ->default_str("$PCP_LOG_DIR/mmvlog/HOST")
      ->group(kArchive);
  app->add_option("--archive-name", f->archive_name,
                  "archive base name in --archive-dir; strftime(3) conversions make a new "
                  "archive each --period")
      ->type_name("TEMPLATE")
      ->default_str(archiver::kDailyArchiveTemplate)
      ->group(kArchive);
  app->add_option("--period", f->period,
                  "start a new archive this often when the name has strftime conversions (at "
                  "local midnight for 1day; 0: never)")
      ->type_name("INTERVAL")
      ->capture_default_str()
      ->group(kArchive);
  app->add_flag("--utc", f->utc, "name archives and cut periods in UTC instead of local time")
      ->group(kArchive);
  app->add_flag("--compress{auto}", f->compress,
                "compress each finished volume: xz (.N.xz, which every PCP reads, as "
                "pmlogger_daily writes), zstd (.N.zst, PCP 6.3.2 on), or auto (what the PCP "
                "installed here reads: PCP_VERSION in pcp.conf; xz without PCP)")
      ->type_name("[=xz|zstd|auto]")
      ->check(CLI::IsMember({"xz", "zstd", "auto"}))
      ->group(kArchive);
  app->add_option("--compress-level", f->compress_level,
                  "the codec's level for --compress (xz 0-9, default 2; zstd 1-19, default 8)")
      ->type_name("LEVEL")
      ->check(CLI::Range(0, 19))
      ->group(kArchive);
  app->add_option("--retain-age", f->retain_age, "delete archives older than this (14days)")
      ->type_name("INTERVAL")
      ->group(kArchive);
  app->add_option("--retain-size", f->retain_size,
                  "delete the oldest archives beyond this total size (10G; 0: no limit)")
      ->type_name("SIZE")
      ->group(kArchive);
  app->add_flag("--sync", f->sync,
                "fdatasync volumes and metadata at each volume switch and at close")
      ->group(kArchive);
  app->add_option("--pidfile", f->pidfile, "write the process id to this file while running")
      ->type_name("FILE")
      ->group("Running");
  AddRecordPushOptions(app, &f->push);
  HiddenAlias(app, "--archive_dir", f->archive_dir);
  HiddenAlias(app, "--archive_name", f->archive_name);
  HiddenAlias(app, "--compress_level", f->compress_level);
  HiddenAlias(app, "--retain_age", f->retain_age);
  HiddenAlias(app, "--retain_size", f->retain_size);
  HiddenAlias(app, "--until", f->until);
}

// "dir/name" of `archive`: the directory ("." when none) and the base name.
void SplitPath(const std::string& archive, std::string* dir, std::string* name) {
  const size_t slash = archive.rfind('/');
  *dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : archive.substr(0, slash));
  *name = slash == std::string::npos ? archive : archive.substr(slash + 1);
}

int RunRecord(RecordFlags& f, const Invocation& inv) {
  if (!inv.command.empty()) {
    return UsageError("record", "takes no command after --; did you mean 'mmvlog capture'?");
  }
  if (!f.until.empty() && f.common.finish.empty()) f.common.finish = f.until;
  const absl::Time now = absl::Now();
  absl::StatusOr<RecordingSetup> setup = RecordingFromFlags(f.common, now);
  if (!setup.ok()) return UsageError("record", setup.status().message());
  if (setup->check_only) return CheckConfiguration(*setup);
  // pmlogger 7's http://HOST[:PORT]: recorded into a local archive (--local,
  // else one in the spool) that a LivePusher follows.
  std::optional<RecordPush> push;
  if (archiver::IsPushUrl(setup->archive)) {
    absl::StatusOr<RecordPush> p = RecordPushFromFlags(f.push, setup->archive);
    if (!p.ok()) return UsageError("record", p.status().message());
    push = std::move(*p);
    if (push->spool_only && (!f.compress.empty() || !f.retain_age.empty() || !f.retain_size.empty())) {
      return UsageError("record", "--compress and --retain-* need --local: without it the "
                                  "archive is a spool, removed as it is pushed");
    }
    setup->archive = push->local_archive;
    // The spool archive's volumes are removed as they are pushed: a few of
    // them make the limit.
    auto& volume = setup->recorder.archive.max_volume_bytes;
    if (push->spool_only && volume == 0 && setup->recorder.volume_samples == 0) {
      volume = std::max<uint64_t>(1 << 20, push->pusher.push.spool_limit / 4);
    }
  } else if (AnyPushFlag(f.push)) {
    return UsageError("record", "--local, --spool, --unix, --user and --credentials are for "
                                "pushing: ARCHIVE is then http://HOST[:PORT]");
  }
  std::string dir = f.archive_dir.empty() ? DefaultArchiveDir() : f.archive_dir;
  std::string name_template =
      f.archive_name.empty() ? archiver::kDailyArchiveTemplate : f.archive_name;
  if (!setup->archive.empty()) {
    if (!f.archive_dir.empty() || !f.archive_name.empty()) {
      return UsageError("record", absl::StrCat("archive ", setup->archive,
                                               " given twice: name it as the last argument or "
                                               "with --archive-dir/--archive-name, not both"));
    }
    SplitPath(setup->archive, &dir, &name_template);
  }
  if (name_template.empty() || name_template.find('/') != std::string::npos) {
    return UsageError("record", absl::StrCat("bad archive name '", name_template,
                                             "': a base name such as %Y%m%d.%H.%M"));
  }
  archiver::Codec codec = archiver::Codec::kNone;
  if (f.compress == "xz") codec = archiver::Codec::kXz;
  if (f.compress == "zstd") codec = archiver::Codec::kZstd;
  if (f.compress == "auto") codec = archiver::CodecPcpReads(PcpConfValue("PCP_VERSION", ""));
  if (codec == archiver::Codec::kXz && f.compress_level > 9) {
    return UsageError("record", "--compress-level: xz's levels are 0-9");
  }
  absl::Duration period = absl::ZeroDuration();
  if (f.period != "0") {
    absl::StatusOr<absl::Duration> p = format::ParsePcpInterval(f.period);
    if (!p.ok()) return UsageError("record", absl::StrCat("--period: ", p.status().message()));
    period = *p;
  }
  archiver::RetentionPolicy retention;
  if (!f.retain_age.empty()) {
    absl::StatusOr<absl::Duration> a = format::ParsePcpInterval(f.retain_age);
    if (!a.ok()) return UsageError("record", absl::StrCat("--retain-age: ", a.status().message()));
    retention.max_age = *a;
  }
  if (!f.retain_size.empty() && f.retain_size != "0") {  // 0: no limit, as PCP_SPACELIMIT
    absl::StatusOr<uint64_t> bytes = format::ParseByteSize(f.retain_size);
    if (!bytes.ok()) {
      return UsageError("record", absl::StrCat("--retain-size: ", bytes.status().message()));
    }
    retention.max_total_bytes = *bytes;
  }
  if (!f.common.log_file.empty()) {
    if (absl::Status s = SetLogFile(f.common.log_file); !s.ok()) {
      std::fprintf(stderr, "mmvlog record: -l: %s\n", std::string(s.message()).c_str());
      return kExitFailure;
    }
  }
  const bool utc = f.utc;
  // Create the directory and any missing parents (mkdir -p).
  for (size_t at = dir.find('/', 1); at != std::string::npos; at = dir.find('/', at + 1)) {
    (void)::mkdir(dir.substr(0, at).c_str(), 0755);
  }
  const bool created = ::mkdir(dir.c_str(), 0755) == 0;
  if (!created && errno != EEXIST) {
    std::fprintf(stderr, "mmvlog record: cannot create archive directory %s: %s\n", dir.c_str(),
                 std::strerror(errno));
    return kExitFailure;
  }
  // An archive directory made for -U's user belongs to that user.
  if (created && setup->user && ::chown(dir.c_str(), setup->user->uid, setup->user->gid) != 0) {
    std::fprintf(stderr, "mmvlog record: cannot give %s to %s: %s\n", dir.c_str(),
                 setup->user->name.c_str(), std::strerror(errno));
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
                 "another archive directory\n",
                 holder.c_str(), dir.c_str());
    return kExitFailure;
  }
  if (setup->user && ::fchown(lock_fd, setup->user->uid, setup->user->gid) != 0) {
    // Not fatal: the lock is held; only a later run as the user may need it.
  }
  const std::string pid_text = absl::StrCat(::getpid());
  // Best effort (the lock holds either way). A (void) cast does not silence
  // warn_unused_result, which -c opt's _FORTIFY_SOURCE puts on pwrite.
  if (::ftruncate(lock_fd, 0) == 0 &&
      ::pwrite(lock_fd, pid_text.data(), pid_text.size(), 0) < 0) {
  }
  const std::string& pidfile = f.pidfile;
  if (!pidfile.empty()) {
    std::vector<uint8_t> bytes(pid_text.begin(), pid_text.end());
    bytes.push_back('\n');
    if (absl::Status s = archiver::WriteFileAtomically(pidfile, bytes); !s.ok()) {
      std::fprintf(stderr, "mmvlog record: --pidfile: %s\n", s.ToString().c_str());
      return kExitFailure;
    }
  }

  const bool periodic = archiver::HasTimeConversions(name_template);
  auto base_for = [&](absl::Time t) {
    return absl::StrCat(dir, "/", archiver::ArchiveNameFromTemplate(name_template, t, utc));
  };
  archiver::RecorderOptions opts = setup->recorder;
  // A recording is followed as it grows (pmproxy's discovery): its new
  // archives are written so that no result is missed (Recorder::LiveStep).
  opts.live = !push.has_value();  // a pushed archive is not discovered
  opts.archive_base = base_for(now);
  opts.archive.sync_on_switch = f.sync;
  opts.resume = true;  // recovery runs when recording resumes into the same archive
  // The MMV directory watched, the waits on it: as capture records
  // (archiver/record/recording.h).
  archiver::Recording recording(opts, LogLine);
  archiver::Recorder& recorder = recording.recorder();
  std::unique_ptr<archiver::BackgroundCompressor> compressor;
  if (codec != archiver::Codec::kNone) {
    compressor = std::make_unique<archiver::BackgroundCompressor>(codec, f.compress_level, LogLine);
  }
  InstallStopSignals();
  LogLine(archiver::LogLevel::kInfo,
          absl::StrCat("mmvlog record (pid ", ::getpid(), ") every ",
                       absl::FormatDuration(setup->limits.interval), ", MMV files in ",
                       opts.mmv_dir.empty() ? "(none)" : opts.mmv_dir, ", archives in ", dir,
                       setup->note.empty() ? "" : absl::StrCat("; note: ", setup->note)));
  if (absl::Status s = BecomeUser(*setup, recorder); !s.ok()) {
    LogLine(archiver::LogLevel::kError, std::string(s.message()));
    return kExitFailure;
  }

  absl::Time next_period =
      period > absl::ZeroDuration() && periodic
          ? archiver::NextPeriodStart(now, period, utc)
          : absl::InfiniteFuture();
  auto housekeeping = [&] {
    if (compressor) {
      for (std::string& v : recorder.TakeFinishedVolumes()) compressor->Enqueue(std::move(v));
    }
  };
  std::unique_ptr<archiver::LivePusher> pusher;
  if (push.has_value()) {
    pusher = std::make_unique<archiver::LivePusher>(push->pusher, LogLine);
    if (absl::Status s = StartPusher(*pusher); !s.ok()) {
      LogLine(archiver::LogLevel::kError, absl::StrCat("push: ", s.message()));
      return kExitFailure;
    }
    LogLine(archiver::LogLevel::kInfo,
            absl::StrCat("pushing to ", push->pusher.endpoint.ToString(), " (spool ",
                         push->pusher.state_path, ", limit ", push->pusher.push.spool_limit,
                         " bytes)"));
  }
  // systemd (Type=notify): READY once the directory is watched and the
  // archive named, STATUS as samples go, WATCHDOG from this loop at half of
  // WATCHDOG_USEC whatever the interval (the waits are cut to it), STOPPING.
  const archiver::SdNotifier notify = archiver::SdNotifier::FromEnvironment();
  const absl::Duration ping_every = notify.watchdog_every();
  absl::Time next_ping = absl::InfinitePast(), next_status = absl::InfinitePast();
  auto notify_log = [](const absl::Status& s) {
    if (!s.ok()) LogLine(archiver::LogLevel::kWarning, std::string(s.message()));
  };
  auto ping = [&](absl::Time t) {
    // The waits end at next_ping (below); a wake-up a millisecond early
    // for it still pings.
    if (ping_every <= absl::ZeroDuration() || t + absl::Milliseconds(1) < next_ping) return;
    notify_log(notify.Watchdog());
    next_ping = t + ping_every;
  };
  archiver::LoopHooks hooks;
  hooks.now = [] { return absl::Now(); };
  recording.SetWaits(
      &hooks, setup->limits, [](absl::Time deadline) { (void)SleepUntil(deadline); },
      [&] {
        if (ping_every <= absl::ZeroDuration()) return absl::InfiniteDuration();
        return std::max(next_ping - absl::Now(), absl::Milliseconds(1));
      });
  hooks.poll = [&] {
    ping(absl::Now());
    if (g_stop.load()) return archiver::LoopEvent::kStop;
    if (setup->watch_pid > 0 && ProcessGone(setup->watch_pid)) {
      LogLine(archiver::LogLevel::kInfo, absl::StrCat("process ", setup->watch_pid, " has exited"));
      return archiver::LoopEvent::kFinalSample;
    }
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
      notify_log(notify.Reloading());
      if (!setup->config.empty()) {
        // Read the configuration again; a broken one keeps what runs.
        absl::StatusOr<std::shared_ptr<archiver::LogPlan>> plan = ReloadPlan(*setup);
        if (plan.ok()) {
          recorder.SetPlan(*plan);
          LogLine(archiver::LogLevel::kInfo,
                  absl::StrCat("SIGHUP: configuration ", setup->config, " read again"));
        } else {
          LogLine(archiver::LogLevel::kError,
                  absl::StrCat("SIGHUP: ", plan.status().message(),
                               "; the configuration read before stays in force"));
        }
      }
      LogLine(archiver::LogLevel::kInfo, "SIGHUP: new volume");
      notify_log(notify.Ready(absl::StrCat("recording into ", recorder.current_archive())));
      return archiver::LoopEvent::kNewVolume;
    }
    return archiver::LoopEvent::kNone;
  };
  hooks.on_sample = [&] {
    housekeeping();
    if (pusher) pusher->Follow(recorder.current_archive());
    if (notify.enabled()) {
      const absl::Time t = absl::Now();
      ping(t);
      if (t >= next_status) {
        notify_log(notify.Status(
            recorder.current_archive().empty()
                ? absl::StrCat("waiting for MMV files in ", opts.mmv_dir)
                : absl::StrCat(recorder.stats().samples, " samples into ", recorder.current_archive())));
        next_status = t + absl::Seconds(1);
      }
    }
  };
  if (retention.max_age != absl::InfiniteDuration() || retention.max_total_bytes > 0) {
    (void)archiver::ApplyRetention(dir, retention, now, opts.archive_base, LogLine);
  }
  notify_log(notify.Ready(absl::StrCat("watching ", opts.mmv_dir.empty() ? "(none)" : opts.mmv_dir,
                                        ", recording into ", opts.archive_base)));
  archiver::LoopStats stats;
  absl::Status status = archiver::RunRecordLoop(recorder, setup->limits, hooks, &stats);
  notify_log(notify.Stopping());
  absl::Status closed = recorder.Close();
  if (status.ok()) status = closed;
  recorder.FinishLive();
  housekeeping();
  if (pusher) {
    bool all_sent = false;
    const archiver::Pusher::Totals t = pusher->Stop(absl::Seconds(10), &all_sent);
    LogLine(all_sent ? archiver::LogLevel::kInfo : archiver::LogLevel::kWarning,
            absl::StrCat("push: ", t.records, " records sent (", t.bytes, " bytes, ",
                         t.remote_archives, " remote archives, ", t.dropped_records,
                         " given up)", all_sent ? "" : "; the rest waits in the spool for the next run"));
  }
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

}  // namespace

Runner DefineRecord(CLI::App* app) {
  auto f = std::make_shared<RecordFlags>();
  AddRecordOptions(app, f.get());
  return [f](const Invocation& inv) { return RunRecord(*f, inv); };
}

}  // namespace mmvlog::cmd

// mmvlog record: the recording daemon. Records MMV files into PCP archives
// named as pmlogger names them: the ARCHIVE argument (or --archive-dir and
// --archive-name) may hold strftime(3) conversions, by default
// pmlogger_daily's %Y%m%d.%H.%M, and then a new archive starts each period
// (a day by default). Optionally compresses finished volumes and deletes old
// archives. SIGTERM/SIGINT finish the current record and close the archive;
// SIGHUP starts a new volume, as pmlogger does, and reads -c's
// configuration again.
#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "archiver/daemon/recording_daemon.h"
#include "archiver/daemon/sd_notify.h"
#include "archiver/push/push_url.h"
#include "archiver/store/archive_naming.h"
#include "archiver/store/compress.h"
#include "archiver/record/recorder.h"
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
  PushFlags push;  // ARCHIVE is http[s]://HOST[:PORT]
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

// The daemon's options from the flags and the common setup (which it may
// change: the push's local archive). InvalidArgument for a usage error.
absl::StatusOr<archiver::DaemonOptions> DaemonFromFlags(const RecordFlags& f,
                                                         RecordingSetup& setup) {
  archiver::DaemonOptions d;
  // pmlogger 7's http://HOST[:PORT]: recorded into a local archive (--local,
  // else one in the spool) that a LivePusher follows.
  if (archiver::IsPushUrl(setup.archive)) {
    absl::StatusOr<RecordPush> p = RecordPushFromFlags(f.push, setup.archive);
    if (!p.ok()) return p.status();
    for (const std::string& w : p->warnings) LogLine(archiver::LogLevel::kWarning, w);
    if (p->spool_only && (!f.compress.empty() || !f.retain_age.empty() || !f.retain_size.empty())) {
      return absl::InvalidArgumentError("--compress and --retain-* need --local: without it the "
                                        "archive is a spool, removed as it is pushed");
    }
    setup.archive = p->local_archive;
    // The spool archive's volumes are removed as they are pushed: a few of
    // them make the limit.
    auto& volume = setup.recorder.archive.max_volume_bytes;
    if (p->spool_only && volume == 0 && setup.recorder.volume_samples == 0) {
      volume = std::max<uint64_t>(1 << 20, p->pusher.push.spool_limit / 4);
    }
    d.push = p->pusher;
  } else if (AnyPushFlag(f.push)) {
    return absl::InvalidArgumentError("--local, --spool, --unix, --user, --credentials and the TLS "
                                      "options are for pushing: ARCHIVE is then "
                                      "http[s]://HOST[:PORT]");
  }
  d.dir = f.archive_dir.empty() ? DefaultArchiveDir() : f.archive_dir;
  d.name_template = f.archive_name.empty() ? archiver::kDailyArchiveTemplate : f.archive_name;
  if (!setup.archive.empty()) {
    if (!f.archive_dir.empty() || !f.archive_name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("archive ", setup.archive, " given twice: name it as the last argument or "
                                                  "with --archive-dir/--archive-name, not both"));
    }
    SplitPath(setup.archive, &d.dir, &d.name_template);
  }
  if (d.name_template.empty() || d.name_template.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("bad archive name '", d.name_template,
                                                   "': a base name such as %Y%m%d.%H.%M"));
  }
  if (f.compress == "xz") d.codec = archiver::Codec::kXz;
  if (f.compress == "zstd") d.codec = archiver::Codec::kZstd;
  if (f.compress == "auto") d.codec = archiver::CodecPcpReads(PcpConfValue("PCP_VERSION", ""));
  if (d.codec == archiver::Codec::kXz && f.compress_level > 9) {
    return absl::InvalidArgumentError("--compress-level: xz's levels are 0-9");
  }
  d.compress_level = f.compress_level;
  d.period = absl::ZeroDuration();
  if (f.period != "0") {
    absl::StatusOr<absl::Duration> p = format::ParsePcpInterval(f.period);
    if (!p.ok()) return absl::InvalidArgumentError(absl::StrCat("--period: ", p.status().message()));
    d.period = *p;
  }
  if (!f.retain_age.empty()) {
    absl::StatusOr<absl::Duration> a = format::ParsePcpInterval(f.retain_age);
    if (!a.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--retain-age: ", a.status().message()));
    }
    d.retention.max_age = *a;
  }
  if (!f.retain_size.empty() && f.retain_size != "0") {  // 0: no limit, as PCP_SPACELIMIT
    absl::StatusOr<uint64_t> bytes = format::ParseByteSize(f.retain_size);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--retain-size: ", bytes.status().message()));
    }
    d.retention.max_total_bytes = *bytes;
  }
  d.recorder = setup.recorder;
  d.recorder.archive.sync_on_switch = f.sync;
  d.limits = setup.limits;
  d.utc = f.utc;
  d.pidfile = f.pidfile;
  if (setup.user) d.owner = archiver::DirOwner{setup.user->uid, setup.user->gid};
  d.watch_pid = setup.watch_pid;
  d.note = setup.note;
  d.config = setup.config;
  d.notify = archiver::SdNotifier::FromEnvironment();
  return d;
}

int RunRecord(RecordFlags& f, const Invocation& inv) {
  if (!inv.command.empty()) {
    return UsageError("record", "takes no command after --; did you mean 'mmvlog capture'?");
  }
  if (!f.until.empty() && f.common.finish.empty()) f.common.finish = f.until;
  absl::StatusOr<RecordingSetup> setup = RecordingFromFlags(f.common, absl::Now());
  if (!setup.ok()) return UsageError("record", setup.status().message());
  if (setup->check_only) return CheckConfiguration(*setup);
  absl::StatusOr<archiver::DaemonOptions> daemon = DaemonFromFlags(f, *setup);
  if (!daemon.ok()) return UsageError("record", daemon.status().message());
  if (!f.common.log_file.empty()) {
    if (absl::Status s = SetLogFile(f.common.log_file); !s.ok()) {
      std::fprintf(stderr, "mmvlog record: -l: %s\n", std::string(s.message()).c_str());
      return kExitFailure;
    }
  }
  archiver::DaemonHooks hooks;
  hooks.sleep_until = [](absl::Time deadline) { (void)SleepUntil(deadline); };
  hooks.stop_requested = [] { return g_stop.load(); };
  hooks.take_reload = [] { return g_new_volume.exchange(false); };
  hooks.process_gone = [](pid_t pid) { return ProcessGone(pid); };
  hooks.become_user = [&setup](archiver::Recorder& r) { return BecomeUser(*setup, r); };
  if (!setup->config.empty()) hooks.reload_plan = [&setup] { return ReloadPlan(*setup); };
  InstallStopSignals();
  bool started = false;
  absl::Status status = archiver::RunRecordingDaemon(*daemon, hooks, LogLine, &started);
  if (!status.ok() && !started) {
    // Before recording began (the directory, its lock, the pidfile, -U):
    // said here; once it began, the daemon's last words say it.
    std::fprintf(stderr, "mmvlog record: %s\n", std::string(status.message()).c_str());
  }
  return status.ok() ? kExitOk : kExitFailure;
}

}  // namespace

Runner DefineRecord(CLI::App* app) {
  auto f = std::make_shared<RecordFlags>();
  AddRecordOptions(app, f.get());
  return [f](const Invocation& inv) { return RunRecord(*f, inv); };
}

}  // namespace mmvlog::cmd

#include "cmd/recording_options.h"

#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "archiver/session/host_identity.h"
#include "archiver/store/time_zone.h"
#include "cmd/cli.h"
#include "cmd/common.h"
#include "cmd/config_file.h"
#include "format/text/pcp_interval.h"
#include "format/text/pcp_time.h"
#include "format/text/size_spec.h"

namespace mmvlog::cmd {

// One piece: a list of option declarations.
void AddRecordingOptions(CLI::App* app, RecordingFlags* f) {
  const char* kSampling = "Sampling (as pmlogger)";
  app->add_option("-t,--interval", f->interval,
                  "sample this often: PCP's interval syntax (10sec, 1.5min, 250msec, plain "
                  "seconds); with -c, what \"default\" means (else 60sec)")
      ->type_name("INTERVAL")
      ->default_str("1sec")
      ->group(kSampling);
  app->add_option("-s,--size", f->size,
                  "stop after this many samples (100), archive bytes (10M, 2Gbyte) or this long "
                  "(10mins)")
      ->type_name("ENDSIZE")
      ->group(kSampling);
  app->add_option("-T,--finish", f->finish,
                  "stop at this time: an interval from now (10mins) or @ a time of day or date "
                  "(@11:30, @\"2026-11-24 18:00\")")
      ->type_name("ENDTIME")
      ->group(kSampling);
  app->add_option("-p,--PID", f->pid, "stop once process PID has exited")
      ->type_name("PID")
      ->group(kSampling);

  const char* kMetrics = "Metrics";
  app->add_option("--mmv-dir", f->mmv_dir,
                  "directory of MMV files, rescanned every sample (default: $PCP_TMP_DIR/mmv as "
                  "PCP finds it: environment, else /etc/pcp.conf, else /var/lib/pcp/tmp)")
      ->type_name("DIR")
      ->group(kMetrics);
  app->add_flag("--no-dir", f->no_dir, "record only the MMV files named as arguments")
      ->group(kMetrics);
  app->add_option("--prefix", f->prefix, "first part of metric names, as the MMV PMDA's prefix")
      ->type_name("NAME")
      ->capture_default_str()
      ->group(kMetrics);
  app->add_option("--include", f->include,
                  "record only metrics whose names match one of these globs (comma separated "
                  "or repeated)")
      ->type_name("GLOB,...")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->group(kMetrics);
  app->add_option("--exclude", f->exclude,
                  "do not record metrics whose names match one of these globs")
      ->type_name("GLOB,...")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->group(kMetrics);
  app->add_option("-c,--config", f->config,
                  "log what this pmlogger configuration asks for: groups, intervals, instances, "
                  "once, %include/%define (read again on SIGHUP)")
      ->type_name("CONFIG")
      ->group(kMetrics);
  app->add_flag("-C,--check", f->check_config,
                "check the configuration against the MMV files there are, print the schedule "
                "and exit")
      ->group(kMetrics);

  const char* kArchive = "Archive";
  app->add_option("-V,--archive-version", f->archive_version,
                  "PCP archive version: 3 (PCP >= 6.2 writes it) or 2 (for PCP < 6.2 readers)")
      ->type_name("VERSION")
      ->capture_default_str()
      ->check(CLI::IsMember({2, 3}))
      ->group(kArchive);
  app->add_option("-v,--volsize", f->volsize,
                  "start a new volume after this many samples (1000), bytes (100M) or this long "
                  "(1hour)")
      ->type_name("VOLSIZE")
      ->group(kArchive);
  app->add_option("-H,--labelhost", f->labelhost,
                  "host name for the archive label, as pmlogger -H (default: this host's)")
      ->type_name("HOSTNAME")
      ->group(kArchive);

  const char* kRunning = "Running";
  app->add_option("-l,--log", f->log_file,
                  "append log lines to this file instead of stderr (- for stdout)")
      ->type_name("LOGFILE")
      ->group(kRunning);
  app->add_option("-m,--note", f->note, "a note for the log's first line (who started this, why)")
      ->type_name("NOTE")
      ->group(kRunning);
  app->add_option("-U,--username", f->user,
                  "when started as root, run as this user once what needs root is open, as "
                  "pmlogger does (pcp)")
      ->type_name("USER")
      ->group(kRunning);
  app->add_flag("--progress,!--no-progress", f->progress,
                "show a progress line when stderr is a terminal (default: on)")
      ->group(kRunning);

  app->add_option("args", f->args, "MMV files to record (besides --mmv-dir), then the archive")
      ->type_name("")
      ->group("");

  // Old spellings: unit files and scripts written for earlier versions.
  HiddenAlias(app, "--mmv_dir", f->mmv_dir);
  HiddenFlagAlias(app, "--no_dir", f->no_dir);
  HiddenAlias(app, "--archive_version", f->archive_version);
  HiddenAlias(app, "--samples", f->samples);
  HiddenAlias(app, "--duration", f->duration);
  HiddenAlias(app, "--volume_size", f->volume_size);
  HiddenAlias(app, "--volume_samples", f->volume_samples);
}

absl::Status BecomeUser(const RecordingSetup& setup, archiver::Recorder& recorder) {
  if (!setup.user) {
    if (::geteuid() == 0) {
      LogLine(archiver::LogLevel::kInfo,
              "running as root; -U pcp runs as the pcp user, as pmlogger does");
    }
    return absl::OkStatus();
  }
  recorder.OpenSources();
  if (absl::Status s = DropPrivileges(*setup.user); !s.ok()) return s;
  LogLine(archiver::LogLevel::kInfo,
          absl::StrCat("running as ", setup.user->name, " (uid ", setup.user->uid, ", gid ",
                       setup.user->gid, ")"));
  return absl::OkStatus();
}

void SplitMmvFilesAndArchive(const std::vector<std::string>& args,
                             std::vector<std::string>* files, std::string* archive) {
  files->assign(args.begin(), args.end());
  archive->clear();
  struct stat st;
  if (!args.empty() && ::stat(args.back().c_str(), &st) != 0) {
    *archive = args.back();
    files->pop_back();
  }
}

absl::StatusOr<std::shared_ptr<archiver::LogPlan>> ReloadPlan(const RecordingSetup& setup) {
  absl::StatusOr<format::LoggerConfig> config = LoadLoggerConfig(setup.config);
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        absl::IsNotFound(config.status()) ? "-c: " : "", config.status().message()));
  }
  if (config->access.has_value()) {
    LogLine(archiver::LogLevel::kInfo,
            absl::StrCat(config->access->ToString(),
                         ": [access] section read and ignored: mmvlog has no pmlc to control"));
  }
  return std::make_shared<archiver::LogPlan>(std::move(*config), setup.default_interval);
}

int CheckConfiguration(const RecordingSetup& setup) {
  archiver::Recorder recorder(setup.recorder, LogLine);
  const std::vector<archiver::OfferedMetric> metrics = recorder.Survey();
  archiver::LogPlan& plan = *setup.recorder.plan;
  for (const std::string& w : plan.Start(metrics)) LogLine(archiver::LogLevel::kWarning, w);
  std::printf("%s", plan.Describe(metrics).c_str());
  return kExitOk;
}

// One piece: pmlogger's options checked in its order, each a few lines.
absl::StatusOr<RecordingSetup> RecordingFromFlags(const RecordingFlags& f, absl::Time now) {
  auto bad = [](absl::string_view option, const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat(option, ": ", s.message()));
  };
  RecordingSetup r;
  if (f.check_config && f.config.empty()) {
    return absl::InvalidArgumentError("-C checks the configuration given with -c CONFIG");
  }
  if (!f.user.empty()) {
    absl::StatusOr<UserIdentity> user = LookUpUser(f.user);
    if (!user.ok()) return user.status();
    if (::geteuid() != 0 && ::geteuid() != user->uid) {
      return absl::InvalidArgumentError(
          absl::StrCat("-U ", f.user, ": only root can run as another user"));
    }
    r.user = *user;
  }
  absl::StatusOr<absl::Duration> interval =
      format::ParsePcpInterval(f.interval.empty() ? "1sec" : f.interval);
  if (!interval.ok()) return bad("-t", interval.status());
  r.limits.interval = *interval;
  if (!f.config.empty()) {
    // pmlogger's "default" is 60 seconds unless -t says otherwise.
    r.default_interval = f.interval.empty() ? absl::Seconds(60) : *interval;
    r.config = f.config;
    r.check_only = f.check_config;
    absl::StatusOr<std::shared_ptr<archiver::LogPlan>> plan = ReloadPlan(r);
    if (!plan.ok()) return plan.status();
    r.recorder.plan = *plan;
  }

  if (!f.size.empty()) {
    absl::StatusOr<format::EndSize> size = format::ParseEndSize(f.size);
    if (!size.ok()) return bad("-s", size.status());
    switch (size->kind) {
      case format::EndSize::kSamples: r.limits.samples = static_cast<int64_t>(size->samples); break;
      case format::EndSize::kBytes: r.limits.max_bytes = size->bytes; break;
      case format::EndSize::kDuration: r.limits.duration = size->duration; break;
    }
  } else if (f.samples < 0) {
    return absl::InvalidArgumentError("--samples must be 0 (no limit) or more");
  } else {
    r.limits.samples = f.samples;
  }
  if (!f.duration.empty()) {
    absl::StatusOr<absl::Duration> d = format::ParsePcpInterval(f.duration);
    if (!d.ok()) return bad("--duration", d.status());
    r.limits.duration = *d;
  }
  if (!f.finish.empty()) {
    absl::StatusOr<absl::Time> until =
        format::ParsePcpTime(f.finish, now, absl::InfiniteFuture(), archiver::LocalPcpTimeZone());
    if (!until.ok()) return bad("-T", until.status());
    if (*until <= now) {
      return absl::InvalidArgumentError(
          absl::StrCat("-T ", f.finish, ": ", absl::FormatTime("%Y-%m-%d %H:%M:%S", *until,
                                                               archiver::LocalPcpTimeZone()),
                       " has passed already"));
    }
    r.limits.until = *until;
  }

  archiver::RecorderOptions& o = r.recorder;
  if (!f.volsize.empty()) {
    absl::StatusOr<format::EndSize> v = format::ParseEndSize(f.volsize);
    if (!v.ok()) return bad("-v", v.status());
    switch (v->kind) {
      case format::EndSize::kSamples: o.volume_samples = v->samples; break;
      case format::EndSize::kBytes: o.archive.max_volume_bytes = v->bytes; break;
      case format::EndSize::kDuration: r.limits.volume_interval = v->duration; break;
    }
  }
  if (!f.volume_size.empty()) {
    absl::StatusOr<uint64_t> bytes = format::ParseByteSize(f.volume_size);
    if (!bytes.ok()) return bad("--volume_size", bytes.status());
    o.archive.max_volume_bytes = *bytes;
  }
  if (f.volume_samples < 0) return absl::InvalidArgumentError("--volume_samples must be 0 or more");
  if (f.volume_samples > 0) o.volume_samples = static_cast<uint64_t>(f.volume_samples);
  if (f.pid < 0) return absl::InvalidArgumentError(absl::StrCat("-p ", f.pid, ": not a process id"));
  if (f.pid > 0) {
    if (::kill(static_cast<pid_t>(f.pid), 0) != 0 && errno == ESRCH) {
      return absl::InvalidArgumentError(absl::StrCat("-p ", f.pid, ": no such process"));
    }
    r.watch_pid = static_cast<pid_t>(f.pid);
  }

  SplitMmvFilesAndArchive(f.args, &o.files, &r.archive);
  if (!f.no_dir) {
    o.mmv_dir = f.mmv_dir.empty() ? DefaultMmvDir() : f.mmv_dir;
  } else if (o.files.empty()) {
    return absl::InvalidArgumentError("--no-dir needs MMV files named as arguments");
  }
  for (const std::string& file : o.files) {
    if (::access(file.c_str(), R_OK) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read MMV file ", file, ": ", std::strerror(errno)));
    }
  }
  o.mapping.prefix = f.prefix;
  o.mapping.include = f.include;
  o.mapping.exclude = f.exclude;
  o.archive.version = f.archive_version;
  o.archive.pid = static_cast<int32_t>(::getpid());
  o.host = archiver::LocalHostIdentity();
  o.label_hostname = f.labelhost;
  r.progress = f.progress && ::isatty(2);
  r.note = f.note;
  return r;
}

}  // namespace mmvlog::cmd

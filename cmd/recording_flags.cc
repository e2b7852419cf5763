#include "cmd/recording_flags.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cmd/common.h"

ABSL_FLAG(std::string, mmv_dir, "",
          "directory of MMV files, rescanned every sample (default: $PCP_TMP_DIR/mmv as PCP "
          "finds it: environment, else /etc/pcp.conf, else /var/lib/pcp/tmp)");
ABSL_FLAG(bool, no_dir, false, "record only the MMV files named as arguments");
ABSL_DECLARE_FLAG(std::string, interval);
ABSL_FLAG(int64_t, samples, 0, "stop after this many samples (0: no limit)");
ABSL_FLAG(std::string, duration, "", "stop after this long (PCP interval syntax)");
ABSL_FLAG(int, archive_version, 3,
          "PCP archive version: 3 (the default of PCP >= 6.2) or 2 (for PCP < 6 readers)");
ABSL_FLAG(std::string, prefix, "mmv", "first component of metric names, as pmdammv's prefix");
ABSL_FLAG(std::vector<std::string>, include, {},
          "record only metrics whose names match one of these globs (comma separated)");
ABSL_FLAG(std::vector<std::string>, exclude, {},
          "do not record metrics whose names match one of these globs (comma separated)");
ABSL_FLAG(std::string, volume_size, "",
          "start a new volume when one would grow past this size (e.g. 100M, 2G)");
ABSL_FLAG(int64_t, volume_samples, 0, "start a new volume every N samples (0: never)");
ABSL_FLAG(bool, progress, true, "show a progress line when stderr is a terminal");

namespace mmvlog::cmd {
namespace {

absl::StatusOr<uint64_t> ParseSize(const std::string& text) {
  std::string s = text;
  uint64_t mult = 1;
  if (!s.empty()) {
    switch (s.back()) {
      case 'k': case 'K': mult = 1ull << 10; s.pop_back(); break;
      case 'm': case 'M': mult = 1ull << 20; s.pop_back(); break;
      case 'g': case 'G': mult = 1ull << 30; s.pop_back(); break;
    }
  }
  uint64_t n;
  if (!absl::SimpleAtoi(s, &n) || n == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad size '", text, "': use a number with K, M or G, e.g. 100M"));
  }
  return n * mult;
}

}  // namespace

absl::StatusOr<RecordingSetup> RecordingFromFlags(const std::vector<std::string>& files) {
  RecordingSetup r;
  const std::string interval_text =
      absl::GetFlag(FLAGS_interval).empty() ? "1sec" : absl::GetFlag(FLAGS_interval);
  absl::StatusOr<absl::Duration> interval = ParsePcpInterval(interval_text);
  if (!interval.ok()) return interval.status();
  r.limits.interval = *interval;
  if (!absl::GetFlag(FLAGS_duration).empty()) {
    absl::StatusOr<absl::Duration> d = ParsePcpInterval(absl::GetFlag(FLAGS_duration));
    if (!d.ok()) return d.status();
    r.limits.duration = *d;
  }
  if (absl::GetFlag(FLAGS_samples) < 0) {
    return absl::InvalidArgumentError("--samples must be 0 (no limit) or more");
  }
  r.limits.samples = absl::GetFlag(FLAGS_samples);
  const int version = absl::GetFlag(FLAGS_archive_version);
  if (version != 2 && version != 3) {
    return absl::InvalidArgumentError("--archive_version must be 2 or 3");
  }
  archiver::RecorderOptions& o = r.recorder;
  if (!absl::GetFlag(FLAGS_no_dir)) {
    o.mmv_dir = absl::GetFlag(FLAGS_mmv_dir).empty() ? DefaultMmvDir() : absl::GetFlag(FLAGS_mmv_dir);
  } else if (files.empty()) {
    return absl::InvalidArgumentError("--no_dir needs MMV files named as arguments");
  }
  o.files = files;
  for (const std::string& f : files) {
    if (::access(f.c_str(), R_OK) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("cannot read MMV file ", f, ": ",
                                                     std::strerror(errno)));
    }
  }
  o.mapping.prefix = absl::GetFlag(FLAGS_prefix);
  o.mapping.include = absl::GetFlag(FLAGS_include);
  o.mapping.exclude = absl::GetFlag(FLAGS_exclude);
  o.archive.version = version;
  o.archive.pid = static_cast<int32_t>(::getpid());
  if (!absl::GetFlag(FLAGS_volume_size).empty()) {
    absl::StatusOr<uint64_t> size = ParseSize(absl::GetFlag(FLAGS_volume_size));
    if (!size.ok()) return size.status();
    o.archive.max_volume_bytes = *size;
  }
  if (absl::GetFlag(FLAGS_volume_samples) < 0) {
    return absl::InvalidArgumentError("--volume_samples must be 0 or more");
  }
  o.volume_samples = static_cast<uint64_t>(absl::GetFlag(FLAGS_volume_samples));
  o.host = archiver::LocalHostIdentity();
  r.progress = absl::GetFlag(FLAGS_progress) && ::isatty(2);
  return r;
}

}  // namespace mmvlog::cmd

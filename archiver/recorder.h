// Recorder: the loop shared by `mmvlog record` and `mmvlog capture`: MMV
// files in a directory (and/or named files) -> consistent snapshots -> PCP
// metadata and results -> one archive.
//
// Per sample: the directory is scanned (new files are picked up, vanished
// ones dropped), each file is snapshotted; a file whose metadata changed
// (new generation: the application restarted) is mapped again and its new
// metadata written before the result that uses it. A <mark> record is
// written when an application restarts (its counters reset), when a file
// vanishes, fails or comes back, and when the wall clock steps backwards, so
// rate tools never compute a rate across the gap. A metric whose descriptor
// changes under the same name cannot be represented in one archive: the
// recorder closes the archive and continues in a new one, "<base>-2", ...
// A file that cannot be read is reported (once per distinct error) and the
// other files keep recording. When the archive cannot be written (disk
// full), the error is reported, samples are dropped and counted, and every
// sample tries to continue the archive (ArchiveWriter::Resume); the gap is
// marked with a <mark> record. What is on disk stays complete records only.
//
// An unchanged file costs one copy of its values and its share of one
// encoded write: no metadata work.
#ifndef MMVLOG_ARCHIVER_RECORDER_H_
#define MMVLOG_ARCHIVER_RECORDER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "archiver/archive_writer.h"
#include "archiver/dir_listing.h"
#include "archiver/host_identity.h"
#include "archiver/mmv_mapping.h"
#include "archiver/mmv_source.h"
#include "format/result_template.h"

namespace mmvlog::archiver {

enum class LogLevel { kInfo, kWarning, kError };
using LogFunction = std::function<void(LogLevel, const std::string&)>;

struct RecorderOptions {
  std::string mmv_dir;             // scanned every sample; "" for none
  std::vector<std::string> files;  // MMV files named explicitly
  MappingOptions mapping;
  std::string archive_base;        // e.g. /var/log/mmvlog/20261122.10.00
  ArchiveOptions archive;          // version, volume size, ...
  HostIdentity host;
  // The host name in the archive label when not host.hostname (pmlogger's
  // -H); the context labels keep host.hostname, as pmcd reports it.
  std::string label_hostname;
  uint64_t volume_samples = 0;     // new volume every N samples (0: never)
  // When archive_base already exists: continue it (after recovery, with a
  // <mark>) instead of failing.
  bool resume = false;
};

struct RecorderStats {
  uint64_t samples = 0;
  uint64_t values = 0;
  uint64_t marks = 0;
  uint64_t archives = 0;  // archives started (more than 1 after a rotation)
  uint64_t dropped = 0;   // samples lost while the archive could not be written
};

class Recorder {
 public:
  Recorder(RecorderOptions options, LogFunction log);
  ~Recorder();

  // Opens and lists the MMV directory now (it is otherwise opened with the
  // first sample), so that it stays readable after privileges are dropped to
  // a user who could not open it by its path.
  void OpenSources() { (void)ListFiles(); }
  // Takes one sample stamped `now`. Errors are those that stop recording
  // (the archive cannot be created or written); problems with single MMV
  // files are logged, not returned.
  absl::Status Sample(absl::Time now);
  // Starts the next volume (SIGHUP).
  absl::Status NewVolume();
  // Writes the final index entry and closes the archive.
  absl::Status Close();
  // Closes the current archive and continues in `base` from the next sample
  // (daily archives). PMIDs stay as they were.
  absl::Status StartNewArchive(const std::string& base);
  // Volumes finished since the last call (for compression).
  std::vector<std::string> TakeFinishedVolumes();
  const std::string& current_archive() const { return current_base_; }

  const RecorderStats& stats() const { return stats_; }
  // Every archive base this recorder wrote, in order.
  const std::vector<std::string>& archives() const { return archives_; }
  uint64_t bytes_written() const;
  size_t metrics() const;

 private:
  struct FileState {
    std::string path;
    std::shared_ptr<const FileDescriptor> dir;  // the source opens relative to it
    std::unique_ptr<MmvSource> source;
    std::shared_ptr<const MappedFile> mapped;  // null while not recording
    uint64_t generation = 0;  // of the last mapping
    bool recorded = false;    // ever contributed to this archive
    std::string last_error;   // to log each distinct problem once
  };

  std::map<std::string, std::string> ListFiles();
  absl::Status OpenArchive(absl::Time now);
  // After a write error: the archive cannot take more until it is resumed.
  void Broken(const absl::Status& why);
  bool TryResume();
  // After a sample written in full: logs the end of an outage, if any.
  void OutageOver();
  absl::Status WriteMetadata(const MappedFile& f, format::Timestamp when);
  absl::Status Rotate(absl::Time now, const std::string& why);
  void Problem(FileState& s, const std::string& name, const std::string& what);

  RecorderOptions options_;
  LogFunction log_;
  std::unique_ptr<ArchiveWriter> writer_;
  std::unique_ptr<MmvMapper> mapper_;
  std::map<std::string, FileState> files_;  // by name, alphabetical
  RecorderStats stats_;
  std::vector<std::string> archives_;
  std::string current_base_;
  std::vector<std::string> finished_volumes_;
  format::Timestamp last_stamp_;
  bool have_result_ = false;
  uint64_t closed_archive_bytes_ = 0;
  std::string last_dir_error_;
  std::unique_ptr<DirListing> dir_;  // of options_.mmv_dir
  std::set<std::string> skipped_logged_;  // entries of the directory not recorded
  bool next_base_explicit_ = false;  // StartNewArchive named the next base
  bool clock_behind_ = false;        // wall clock behind the last timestamp
  bool broken_ = false;      // writer closed after a write error
  bool resumed_ = false;     // the next result follows a gap
  bool resumed_archive_ = false;  // the current archive was continued, not created
  bool outage_ = false;      // a write failed; nothing written in full since
  format::Result result_;  // reused per sample
  // The fast path: the record of the last result, made when every file had
  // a fixed layout, with the mappings it came from and the writer it is for
  // (writer_serial_ counts the writers this recorder opened).
  bool TemplateFits(const std::vector<std::pair<FileState*, MmvSnapshot>>& live) const;
  // A template for `live` when every file has a fixed layout, else none.
  void MakeTemplate(const std::vector<std::pair<FileState*, MmvSnapshot>>& live);
  std::optional<format::ResultTemplate> template_;
  std::vector<std::shared_ptr<const MappedFile>> template_files_;
  uint64_t template_writer_ = 0;
  uint64_t writer_serial_ = 0;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_RECORDER_H_

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
// With a pmlogger configuration (RecorderOptions::plan) a tick writes one
// result per group that is due, each with the metrics and instances its
// group logs, and metadata only for what some group logs, written before
// the first value that needs it (as pmlogger does). Without one, every
// metric of every file is one group.
//
// A tick reads as its steps: continue the archive after an outage, stamp,
// scan and snapshot the files, create the archive, map what changed,
// resolve the plan, describe new metrics, mark a gap, write the results.
// What steers it is one phase (recording, outage, resuming) and whether a
// <mark> is owed.
//
// An unchanged file costs its share of one encoded write, its values read
// where they are (MmvSource's mapped snapshots; copied instead with a
// pmlogger configuration): no metadata work.
#ifndef MMVLOG_ARCHIVER_RECORD_RECORDER_H_
#define MMVLOG_ARCHIVER_RECORD_RECORDER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "archiver/store/archive_writer.h"
#include "archiver/store/log.h"
#include "archiver/record/dir_listing.h"
#include "archiver/record/host_identity.h"
#include "archiver/record/log_plan.h"
#include "archiver/record/mmv_mapping.h"
#include "archiver/record/mmv_source.h"
#include "format/result_template.h"

namespace mmvlog::archiver {

struct RecorderOptions {
  std::string mmv_dir;             // scanned every sample; "" for none
  std::vector<std::string> files;  // MMV files named explicitly
  // Whether mmv_dir's entries may have changed since the last call (a
  // DirWatch::TakeChanged set up before the first sample). When it says
  // no, a tick looks at neither the directory nor its files' names (their
  // values and generations are still read). Null: look every tick.
  std::function<bool()> mmv_dir_changed;
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
  // A pmlogger configuration: what to log, in which groups. Null: every
  // metric, one group.
  std::shared_ptr<LogPlan> plan;
  // Archives others follow as they grow (pmproxy's discovery): see
  // LiveStep. `now` must then be the wall clock.
  bool live = false;
};

struct RecorderStats {
  uint64_t samples = 0;  // ticks that wrote at least one result
  uint64_t results = 0;  // one per group per tick
  uint64_t values = 0;
  uint64_t marks = 0;
  uint64_t archives = 0;  // archives started (more than 1 after a rotation)
  uint64_t dropped = 0;   // samples lost while the archive could not be written
  uint64_t retaken = 0;   // ticks taken again from copies: a file changed mid-read
};

class Recorder {
 public:
  Recorder(RecorderOptions options, LogFunction log);
  ~Recorder();

  // Opens and lists the MMV directory now (it is otherwise opened with the
  // first sample), so that it stays readable after privileges are dropped to
  // a user who could not open it by its path.
  void OpenSources() { (void)ListFiles(); }
  // The metrics the MMV files offer now, mapped as they would be recorded
  // (for -C: a configuration resolved without recording).
  std::vector<OfferedMetric> Survey();
  // Replaces the plan (a configuration read again on SIGHUP); it is
  // resolved at the next tick. The archive goes on.
  void SetPlan(std::shared_ptr<LogPlan> plan);
  // Takes one sample stamped `now` of every group. Errors are those that
  // stop recording (the archive cannot be created or written); problems
  // with single MMV files are logged, not returned.
  absl::Status Sample(absl::Time now);
  // The same for the groups of the plan with these ids (GroupSelection::id):
  // one result each, in the plan's order.
  absl::Status SampleGroups(absl::Time now, const std::vector<size_t>& group_ids);
  // Counts changes of the plan's groups (metrics that appeared below a
  // configured subtree), so a scheduler knows to look again.
  uint64_t plan_version() const { return plan_version_; }
  const LogPlan* plan() const { return options_.plan.get(); }
  // Live archives (options.live). pmproxy (libpcp_web discover.c, PCP 6)
  // follows a directory by inotify, handling at most one change of it per
  // wall-clock second (the rest of that second's are dropped), and opens an
  // archive it has just found at its end: results written before it looked
  // are never read, except the last one (libpcp returns the record at the
  // position's time). So in a new archive, after its prologue and first
  // result, results are held in memory; in the next second, once the
  // files' own changes are behind pmproxy, .meta is touched (a change it
  // handles, finding the archive ending with that first result), and
  // 200 ms later the held results are written (at once when they pass
  // 2 MB: memory and the tick's time stay bounded). The time of the next
  // such step (InfiniteFuture: none):
  absl::Time NextLiveStep() const;
  // Takes the steps due at `now` (Sample takes them too).
  absl::Status LiveStep(absl::Time now);
  // At the end of a run, after Close: waits for the next wall-clock second
  // and touches the last archive's .meta, so that pmproxy reads the last
  // results (a change in the same second as the one it handled is dropped,
  // and none would follow).
  void FinishLive();

  // Whether the last tick found no file at all to read (an empty MMV
  // directory): until one appears a tick does nothing, so a loop may wait
  // for the directory to change instead (archiver/record/dir_watch.h). A file that
  // is there but not readable yet is not empty: it is read every tick, as
  // libpcp_mmv fills it through a mapping, which no watch reports.
  bool empty() const { return empty_; }

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
    // Of `mapped`: PMIDs and indoms whose metadata is in the archive, and
    // whether its cluster labels are.
    std::set<uint32_t> described;
    std::set<uint32_t> described_indoms;
    bool described_cluster = false;
    uint64_t described_plan = UINT64_MAX;  // plan_version_ when all was written
    // `mapped` cut down to what each group logs: group id -> (plan
    // version, projection). Stable objects, so result templates fit.
    std::map<size_t, std::pair<uint64_t, std::shared_ptr<const MappedFile>>> projected;
  };
  using Live = std::vector<std::pair<FileState*, MmvSnapshot>>;

  // One group's result, and the fast path for it: the record of its last
  // result, made when every file had a fixed layout, with the mappings it
  // came from and the writer it is for (writer_serial_ counts the writers
  // this recorder opened).
  struct Output {
    std::optional<format::ResultTemplate> tmpl;
    std::vector<std::shared_ptr<const MappedFile>> files;
    uint64_t writer = 0;
  };

  // What steers a tick. kOutage: a write (or the archive's creation)
  // failed and the writer is closed; samples are dropped and each tick
  // tries to continue. kResuming: the writer is open again; the first
  // result written in full ends the outage.
  enum class Phase { kRecording, kOutage, kResuming };

  // The steps of a tick (`group_ids` null: every group). A step that
  // returns a status ends the tick with it (nothing to record, a full disk
  // waited out, a rotation that ran the tick again); nullopt goes on.
  absl::Status Tick(absl::Time now, const std::vector<size_t>* group_ids);
  bool ContinueAfterOutage();  // false: still in an outage, drop the sample
  format::Timestamp Stamp(absl::Time now, bool* need_mark);
  Live ScanFiles(bool* need_mark);
  std::optional<absl::Status> EnsureArchive(absl::Time now, const Live& live);
  std::optional<absl::Status> MapChanged(absl::Time now, Live& live, bool* need_mark,
                                         const std::vector<size_t>* group_ids);
  void ResolvePlan(const Live& live);
  std::optional<absl::Status> DescribeNew(absl::Time now, Live& live, format::Timestamp stamp,
                                          const std::vector<size_t>* group_ids);
  bool MarkGap(format::Timestamp* stamp);  // false: the archive broke
  absl::Status WriteResults(absl::Time now, const Live& live, format::Timestamp stamp,
                            const std::vector<size_t>* group_ids);

  std::map<std::string, std::string> ListFiles(bool unchanged = false);
  absl::Status OpenArchive(absl::Time now);
  // After a write error: the archive cannot take more until it is resumed.
  void Broken(const absl::Status& why);
  // After the writer closed: its held results that never reached the
  // archive become dropped samples.
  void CountUnwritten();
  bool TryResume();
  // After a sample written in full: logs the end of an outage, if any.
  void OutageOver();
  // The prologue (and epilogue) record: archiver/record/prologue.h. A new
  // archive's prologue (`labels_at`: the first sample's time) writes the
  // context labels too, ahead of every descriptor.
  absl::Status WriteLogue(format::Timestamp when, const format::Timestamp* labels_at = nullptr);
  // The context and domain label sets, ahead of every descriptor.
  absl::Status WriteContextLabels(format::Timestamp when);
  // Writes the metadata of `st.mapped` not yet written that the plan logs.
  absl::Status WriteMetadata(FileState& st, format::Timestamp when);
  absl::Status Rotate(absl::Time now, const std::string& why);
  // Whether a mapped file shares `cluster` with another (MMV_FLAG_NOPREFIX).
  bool SharesCluster(uint32_t cluster) const;
  // Instance domain `id` as the files sharing its cluster give it together.
  format::InDom SharedInDom(uint32_t id) const;
  // Label record `r` merged with those of the files sharing its cluster.
  format::LabelRecord SharedLabels(const format::LabelRecord& r) const;
  void Problem(FileState& s, const std::string& name, const std::string& what);
  // `st.mapped` as group `group` logs it (itself without a plan).
  std::shared_ptr<const MappedFile> Projected(FileState& st, const GroupSelection* group);
  const GroupSelection* Group(size_t id) const;
  absl::StatusOr<bool> WriteResult(Output& out, const GroupSelection* group, const Live& live,
                           format::Timestamp stamp, int64_t now_usec, size_t* values);
  std::vector<OfferedMetric> Offered(const Live& live) const;

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
  bool context_labelled_ = false;  // the current archive has its context labels
  int prologue_volume_ = -1;       // the volume holding the prologue, if any
  uint64_t closed_archive_bytes_ = 0;
  std::string last_dir_error_;
  std::unique_ptr<DirListing> dir_;  // of options_.mmv_dir
  std::set<std::string> skipped_logged_;  // entries of the directory not recorded
  bool next_base_explicit_ = false;  // StartNewArchive named the next base
  bool clock_behind_ = false;        // wall clock behind the last timestamp
  bool resumed_archive_ = false;  // the current archive was continued, not created
  Phase phase_ = Phase::kRecording;
  // Live archives: where the current archive is in LiveStep's steps.
  enum class LiveState { kNone, kCreated, kPoke, kRelease };
  LiveState live_ = LiveState::kNone;
  bool empty_ = false;  // the last tick listed no file
  absl::Time live_at_ = absl::InfiniteFuture();  // of kPoke and kRelease
  bool gap_ = false;  // a <mark> is owed before the next result
  format::Result result_;  // reused per sample
  // Projections of `live` for one group; reused. `source` is set when the
  // values are in its mapping (a mapped snapshot), not in `image`.
  struct Part {
    std::shared_ptr<const MappedFile> file;
    std::span<const uint8_t> image;
    MmvSource* source = nullptr;
  };
  std::vector<Part> parts_;
  // A file changed (or shrank) while its mapped values were read: the tick
  // is taken again from copies (torn_ says so to Tick; copy_values_ makes
  // the snapshots copies).
  bool torn_ = false;
  bool copy_values_ = false;
  bool TemplateFits(const Output& out) const;
  // A template for parts_ when every file has a fixed layout, else none.
  void MakeTemplate(Output& out);
  std::map<size_t, Output> outputs_;  // by group id
  uint64_t writer_serial_ = 0;
  // The plan: resolved at the first tick with files, updated when mapped
  // metrics change (mapping_serial_ counts the mappings made and dropped).
  bool plan_started_ = false;
  uint64_t plan_version_ = 0;
  uint64_t mapping_serial_ = 0;
  uint64_t plan_mappings_ = 0;  // mapping_serial_ when the plan last looked
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_RECORD_RECORDER_H_

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
// The Recorder composes parts with one job and one state each, and owns
// only what a tick is doing (whether it is retaken from copies):
//   MmvFileSet     the files, their snapshots and mappings (mmv_file_set.h)
//   ArchiveSession the archive's life: open, outage, marks, close
//                  (archive_session.h)
//   LiveFeed       results held back for pmproxy (live_feed.h)
//   PlanState      the pmlogger plan as resolved (plan_state.h)
//   MetadataLog    what of each mapping .meta holds (metadata_log.h)
//   ResultWriter   each group's result, templates (result_writer.h)
// A tick reads as its steps (Tick in recorder.cc): the live feed's step,
// continue after an outage, stamp, scan and snapshot the files, create the
// archive, map what changed, resolve the plan, describe new metrics, mark
// a gap, write the results; a file changed under a mapped read retakes the
// tick from copies.
//
// An unchanged file costs its share of one encoded write, its values read
// where they are (MmvSource's mapped snapshots; copied instead with a
// pmlogger configuration): no metadata work.
#ifndef MMVLOG_ARCHIVER_RECORD_RECORDER_H_
#define MMVLOG_ARCHIVER_RECORD_RECORDER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "archiver/mmv/dir_watch.h"
#include "archiver/session/archive_session.h"
#include "archiver/session/host_identity.h"
#include "archiver/session/live_feed.h"
#include "archiver/schedule/log_plan.h"
#include "archiver/session/metadata_log.h"
#include "archiver/mmv/mmv_file_set.h"
#include "archiver/mmv/mmv_mapping.h"
#include "archiver/schedule/plan_state.h"
#include "archiver/session/result_writer.h"
#include "archiver/store/archive_writer.h"
#include "archiver/store/log.h"

namespace mmvlog::archiver {

struct RecorderOptions {
  std::string mmv_dir;             // scanned every sample; "" for none
  std::vector<std::string> files;  // MMV files named explicitly
  // mmv_dir's watch, set up before the first sample (it must outlive the
  // Recorder). A tick whose entries did not change does not read the
  // directory, and a file no event named is not stat'ed (its values and
  // generation are still read). Null: look at everything every tick.
  DirWatch* mmv_dir_watch = nullptr;
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
  // Results whose every value went from the files' mappings straight into
  // the encoded record (the fast path: no copy, no encoding).
  uint64_t in_place = 0;
};

class Recorder {
 public:
  Recorder(RecorderOptions options, LogFunction log);

  // Opens and lists the MMV directory now (it is otherwise opened with the
  // first sample), so that it stays readable after privileges are dropped to
  // a user who could not open it by its path.
  void OpenSources() { files_.List(); }
  // The metrics the MMV files offer now, mapped as they would be recorded
  // (for -C: a configuration resolved without recording).
  std::vector<OfferedMetric> Survey() { return files_.Survey(mapping_); }
  // Replaces the plan (a configuration read again on SIGHUP); it is
  // resolved at the next tick. The archive goes on.
  void SetPlan(std::shared_ptr<LogPlan> plan) { plan_.Set(std::move(plan)); }
  // Takes one sample stamped `now` of every group. Errors are those that
  // stop recording (the archive cannot be created or written); problems
  // with single MMV files are logged, not returned.
  absl::Status Sample(absl::Time now) { return Tick(now, nullptr); }
  // The same for the groups of the plan with these ids (GroupSelection::id):
  // one result each, in the plan's order.
  absl::Status SampleGroups(absl::Time now, const std::vector<size_t>& group_ids) {
    return Tick(now, &group_ids);
  }
  // Counts changes of the plan's groups (metrics that appeared below a
  // configured subtree), so a scheduler knows to look again.
  uint64_t plan_version() const { return plan_.version(); }
  const LogPlan* plan() const { return plan_.plan(); }
  // Live archives (options.live): results held back for pmproxy (live_feed.h).
  // The time of the next step (InfiniteFuture: none):
  absl::Time NextLiveStep() const { return feed_.next(); }
  // Takes the steps due at `now` (Sample takes them too).
  absl::Status LiveStep(absl::Time now) {
    feed_.Step(now, session_);
    return absl::OkStatus();
  }
  // At the end of a run, after Close: waits for the next wall-clock second
  // and touches the last archive's .meta, so that pmproxy reads the last
  // results (a change in the same second as the one it handled is dropped,
  // and none would follow).
  void FinishLive() { feed_.Finish(session_.current_archive()); }

  // Whether the last tick found no file at all to read (an empty MMV
  // directory): until one appears a tick does nothing, so a loop may wait
  // for the directory to change instead (archiver/mmv/dir_watch.h). A file that
  // is there but not readable yet is not empty: it is read every tick, as
  // libpcp_mmv fills it through a mapping, which no watch reports.
  bool empty() const { return files_.empty(); }

  // Starts the next volume (SIGHUP).
  absl::Status NewVolume() { return session_.NewVolume(); }
  // Writes the final index entry and closes the archive.
  absl::Status Close();
  // Closes the current archive and continues in `base` from the next sample
  // (daily archives). PMIDs stay as they were.
  absl::Status StartNewArchive(const std::string& base);
  // Volumes finished since the last call (for compression).
  std::vector<std::string> TakeFinishedVolumes() { return session_.TakeFinishedVolumes(); }
  const std::string& current_archive() const { return session_.current_archive(); }

  RecorderStats stats() const;
  // Every archive base this recorder wrote, in order.
  const std::vector<std::string>& archives() const { return session_.archives(); }
  uint64_t bytes_written() const { return session_.bytes_written(); }
  size_t metrics() const { return files_.metrics(); }

 private:
  // The steps of a tick (`group_ids` null: every group) that may end it:
  // nullopt goes on; a status ends the tick with it (a full disk waited
  // out, a rotation that ran the tick again).
  absl::Status Tick(absl::Time now, const std::vector<size_t>* group_ids);
  std::optional<absl::Status> MapChanged(absl::Time now, const MmvFileSet::Live& live,
                                         bool* need_mark, const std::vector<size_t>* group_ids);
  std::optional<absl::Status> DescribeNew(absl::Time now, const MmvFileSet::Live& live,
                                          format::Timestamp stamp,
                                          const std::vector<size_t>* group_ids);
  absl::Status WriteResults(absl::Time now, const MmvFileSet::Live& live,
                            format::Timestamp stamp, const std::vector<size_t>* group_ids);
  // A PMID would change meaning: a new archive, its files mapped afresh.
  absl::Status Rotate(absl::Time now, const std::string& why);

  const MappingOptions mapping_;
  MmvFileSet files_;
  ArchiveSession session_;
  LiveFeed feed_;
  PlanState plan_;
  MetadataLog metadata_;
  uint64_t described_writer_ = 0;  // session_.writer_serial() metadata_ describes for
  // (mapping_serial, plan version) when every mapped file was last described.
  std::pair<uint64_t, uint64_t> described_{UINT64_MAX, UINT64_MAX};
  ResultWriter results_;
  // Counts of what the ticks wrote (the parts count the rest).
  uint64_t samples_ = 0;
  uint64_t results_written_ = 0;
  uint64_t values_ = 0;
  uint64_t retaken_ = 0;
  // This tick is retaken from copies: a file changed (or shrank) while its
  // mapped values were read.
  bool copy_values_ = false;
  // Scratch, reused from tick to tick: this tick's groups, one group's parts.
  std::vector<const GroupSelection*> groups_;
  std::vector<FilePart> parts_;
  bool parts_current_ = false;  // parts_ are of the last Scan's files (no plan)
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_RECORD_RECORDER_H_

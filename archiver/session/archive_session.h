// ArchiveSession: the life of the archives one recorder writes: creating
// (or continuing) an archive with the first sample that has something to
// record, its prologue and epilogue, the context labels, the time line of
// its records, volumes, an outage and its end, a new archive after a PMID
// conflict ("<base>-2", ...) or at a new period, and closing.
//
// Invariants it keeps:
// - phase kRecording: the writer is open (or no archive was needed yet);
//   kOutage: a write (or the archive's creation) failed, the writer is
//   closed, every sample is dropped and counted, and each tick tries to
//   continue the archive (ArchiveWriter::Resume) or to create it;
//   kResuming: the writer is open again, and the first sample written in
//   full (OutageOver) ends the outage, which is logged once at each end;
// - timestamps never go backwards in an archive: Stamp gives each sample
//   1 us after the last while the wall clock is behind, and says once that
//   a <mark> is owed; a <mark> (MarkGap) is pmlogger's last record + 1 ms,
//   and the result after it comes strictly later;
// - a <mark> is owed (TakeGap) after an archive was continued, and after a
//   mark that could not be written;
// - the archive's PMIDs (pmids(), an MmvMapper) live as long as the
//   archive: a new one after a conflict, the same across StartNewArchive
//   (daily archives), seeded from the archive when one is continued;
// - a fresh archive starts with the prologue a microsecond before its first
//   sample and ends, if it holds a result, with the epilogue a millisecond
//   after its last record; one that never got a result is removed at Close
//   (PCP cannot open an archive without results);
// - the context and domain label sets are written once per archive,
//   before the first descriptor's (LabelContext).
#ifndef MMVLOG_ARCHIVER_SESSION_ARCHIVE_SESSION_H_
#define MMVLOG_ARCHIVER_SESSION_ARCHIVE_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "archiver/mmv/mmv_mapping.h"
#include "archiver/session/host_identity.h"
#include "archiver/store/archive_writer.h"
#include "archiver/store/log.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {

struct ArchiveSessionOptions {
  std::string archive_base;  // e.g. /var/log/mmvlog/20261122.10.00
  ArchiveOptions archive;    // version, volume size, ...
  HostIdentity host;
  std::string label_hostname;  // pmlogger's -H; "" for host.hostname
  MappingOptions mapping;      // for the archive's PMIDs
  uint64_t volume_samples = 0;  // new volume every N samples (0: never)
  // When archive_base already exists: continue it (after recovery, with a
  // <mark>) instead of failing.
  bool resume = false;
  // A new archive's records are held from its prologue on, until the live
  // feed releases them with the first results (live_feed.h).
  bool hold_new_archive = false;
};

class ArchiveSession {
 public:
  ArchiveSession(ArchiveSessionOptions options, LogFunction log)
      : options_(std::move(options)), log_(std::move(log)) {}
  ~ArchiveSession();

  // Outage: tries to continue the archive. False: still in an outage, and
  // this sample is dropped (counted).
  bool ContinueAfterOutage();
  // The timestamp of a sample taken at `now` (see the invariants); sets
  // *need_mark when the wall clock stepped back.
  format::Timestamp Stamp(absl::Time now, bool* need_mark);
  // Opens the archive if none is open and `have_files` (a sample with
  // something to record). nullopt: go on; a status ends the tick with it:
  // OK when the sample was dropped (nothing to record, or a full disk
  // waited out), an error for a mistake to report (a missing directory, a
  // permission, an existing archive).
  std::optional<absl::Status> Ensure(absl::Time now, bool have_files);
  // Whether a fresh archive was created (its prologue written) since the
  // last call: the live feed starts on it.
  bool TakeCreated() { return std::exchange(created_, false); }
  // Whether a <mark> is owed before the next result (and clears it).
  bool TakeGap() { return std::exchange(gap_, false); }
  // Writes a <mark> for the gap before `*stamp`, moving *stamp after it.
  // False: the archive broke (the sample is dropped).
  bool MarkGap(format::Timestamp* stamp);
  // -v N samples: starts the next volume when this one holds N. False: the
  // archive broke (the sample is dropped).
  bool StartVolumeIfFull();
  // A result stamped `stamp` was written.
  void Wrote(format::Timestamp stamp);
  // After a sample written in full: ends an outage, if any.
  void OutageOver();
  // A write failed: the writer is closed and the outage begins (once).
  void Broken(const absl::Status& why);
  // The same, and this sample is dropped (counted).
  void Drop(const absl::Status& why);
  // Closes the archive and continues in a new one with fresh PMIDs (a name
  // or PMID would change meaning: logged as `why`).
  absl::Status Rotate(absl::Time now, const std::string& why);

  // Whether an archive is open.
  bool open() const { return writer_ != nullptr; }
  // What goes into the open archive (REQUIRES: open()). Every write passes
  // here, none around the outage logic; a failure comes back as it is, and
  // the caller drops the sample with Drop.
  int version() const { return writer_->version(); }
  absl::Status AddDesc(const format::Desc& desc) { return writer_->AddDesc(desc); }
  absl::Status AddInDom(const format::InDom& indom) { return writer_->AddInDom(indom); }
  absl::Status AddLabels(const format::LabelRecord& labels) { return writer_->AddLabels(labels); }
  absl::Status AddHelpText(const format::HelpText& text) { return writer_->AddHelpText(text); }
  absl::Status AppendResult(const format::Result& result) { return writer_->AppendResult(result); }
  absl::Status AppendEncodedResult(format::Timestamp stamp, std::span<const uint8_t> record) {
    return writer_->AppendEncodedResult(stamp, record);
  }
  // Counts the writers opened, so what is made for one (a result template)
  // is known not to fit another.
  uint64_t writer_serial() const { return writer_serial_; }
  // The archive's PMIDs. REQUIRES: an archive was opened.
  MmvMapper& pmids() { return *mapper_; }
  // Whether this archive holds a result (or continued one that did).
  bool has_result() const { return have_result_; }
  // Whether the writer holds any result in any volume.
  bool wrote_any() const { return writer_->results_in_volume() + writer_->volume() > 0; }
  // Writes the context and domain label sets unless this archive has them.
  absl::Status LabelContext(format::Timestamp when);

  // For the live feed (live_feed.h): records held back, and .meta touched.
  // ReleaseRecords breaks the archive when the write fails.
  void HoldRecords() { writer_->HoldRecords(); }
  void ReleaseRecords();
  bool holding_records() const { return writer_->holding_records(); }
  uint64_t held_bytes() const { return writer_->held_bytes(); }
  absl::Status TouchMeta() { return writer_->TouchMeta(); }

  // Starts the next volume (SIGHUP); nothing during an outage.
  absl::Status NewVolume();
  // The epilogue, the final index entry, closed.
  absl::Status Close();
  // Closes the archive and continues in `base` from the next sample, with
  // the same PMIDs.
  absl::Status StartNewArchive(const std::string& base);
  std::vector<std::string> TakeFinishedVolumes();
  const std::string& current_archive() const { return current_base_; }
  const std::vector<std::string>& archives() const { return archives_; }
  uint64_t bytes_written() const;
  uint64_t archives_started() const { return archives_started_; }
  uint64_t marks() const { return marks_; }
  uint64_t dropped() const { return dropped_; }
  // Results counted as written that were held and never reached an
  // archive (its writer failed or closed first): dropped samples.
  uint64_t unwritten() const { return unwritten_; }

 private:
  // kOutage: a write (or the archive's creation) failed and the writer is
  // closed; samples are dropped and each tick tries to continue.
  // kResuming: the writer is open again; the first result written in full
  // ends the outage.
  enum class Phase { kRecording, kOutage, kResuming };

  absl::Status OpenArchive(absl::Time now);
  bool TryResume();
  // The prologue (and epilogue) record: archiver/session/prologue.h. A new
  // archive's prologue (`labels_at`: the first sample's time) writes the
  // context labels too, ahead of every descriptor.
  absl::Status WriteLogue(format::Timestamp when, const format::Timestamp* labels_at = nullptr);
  // After the writer closed: its held results that never reached the
  // archive are counted in unwritten().
  void CountUnwritten();

  ArchiveSessionOptions options_;
  LogFunction log_;
  std::unique_ptr<ArchiveWriter> writer_;
  uint64_t writer_serial_ = 0;
  std::unique_ptr<MmvMapper> mapper_;
  Phase phase_ = Phase::kRecording;
  std::vector<std::string> archives_;  // every base written, in order
  std::string current_base_;
  std::vector<std::string> finished_volumes_;
  uint64_t closed_archive_bytes_ = 0;
  format::Timestamp last_stamp_;
  bool have_result_ = false;
  bool clock_behind_ = false;      // wall clock behind the last timestamp
  bool gap_ = false;               // a <mark> is owed before the next result
  bool created_ = false;           // TakeCreated
  bool context_labelled_ = false;  // the current archive has its context labels
  int prologue_volume_ = -1;       // the volume holding the prologue, if any
  bool resumed_archive_ = false;   // the current archive was continued, not created
  bool next_base_explicit_ = false;  // StartNewArchive named the next base
  uint64_t archives_started_ = 0;
  uint64_t marks_ = 0;
  uint64_t dropped_ = 0;
  uint64_t unwritten_ = 0;
  // A new archive's prologue is among the held records (hold_new_archive):
  // when they are lost, it is no sample.
  bool prologue_held_ = false;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SESSION_ARCHIVE_SESSION_H_

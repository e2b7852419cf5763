// ArchiveWriter: a PCP archive (LOGARCHIVE(5), v2 or v3) as three kinds of
// file: <base>.meta, <base>.index and volumes <base>.0, <base>.1, ...
//
// Invariants it keeps, so every PCP tool accepts what it writes:
// - the archive label opens every file; all labels match but for the volume
//   number, and carry the start time given at Create;
// - a metric's descriptor is in .meta before any result that holds it, and an
//   instance domain record is in .meta at or before the first result that
//   uses it (AppendResult checks both and refuses otherwise);
// - a result never spans two volumes; a v2 volume or .meta stays below 2 GiB;
// - temporal index entries are written before the first result of every
//   volume, after metadata that changed an instance domain, whenever the
//   volume grew by `index_interval_bytes` since the last entry, and at Close;
//   each holds the offsets from *before* its result and that result's
//   metadata, and its timestamp, so no record physically before an entry's
//   offsets has a later timestamp;
// - each record reaches its file in one write, so a crash loses at most the
//   record being written (a torn tail that recovery truncates);
// - while records are held (HoldRecords), results reach their volume before
//   the index entries that point at them; entries whose results could not be
//   written are dropped, so the index never names a volume or an offset that
//   is not on disk.
// After any I/O error the writer refuses further work (sticky error); the
// archive on disk stays readable up to the last complete record.
#ifndef MMVLOG_ARCHIVER_STORE_ARCHIVE_WRITER_H_
#define MMVLOG_ARCHIVER_STORE_ARCHIVE_WRITER_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "archiver/file/held_file.h"
#include "archiver/file/writable_file.h"
#include "format/archive/archive_index.h"
#include "format/archive/archive_label.h"
#include "format/archive/archive_meta.h"
#include "format/archive/archive_result.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {

struct ArchiveOptions {
  int version = 3;           // 2 or 3
  std::string hostname;      // label host (<= 63 bytes in v2, 255 in v3)
  std::string timezone;      // e.g. "UTC" or "AEDT-11"
  std::string zoneinfo;      // v3 only, e.g. ":Etc/UTC"
  int32_t pid = 0;           // label PID
  // Start a new volume before a result that would make the current one
  // larger than this (0: only the format's limit, 2 GiB for v2).
  uint64_t max_volume_bytes = 0;
  // An index entry whenever a volume grew this much (pmlogger: 100,000).
  uint64_t index_interval_bytes = 100'000;
  // fdatasync each finished volume and .meta at volume switch and close.
  bool sync_on_switch = false;
  // Write volumes back and drop them from the page cache as they grow
  // (archiver/file/write_behind.h). Off only to measure appends to the page cache
  // alone (bench/recorder_bench).
  bool write_behind = true;
  // ... while they grow at least this fast (bytes a second, over each 8 MiB);
  // slower volumes are left to the kernel's own writeback, as pmlogger's are.
  // Write-behind is for fast recordings, whose appends otherwise stall
  // behind bursts of writeback (100k values every 10 ms is 200 MB/s); at
  // 10 MB/s it only moved the kernel's writeback into mmvlog's CPU
  // (bench/README.md "footprint.py": 0.80x of the floor with it at 10k
  // values every 20 ms, 1.01x without).
  uint64_t write_behind_min_rate = uint64_t{48} << 20;
};

// Sets the times of <base>.meta and of its directory to now: an event for
// whoever watches the directory or its parent (inotify), with nothing
// written. ArchiveWriter::TouchMeta, or after the archive is closed.
absl::Status TouchArchive(const std::string& base);

class ArchiveWriter {
 public:
  // Creates <base>.meta, <base>.index and <base>.0 with labels stamped
  // `start`. Fails (AlreadyExists) if any of them exists.
  static absl::StatusOr<std::unique_ptr<ArchiveWriter>> Create(
      std::string base, const ArchiveOptions& options, format::Timestamp start);

  // Continues an existing archive (after a crash, a full disk or a restart
  // of the recorder): runs RecoverArchive on it, loads its metadata so
  // nothing is written twice, and opens the next volume. `options.version`
  // is taken from the archive. The caller should append a <mark> first:
  // time passed that the archive does not cover.
  static absl::StatusOr<std::unique_ptr<ArchiveWriter>> Resume(
      std::string base, const ArchiveOptions& options);

  // The timestamp of the last result or mark, if any.
  bool has_last() const { return have_last_; }
  format::Timestamp last_stamp() const { return last_stamp_; }

  ~ArchiveWriter();

  // Metadata, gathered in memory and written to .meta in one piece before
  // the next result or <mark> (and at TouchMeta, a volume's sync and
  // Close), so an I/O error may surface there. Descs are written once per
  // PMID (a second identical desc is a no-op; a different one is
  // AlreadyExists: a PMID never changes meaning in one archive). Help text
  // is written once per (type, ident).
  absl::Status AddDesc(const format::Desc& desc);
  absl::Status AddHelpText(const format::HelpText& text);
  // Labels are written when they differ from the last set written for the
  // same (type, ident).
  absl::Status AddLabels(const format::LabelRecord& labels);
  // `indom` is the FULL current instance list (delta = false). Nothing is
  // written when it equals the last one written; in v3 a delta record is
  // written instead of a full one when it is smaller.
  absl::Status AddInDom(const format::InDom& indom);

  // Appends a result (or a mark record: no sets). Timestamps must not go
  // backwards. Errors: FailedPrecondition for a PMID without a desc or an
  // indom not yet written; the first I/O error otherwise.
  absl::Status AppendResult(const format::Result& result);
  absl::Status AppendMark(format::Timestamp when);
  // Appends a result already encoded for this archive's version (framing
  // included): the recorder's per-sample fast path, which rewrites the
  // values of a format::ResultTemplate in place. The timestamp is the one
  // encoded in `record`. REQUIRES: every PMID and indom in `record` was
  // added to this writer (the template's result went through AppendResult
  // once), which is not checked here.
  absl::Status AppendEncodedResult(format::Timestamp timestamp,
                                   std::span<const uint8_t> record);

  // Keeps results and index entries back (in memory: held_file.h),
  // metadata still going to .meta, until ReleaseRecords (or Close) writes
  // them, in order: for pmproxy's discovery, which opens a new archive at
  // its end (the recorder's live archives, archiver/record/recorder.h).
  void HoldRecords();
  absl::Status ReleaseRecords();
  bool holding_records() const { return holding_; }
  // Results (not <mark>s) this writer accepted while holding that never
  // reached their volume: held ones whose write failed.
  uint64_t unwritten_results() const { return unwritten_results_; }
  uint64_t held_bytes() const { return data_->held_bytes() + index_->held_bytes(); }
  // TouchArchive(base()).
  absl::Status TouchMeta();

  // Starts volume N+1; its index entry is written with its first result.
  absl::Status NewVolume();

  // Writes the final index entry and closes all files.
  absl::Status Close();

  // Paths of volumes finished (closed) since the last call: ready to be
  // compressed. Close() finishes the last one.
  std::vector<std::string> TakeFinishedVolumes();

  const std::string& base() const { return base_; }
  int version() const { return options_.version; }
  int volume() const { return volume_; }
  uint64_t volume_bytes() const { return data_->size(); }
  uint64_t meta_bytes() const { return meta_->size() + meta_pending_.size(); }
  uint64_t total_bytes() const {
    return finished_volume_bytes_ + data_->size() + meta_bytes() + index_->size();
  }
  uint64_t results_in_volume() const { return results_in_volume_; }
  const absl::Status& status() const { return status_; }

 private:
  ArchiveWriter(std::string base, const ArchiveOptions& options,
                format::Timestamp start);
  absl::Status Open();
  // The label of `volume` (kVolumeMeta, kVolumeIndex or a volume number).
  format::LogLabel Label(int32_t volume) const;
  absl::Status WriteMeta();  // appends scratch_ to what FlushMeta writes
  absl::Status FlushMeta();  // writes the gathered metadata to .meta
  // The checks, volume switch and index entry before a result of `size`
  // bytes at `timestamp`; sets *data_offset to where it goes.
  absl::Status PrepareResult(format::Timestamp timestamp, size_t size,
                             uint64_t* data_offset);
  // Appends the encoded result (a <mark> when `mark`) and notes it as the
  // last one.
  absl::Status FinishResult(format::Timestamp timestamp, uint64_t data_offset,
                            std::span<const uint8_t> record, bool mark);
  absl::Status WriteIndex(format::Timestamp when, uint64_t meta_offset,
                          uint64_t data_offset);
  absl::Status OpenVolume(int n);
  // Writes the held results, then the held index entries (which point at
  // them); goes on holding both when `keep_holding`. If the results cannot
  // be written, drops the entries and counts the results as unwritten.
  absl::Status WriteHeld(bool keep_holding);
  StreamOptions VolumeStream() const;  // how volumes are written
  absl::Status Fail(absl::Status s);

  std::string base_;
  ArchiveOptions options_;
  format::Timestamp start_;
  std::unique_ptr<WritableFile> meta_;
  std::unique_ptr<HeldFile> index_, data_;
  bool holding_ = false;  // HoldRecords until ReleaseRecords
  uint64_t held_results_ = 0;       // results (not marks) in data_'s held bytes
  uint64_t unwritten_results_ = 0;  // held results whose write failed
  int volume_ = 0;
  uint64_t finished_volume_bytes_ = 0;
  uint64_t results_in_volume_ = 0;
  // Index bookkeeping: .meta size after the last result (metadata after that
  // belongs to the next result), and the volume size at the last entry.
  uint64_t meta_offset_after_last_result_ = 0;
  uint64_t data_offset_at_last_index_ = 0;
  bool index_pending_ = true;  // first result of a volume, or indom changed
  bool have_last_ = false;
  format::Timestamp last_stamp_;
  uint64_t last_meta_offset_ = 0;  // before the last result's metadata
  uint64_t last_data_offset_ = 0;  // before the last result
  int last_volume_ = 0;

  absl::flat_hash_map<uint32_t, format::Desc> descs_;
  absl::flat_hash_map<uint32_t, format::InDom> indoms_;  // last full state
  absl::flat_hash_set<std::pair<uint32_t, uint32_t>> texts_;
  absl::flat_hash_map<std::pair<uint32_t, uint32_t>, format::LabelRecord> labels_;
  std::vector<uint8_t> scratch_;
  std::vector<uint8_t> meta_pending_;  // metadata not yet in .meta
  std::vector<std::string> finished_volumes_;
  std::vector<std::string> created_;  // files Create made, removed if it fails
  absl::Status status_;
  bool closed_ = false;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_ARCHIVE_WRITER_H_

// MmvFileSet: the MMV files a recorder reads, from tick to tick: which there
// are (the directory's listing, the files named explicitly), a consistent
// snapshot of each, each file's mapping to PCP metadata (MmvMapper), and
// the files sharing a NOPREFIX cluster seen as one.
//
// Invariants it keeps:
// - after Scan, the set holds exactly the names listed (a name that left
//   the listing is forgotten with its source; a recorded one is reported
//   gone and owes a <mark>);
// - a file's mapping is null or made from a snapshot of the generation it
//   records; it is dropped while the file cannot be read, its process has
//   exited or its metadata cannot be recorded, and each distinct problem is
//   logged once ("not recorded until it recovers"), the recovery once;
// - a file that was recorded and is mapped again (a new generation, a
//   recreated file, a comeback) owes a <mark>: its counters restarted;
// - a mapping, once made, is never changed: a new one is a new object, so
//   what others keep for a mapping (metadata written, result templates,
//   projections) is keyed by its address while they hold it;
// - values are read in place (MmvSource::kMapped) only when asked for and
//   the file has a fixed layout of its own (no shared cluster).
// Errors of single files are logged, never returned: the others record on.
#ifndef MMVLOG_ARCHIVER_MMV_MMV_FILE_SET_H_
#define MMVLOG_ARCHIVER_MMV_MMV_FILE_SET_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "archiver/mmv/dir_listing.h"
#include "archiver/mmv/dir_watch.h"
#include "archiver/schedule/log_plan.h"
#include "archiver/mmv/mmv_mapping.h"
#include "archiver/mmv/mmv_source.h"
#include "archiver/mmv/process_watch.h"
#include "archiver/store/log.h"
#include "format/archive/archive_meta.h"

namespace mmvlog::archiver {

struct MmvFileSetOptions {
  std::string mmv_dir;             // listed every scan; "" for none
  std::vector<std::string> files;  // MMV files named explicitly
  // mmv_dir's watch (RecorderOptions::mmv_dir_watch), set up before the
  // first listing: what changed since the last scan, so that an unchanged
  // directory is not read and files no event named are not stat'ed. Null:
  // look at everything every scan.
  DirWatch* watch = nullptr;
};

// What one live file gives one group's result: its mapping as the group
// logs it, and where its values are: in `source`'s mapping when set (a
// mapped snapshot, read through MmvSource::ReadMapped), else in `image`.
// `watch`: the directory's watch, for a mapped file that is in it (after
// the reads, DirWatch::Poll then Quiet(source->name()) spare the fstat of
// MmvSource::StillCurrent).
struct FilePart {
  std::shared_ptr<const MappedFile> file;
  std::span<const uint8_t> image;
  MmvSource* source = nullptr;
  DirWatch* watch = nullptr;
};

class MmvFileSet {
 public:
  // One file's state; read through the accessors, changed by the set only.
  class File {
   public:
    // The file's name in the directory (the last component of its path).
    const std::string& name() const { return name_; }
    const std::string& path() const { return path_; }
    const std::shared_ptr<const MappedFile>& mapped() const { return mapped_; }

   private:
    friend class MmvFileSet;
    std::string name_;
    std::string path_;
    std::shared_ptr<const FileDescriptor> dir_;  // the source opens relative to it
    std::unique_ptr<MmvSource> source_;
    std::shared_ptr<const MappedFile> mapped_;  // null while not recorded
    uint64_t generation_ = 0;  // of the last mapping
    bool recorded_ = false;    // contributed to a result of this archive
    std::string last_error_;   // to log each distinct problem once
    bool transient_ = false;   // the last problem may pass by itself (Unavailable)
    // `mapped_` cut down to what each group logs: group id -> (plan
    // version, projection). Stable objects, so result templates fit.
    std::map<size_t, std::pair<uint64_t, std::shared_ptr<const MappedFile>>> projected_;
  };
  // A file read this tick, with its snapshot (valid until the next Scan).
  struct LiveFile {
    File* file;
    MmvSnapshot snap;
  };
  using Live = std::vector<LiveFile>;

  MmvFileSet(MmvFileSetOptions options, LogFunction log)
      : options_(std::move(options)), log_(std::move(log)) {}

  // Opens and lists the directory now (Recorder::OpenSources).
  void List() { (void)ListFiles(); }

  // Lists the files and takes a snapshot of each. `retake`: the tick is
  // being taken again from copies, so every name is looked at and every
  // value copied; `mapped_values`: values may be read in place (one result
  // per tick). Sets *need_mark when a recorded file is gone or failed.
  // The answer is valid until the next Scan (a steady tick's is the last
  // one's: nothing is looked at again that the watches say is unchanged).
  const Live& Scan(bool retake, bool mapped_values, bool* need_mark);
  // Whether the last Scan listed no file at all.
  bool empty() const { return empty_; }
  // Whether the last Scan gave the one before's answer again (a steady
  // tick): every file read in place and mapped as it was, so nothing needs
  // mapping, describing or laying out again.
  bool reused() const { return reused_; }

  // Maps the files of `live` that are new or changed, with `mapper`'s
  // PMIDs. A name whose PMID would change is AlreadyExists (the caller
  // starts a new archive) when `conflict_rotates`, else that file is not
  // recorded. Sets *need_mark for a restarted or returning file.
  absl::Status MapChanged(const Live& live, MmvMapper& mapper, bool conflict_rotates,
                          bool* need_mark);
  // Stops recording `f` after a problem with its metadata (logged once).
  void Drop(File& f, const std::string& problem);
  // A new archive: every file is mapped, described and recorded afresh.
  void ForgetMappings();
  // Counts mappings made: a plan looks again when it moved.
  uint64_t mapping_serial() const { return mapping_serial_; }

  // Adds the part of each mapped file of `live` that `group` logs (every
  // metric without a plan; `plan_version` keys the projections) to
  // *parts, and counts those files as recorded.
  void Parts(const Live& live, const GroupSelection* group, uint64_t plan_version,
             std::vector<FilePart>* parts);

  // The metrics the mapped files of `live` offer (for a plan).
  std::vector<OfferedMetric> Offered(const Live& live) const;
  // The metrics the files offer now, mapped afresh with `mapping` (-C).
  std::vector<OfferedMetric> Survey(const MappingOptions& mapping);
  // Metrics of the mapped files.
  size_t metrics() const;

  // Files sharing a cluster (MMV_FLAG_NOPREFIX): whether a mapped file
  // shares `cluster`; instance domain `id` as they give it together (the
  // first file's instances first, as pmdammv's update_indom); label record
  // `r` merged with theirs.
  bool SharesCluster(uint32_t cluster) const;
  format::InDom SharedInDom(uint32_t id) const;
  format::LabelRecord SharedLabels(const format::LabelRecord& r) const;

 private:
  // Name -> path of the files to read: the directory's (DirListing) and
  // those named. Valid until the next call.
  const std::map<std::string, std::string>& ListFiles(bool unchanged = false,
                                                      bool same_entries = false);
  void AddNamedFiles();
  // Makes files_ hold exactly the names `listed` (a name that left is
  // forgotten, a recorded one reported gone: *need_mark) and order_ them.
  void Arrange(const std::map<std::string, std::string>& listed, bool* need_mark);
  void Problem(File& f, const std::string& name, const std::string& what);
  // Forgets `f`'s mapping (counted in mappings_changed_).
  void Unmap(File& f);
  // `f`'s mapping as `group` logs it (itself without a plan).
  std::shared_ptr<const MappedFile> Projected(File& f, const GroupSelection* group,
                                              uint64_t plan_version);

  MmvFileSetOptions options_;
  LogFunction log_;
  std::map<std::string, File> files_;  // by name, alphabetical
  std::vector<File*> order_;           // files_ in order, as last Arranged
  uint64_t listed_serial_ = 0;         // counts changes of listed_
  uint64_t arranged_serial_ = UINT64_MAX;  // listed_serial_ order_ is of
  ProcessWatch processes_;  // of the files flagged MMV_FLAG_PROCESS
  Live live_;               // the last Scan's answer
  // live_ holds an in-place snapshot of every file (made while
  // mapping_serial_ was steady_mappings_): a quiet tick reuses it.
  bool steady_ = false;
  bool reused_ = false;
  uint64_t steady_mappings_ = 0;
  std::unique_ptr<DirListing> dir_;    // of options_.mmv_dir
  std::string last_dir_error_;
  const FileDescriptor* watched_dir_ = nullptr;  // the directory the watch is of
  std::map<std::string, std::string> listed_;  // ListFiles' answer
  bool listed_valid_ = false;   // listed_ is of the last good listing
  uint64_t listed_reads_ = 0;   // DirListing::reads() when listed_ was made
  std::set<std::string> skipped_logged_;  // entries of the directory not recorded
  bool empty_ = false;
  uint64_t mapping_serial_ = 0;
  uint64_t mappings_changed_ = 0;  // counts every change of a file's mapped_
  // The clusters of mapped files that share theirs, as of mappings_changed_
  // == shared_clusters_of_ (SharesCluster's answer, kept).
  mutable absl::flat_hash_set<uint32_t> shared_clusters_;
  mutable uint64_t shared_clusters_of_ = UINT64_MAX;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_MMV_MMV_FILE_SET_H_

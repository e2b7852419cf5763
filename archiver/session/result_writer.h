// ResultWriter: one group's result of a tick, from the parts the live files
// give it, encoded and appended to the archive.
//
// The fast path: while every part has a fixed layout (MappedFile::
// fixed_layout, its own cluster, a whole image) and they are the same
// mappings as last time, for the same writer, the group's last record is
// kept as a format::ResultTemplate and only the timestamp and the values
// are stored into it (ValuePlan), read straight from the file's mapping
// for a mapped snapshot. Otherwise the result is built value by value
// (FillValueSets, MergeSharedSets for shared clusters) and encoded whole,
// and so is a sample whose strings no longer fit the template (a string
// whose padded size changed, or one that cannot be read): the template is
// made again from the values there are a few samples later, so a string
// that changes its size every sample costs no more than encoding whole.
//
// Invariants it keeps:
// - a template is used only with the mappings it was made from (held, so
//   no other mapping can have their address) and the writer it was made
//   for (ArchiveSession::writer_serial); a failed append drops it;
// - a result is appended only when every mapped read it holds was whole
//   and still current afterwards (MmvSource::StillCurrent); otherwise
//   nothing is appended and torn() says so: the caller retakes the tick
//   from copies;
// - a result without any value set is never appended (PCP tools would read
//   it as a <mark>).
#ifndef MMVLOG_ARCHIVER_SESSION_RESULT_WRITER_H_
#define MMVLOG_ARCHIVER_SESSION_RESULT_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "archiver/mmv/guarded_mapping.h"
#include "archiver/mmv/mapped_values.h"
#include "archiver/mmv/mmv_file_set.h"
#include "archiver/session/archive_session.h"
#include "archiver/store/log.h"
#include "format/archive/archive_result.h"
#include "format/archive/archive_types.h"
#include "format/archive/result_template.h"

namespace mmvlog::archiver {

class ResultWriter {
 public:
  // `log` hears of a metric whose values stop (or start again) being
  // readable from its file: damaged in place under the same generation.
  explicit ResultWriter(LogFunction log = nullptr) : log_(std::move(log)) {}

  // Appends group `group`'s result from `parts` (in file order) stamped
  // `stamp` to `session`'s archive; `now_usec` is the wall clock for
  // ELAPSED intervals still running. Returns whether a result was appended
  // (false: nothing to record, or torn()), adding its values to *values.
  // Errors: the writer's (FailedPrecondition or InvalidArgument for a bug,
  // an I/O error otherwise). REQUIRES: session.open().
  // `same_parts`: the caller gives the very parts of this group's last
  // call (a steady tick), so a template made for them still fits them.
  absl::StatusOr<bool> Write(size_t group, std::span<FilePart> parts, format::Timestamp stamp,
                             int64_t now_usec, ArchiveSession& session, size_t* values,
                             bool same_parts = false);
  // Whether a Write found a file changed under its mapped read; TakeTorn
  // also clears it.
  bool torn() const { return torn_; }
  bool TakeTorn() { return std::exchange(torn_, false); }
  // Results appended by the fast path with every value read where it is
  // (mapped snapshots): no copy of the files, no encoding.
  uint64_t in_place() const { return in_place_; }

 private:
  // One group's fast path: the record of its last result, made when every
  // file had a fixed layout, with the mappings it came from and the writer
  // it is for.
  struct Output {
    std::optional<format::ResultTemplate> tmpl;
    std::vector<std::shared_ptr<const MappedFile>> files;
    ValuePlan plan;  // made with tmpl, from files
    std::vector<const GuardedMapping*> maps;  // a tick's, kept for its memory
    uint64_t writer = 0;
    int wait = 0;  // samples encoded whole before a template is made again
  };
  // Samples encoded whole after the template refused one, or could not be
  // made.
  static constexpr int kRelayoutWait = 4;
  // How many files ahead a tick starts loading a file's mapping (and twice
  // as many, its source's fields).
  static constexpr size_t kAhead = 4;

  // Logs each metric whose set became an error (a value the file no longer
  // lets be read) or stopped being one, once per change.
  void NoteUnreadable(std::span<const FilePart> parts);

  enum class Stored { kAll, kTorn, kRefused };
  // Stores the values of `parts` into out.tmpl.
  static Stored StoreTemplate(Output& out, std::span<const FilePart> parts, int64_t now_usec);
  static bool TemplateFits(const Output& out, std::span<const FilePart> parts, uint64_t writer);
  // A template for `parts` when every file has a fixed layout, else none.
  static void MakeTemplate(Output& out, std::span<const FilePart> parts, int version,
                           uint64_t writer);

  std::map<size_t, Output> outputs_;  // by group id
  format::Result result_;             // reused per sample
  bool torn_ = false;
  LogFunction log_;
  absl::flat_hash_set<uint32_t> unreadable_;  // PMIDs whose sets are errors now
  uint64_t in_place_ = 0;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SESSION_RESULT_WRITER_H_

// The archives one replay reads as one recording, as libpcp's multi-archive
// contexts do (pmval -a a,b, -a DIR): names expanded (a directory means
// every archive in it), each catalog (label, metadata, index) read once
// and shared by every pass of the replay, and put in order
// of their label's start. Archives that cannot be opened are named in
// problems() and left out. The grid of -t starts at the first archive's
// label time; where one archive ends and the next begins, PCP reads a
// <mark> 1 ms after the earlier one's last record (logutil.c), and so does
// SampleStream.
#ifndef MMVLOG_ARCHIVER_REPLAY_ARCHIVE_SET_H_
#define MMVLOG_ARCHIVER_REPLAY_ARCHIVE_SET_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "archiver/store/archive_reader.h"
#include "format/archive/archive_label.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {

struct ArchiveEntry {
  std::string base;  // as named (or found in a directory)
  format::LogLabel label;
  // Label, metadata and index, read once for every pass of the replay.
  std::shared_ptr<const ArchiveCatalog> catalog;
};

class ArchiveSet {
 public:
  // Errors: NotFound when nothing at all could be opened (the message names
  // the first problem).
  static absl::StatusOr<ArchiveSet> Open(const std::vector<std::string>& names);

  const std::vector<ArchiveEntry>& archives() const { return archives_; }
  const std::vector<std::string>& problems() const { return problems_; }
  // The first archive's label time: where PCP's tools start a window.
  format::Timestamp start() const { return archives_.front().label.start; }
  // The time of the last record (of any metric, or a <mark>) of the last
  // archive, read from its last index entry on; nullopt when it has no
  // record or cannot be read (its damage is then reported when streamed).
  std::optional<format::Timestamp> ReadEnd() const;

 private:
  std::vector<ArchiveEntry> archives_;
  std::vector<std::string> problems_;
};

// `names` with each directory replaced by the archives in it (by .meta
// file, sorted by name).
std::vector<std::string> ExpandArchiveNames(const std::vector<std::string>& names);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_ARCHIVE_SET_H_

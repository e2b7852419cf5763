// MetadataLog: what of each file's mapping the current archive's .meta
// holds, and writing the rest before the first result that needs it, in
// pmlogger's order (callback.c), metric by metric: the descriptor, the
// label sets not yet written (context and domain when the archive did not
// start with them: a continued one; then indom, cluster, item, instances),
// the help text, then the instance domain. The order matters to pmproxy, which names an instance's series by
// the labels it has read when it reads the instance domain.
//
// Invariants it keeps:
// - one entry per file name, for one mapping (held, so no other mapping can
//   have its address): a new mapping of the file starts the entry afresh,
//   so a remapped file (a new generation, a new archive) is described
//   again; entries of files no longer mapped are dropped (KeepOnly);
// - with a plan, only what some group logs is written; an entry is current
//   for the plan version it was completed under;
// - files sharing a cluster give one instance domain and one merged label
//   set per identifier (MmvFileSet::SharedInDom, SharedLabels).
#ifndef MMVLOG_ARCHIVER_SESSION_METADATA_LOG_H_
#define MMVLOG_ARCHIVER_SESSION_METADATA_LOG_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "archiver/session/archive_session.h"
#include "archiver/schedule/log_plan.h"
#include "archiver/mmv/mmv_file_set.h"
#include "archiver/mmv/mmv_mapping.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {

class MetadataLog {
 public:
  // `domain`: the PMID domain of the cluster labels' identifiers.
  explicit MetadataLog(uint32_t domain) : domain_(domain) {}

  // Whether `f`'s mapping is described in full for plan version `plan_version`.
  bool Current(const MmvFileSet::File& f, uint64_t plan_version) const;
  // Writes the metadata of `f`'s mapping not yet written that `plan` logs
  // (everything without a plan) to `session`'s archive, stamped `when`; on
  // success `f` is current for `plan_version`. Errors: the writer's
  // (AlreadyExists: a PMID would change meaning; InvalidArgument: this
  // file's metadata cannot be recorded, nothing of the record written; an
  // I/O error). REQUIRES: f.mapped() and session.open().
  absl::Status Describe(const MmvFileSet::File& f, const MmvFileSet& files, const LogPlan* plan,
                        uint64_t plan_version, ArchiveSession& session, format::Timestamp when);
  // Drops the entries of files not mapped in `live`.
  void KeepOnly(const MmvFileSet::Live& live);
  // Forgets everything written (a writer resumed after a fault may have
  // lost any of it): every file is described again.
  void ForgetAll() { by_file_.clear(); }

 private:
  struct Entry {
    std::shared_ptr<const MappedFile> mapped;  // what the sets below are of
    std::set<uint32_t> pmids;                  // descriptors written
    std::set<uint32_t> indoms;                 // instance domains written
    bool cluster = false;                      // its cluster labels written
    uint64_t plan = UINT64_MAX;                // the version all was written for
  };

  const uint32_t domain_;
  std::map<std::string, Entry> by_file_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SESSION_METADATA_LOG_H_

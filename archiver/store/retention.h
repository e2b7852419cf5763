// Retention: which archives to delete so that what is kept is no older than
// a maximum age and no larger in total than a maximum size. The policy is a
// pure function; ApplyRetention lists and deletes.
#ifndef MMVLOG_ARCHIVER_STORE_RETENTION_H_
#define MMVLOG_ARCHIVER_STORE_RETENTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "archiver/store/log.h"

namespace mmvlog::archiver {

struct RetentionPolicy {
  absl::Duration max_age = absl::InfiniteDuration();
  uint64_t max_total_bytes = 0;  // 0: no limit
};

struct ArchiveOnDisk {
  std::string base;
  absl::Time newest;   // latest mtime of its files
  uint64_t bytes = 0;  // all its files
};

// Archive bases to delete, oldest first. `keep` (the archive being written)
// is never chosen.
std::vector<std::string> ArchivesToDelete(std::vector<ArchiveOnDisk> archives,
                                          const RetentionPolicy& policy, absl::Time now,
                                          const std::string& keep);

// Finds the archives in `dir` (by their .meta files) and deletes what the
// policy says, logging each deletion.
absl::Status ApplyRetention(const std::string& dir, const RetentionPolicy& policy,
                            absl::Time now, const std::string& keep, const LogFunction& log);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_RETENTION_H_

// RecoverArchive: mmvlog's recovery step for an archive whose writer died
// (kill -9, power loss): every file is cut back to its last complete record
// (a torn tail is all a crash can leave, since each record is written in one
// write), index entries that point past the data are dropped, a torn index
// entry is cut, each volume's first record gets an entry if it lost its own
// (PCP starts reading at the first entry), and a final index entry is added
// for the last result, as pmlogger writes at exit. The result passes
// pmlogcheck and holds every record that was complete.
//
// Damage that is not a torn tail (DataLoss: a record whose two lengths
// differ in the middle of a file) is reported, not repaired: truncating there
// would throw away good records after it.
#ifndef MMVLOG_ARCHIVER_STORE_RECOVERY_H_
#define MMVLOG_ARCHIVER_STORE_RECOVERY_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace mmvlog::archiver {

struct RecoveryReport {
  std::vector<std::string> actions;  // one line per change made
  bool changed() const { return !actions.empty(); }
};

// Repairs the archive `base` (any of its file names works) in place.
// With `dry_run`, reports what it would do and changes nothing. An archive
// with no record at all gets a <mark> (PCP cannot open it otherwise) unless
// `resuming`: then the writer continuing it adds the records.
absl::Status RecoverArchive(absl::string_view base, bool dry_run,
                            RecoveryReport* report, bool resuming = false);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_RECOVERY_H_

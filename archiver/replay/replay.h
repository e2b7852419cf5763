// Replay: archives (ours or PCP's, v2 or v3, any compression libpcp reads)
// read as one recording and turned into rows for outputs, as a stream:
//
//   ArchiveSet -> ColumnSet -> SampleStream -> RecordRows | Interpolator -> Outputs
//   (which, in     (what is      (records, one     (rows at the records,   (csv, json,
//   time order)    shown)        at a time)        or on a -t grid)        dump, stats,
//                                                                          text, plots)
//
// Memory follows the width of the recording (its columns, one record, a
// row, what interpolation needs per column), never its length: every row
// is given to the outputs as soon as it is known, and no output keeps
// rows. The time window and grid follow pmval(1) and pmrep(1): PCP's time
// syntax for -S, -T, -O and -A resolved against the first archive's label
// time and the last archive's last record (format/text/pcp_time.h), a -t grid
// from the origin (interpolator.h), pmrep's row rules for CSV and JSON
// (every grid time a row; -s rows, and with -T the interval spread to fit,
// as pmrep does) and pmval's for the text table (text_output.h).
#ifndef MMVLOG_ARCHIVER_REPLAY_REPLAY_H_
#define MMVLOG_ARCHIVER_REPLAY_REPLAY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "archiver/replay/archive_set.h"
#include "archiver/replay/columns.h"
#include "archiver/replay/derived_columns.h"
#include "archiver/replay/output.h"
#include "archiver/replay/selection.h"
#include "archiver/store/log.h"
#include "format/derive/derive_config.h"
#include "format/text/pcp_time.h"

namespace mmvlog::archiver {

struct ReplayPlan {
  format::TimeWindowSpec window;           // -S -T -O -A as typed
  std::optional<absl::Duration> interval;  // -t
  int64_t samples = 0;                     // -s (0: all)
  bool raw = false;                        // -r
  absl::TimeZone zone;                     // of the times read and shown
  // The grid's rows as pmval prints them (the text table) rather than as
  // pmrep does (CSV, JSON and the rest): pmval stops at the archive's end
  // and counts -s in its iterations; pmrep reads 1 ms past the end and
  // takes -s as rows.
  bool pmval_rows = false;
  // Interpolated DISCRETE and INSTANT values as PCP before 6.3.2 gave
  // them (the prior sample's), not the nearer sample's (interpolator.h).
  bool prior_values = false;
  // At the records, a singular metric's values only where stored under
  // PM_IN_NULL, as pmrep -u's fetchgroup finds them (archives of the
  // 1990s stored them under instance 0, which interpolation ignores).
  bool strict_singular = false;
  // Derived rate() of a counter that went down: PCP before 6.2.1 takes the
  // difference in the counter's type (a U32 wraps: 2^32 - d); 6.2.1 and
  // later give no value (format::DeriveFetch::rate_wraps_backwards).
  bool rate_wraps_backwards = false;
  bool follow = false;  // keep reading a recording still being written
  // At the records, the stream is read on a second thread (SampleReadAhead)
  // when the volumes hold at least this many bytes (a thread costs 0.2 ms:
  // more than it saves on less). Tests: 0, always; UINT64_MAX, never.
  uint64_t read_ahead_from = 2 << 20;
  // pmrep -C: the outputs' headers, then nothing more.
  bool headers_only = false;
  // pmrep -d: a pause of the interval between rows on a grid (through
  // sleep_until).
  bool delay = false;
  // The archives' end read before the first row (ReplayHeader::finish and
  // last_record), which pmrep -x reports.
  bool wants_end = false;
  // Waits until a time; false: stop (a signal). Used while following.
  std::function<bool(absl::Time)> sleep_until;
};

struct ReplayReport {
  std::vector<std::string> damaged;  // damage met: an error (exit 1)
  std::string window_warning;        // e.g. an alignment that did not fit
};

class Replay {
 public:
  // Opens the archives and works out the columns, derived metrics
  // (pmrep -e) among them. Errors: NotFound when no archive can be opened;
  // InvalidArgument for a derived metric libpcp would refuse (its syntax
  // or semantic error). `rules`: the installed PCP's where its versions
  // differ (DeriveRules; as ReplayPlan::rate_wraps_backwards).
  static absl::StatusOr<Replay> Open(const std::vector<std::string>& names, const Selection& selection,
                                     const std::vector<format::DerivedDefinition>& derived = {},
                                     const DeriveRules& rules = {});

  const ArchiveSet& archives() const { return archives_; }
  // The columns shown: the chosen metrics, derived ones included.
  const ColumnSet& columns() const { return derived_ != nullptr ? derived_->shown() : columns_; }
  // Derived metrics chosen whose operands the archives lack
  // (DerivedColumns::unbound).
  const std::vector<std::string>& unbound_derived() const { return unbound_derived_; }

  // Reads the recording once, giving records and rows to `outputs` in time
  // order, then ends each. `log` gets warnings as they are found (archives
  // skipped, torn tails). Errors: InvalidArgument for a time window that
  // cannot be resolved (a usage error); an output's End error.
  absl::Status Run(const ReplayPlan& plan, const std::vector<Output*>& outputs, const LogFunction& log,
                   ReplayReport* report);

 private:
  Replay(ArchiveSet archives, ColumnSet columns, std::unique_ptr<DerivedColumns> derived)
      : archives_(std::move(archives)), columns_(std::move(columns)), derived_(std::move(derived)) {}
  ArchiveSet archives_;
  ColumnSet columns_;  // what the stream decodes (derived metrics' operands too)
  std::unique_ptr<DerivedColumns> derived_;
  std::vector<std::string> unbound_derived_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_REPLAY_H_

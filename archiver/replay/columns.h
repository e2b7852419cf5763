// The columns of a replay: one per chosen (metric, instance), known before
// the first record is read, from the archives' metadata, so that a stream
// can print its header first and keep only a row's width in memory.
//
// A metric is chosen by name (Selection); its columns are its instances as
// the archives' instance-domain records list them, in the order pmrep
// shows them (pmGetInDomArchive, logmeta.c: the newest record first, each
// record's instances by number, as libpcp sorts them when it loads the
// record, an instance at its first occurrence),
// archive after archive; a singular metric has one column (inst -1).
// Metrics come in the order of their descriptors in .meta (the first
// archive's first). Columns are keyed by (PMID, instance). Archives read
// together whose descriptors for one PMID differ in type, semantics,
// instance domain or units are refused, as libpcp refuses them.
#ifndef MMVLOG_ARCHIVER_REPLAY_COLUMNS_H_
#define MMVLOG_ARCHIVER_REPLAY_COLUMNS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "archiver/replay/archive_set.h"
#include "archiver/replay/selection.h"
#include "format/archive/archive_meta.h"

namespace mmvlog::archiver {

struct Column {
  uint32_t pmid = 0;
  int32_t inst = -1;     // -1: a singular metric
  size_t metric = 0;     // index in ColumnSet::metrics
  std::string instance;  // external name, "" for singular metrics
};

struct ReplayMetric {
  std::string name;
  format::Desc desc;
  std::string oneline, help;  // help text, "" where the archives have none
  std::vector<size_t> columns;
};

class ColumnSet {
 public:
  // Reads every archive's metadata. Errors: FailedPrecondition for a PMID
  // whose descriptor changes between archives (naming the metric, what
  // changed and both archives); none for an archive that cannot be opened
  // now (it is reported when streamed).
  static absl::StatusOr<ColumnSet> Build(const ArchiveSet& archives, const Selection& selection);

  // A set of these metrics and columns (Column::metric indexes `metrics`),
  // with `like`'s event parameter names and -i findings: the columns shown
  // when derived metrics stand beside raw ones (derived_columns.h).
  static ColumnSet Compose(std::vector<ReplayMetric> metrics, std::vector<Column> columns,
                           const ColumnSet& like);

  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<ReplayMetric>& metrics() const { return metrics_; }
  size_t size() const { return columns_.size(); }
  const format::Desc& desc(size_t column) const { return metrics_[columns_[column].metric].desc; }
  // "metric" or "metric[instance]".
  std::string Label(size_t column) const;
  // The column of (pmid, inst), or -1.
  ptrdiff_t Find(uint32_t pmid, int32_t inst) const;
  // The metric index of `pmid`, or -1 when it is not chosen.
  ptrdiff_t MetricOf(uint32_t pmid) const;
  // Names of the PMIDs event records may hold as parameters: every metric
  // in the .meta of an archive with an event metric.
  const std::map<uint32_t, std::string>& param_names() const { return param_names_; }
  // -i names that matched no instance of a chosen metric.
  const std::vector<std::string>& unmatched_instances() const { return unmatched_; }
  // Whether -i chose instances (else every instance the metadata names has
  // a column).
  bool instances_chosen() const { return instances_chosen_; }
  // A name's place in libpcp's walk of the archives' namespace
  // (pmns_order.h), SIZE_MAX for a name not there (a derived metric's);
  // known when metrics were named.
  size_t PmnsRank(const std::string& name) const {
    auto it = pmns_rank_.find(name);
    return it == pmns_rank_.end() ? SIZE_MAX : it->second;
  }

 private:
  std::vector<Column> columns_;
  std::vector<ReplayMetric> metrics_;
  absl::flat_hash_map<uint32_t, size_t> metric_of_pmid_;
  absl::flat_hash_map<uint64_t, size_t> column_of_;
  std::map<uint32_t, std::string> param_names_;
  std::vector<std::string> unmatched_;
  bool instances_chosen_ = false;
  absl::flat_hash_map<std::string, size_t> pmns_rank_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_COLUMNS_H_

// MmvMapper: turns parsed MMV files into PCP metadata exactly as PCP's MMV
// PMDA (pmdammv, src/pmdas/mmv/src/mmv.c) exports them, and does better
// where pmdammv is wrong (shared/notes/PCP-BEHAVIOUR.md sections 1 and 4).
//
// As pmdammv: names "<prefix>.<file>.<metric>" ("<prefix>.<metric>" with
// NOPREFIX) that must match [A-Za-z][A-Za-z0-9_.]*, the alphabetically first
// file winning a name; PMID (domain, cluster, item) with items up to 1023;
// the header's cluster when it is 1..4095, a free one otherwise, a file with
// a cluster above 4095 rejected; indoms (domain, cluster << 11 | serial);
// semantics 0 read as counter; ELAPSED a 64-bit counter in microseconds;
// NOSUPPORT metrics absent; help text; v3 labels.
// Better than pmdammv: a file keeps its cluster, and a name its PMID, for the
// life of the mapper (one archive), so a PMID never changes meaning; clusters
// pinned by a file are never handed to another file; cluster labels are kept
// when the cluster was assigned automatically; indom help text is exported;
// labels with the OPTIONAL flag are kept; the pmUnits pad byte is zeroed.
//
// Files that share a cluster, as pmdammv lets them: files written with
// MMV_FLAG_NOPREFIX asking for the same cluster all get it, and a metric
// they define alike (same name, item and descriptor) is one metric whose
// instance domain holds the instances of all of them (the recorder merges
// their instance lists and values: MergeSharedSets). A later file's metric
// that clashes with an earlier one's (same name or item, another
// descriptor) is left out with a warning, as pmdammv keeps only the first.
// Files with a prefix keep getting a cluster of their own (pmdammv would
// give two PMIDs one number).
//
// A mapped file's values, sample by sample: mapped_values.h.
//
// Pure: no I/O, no clock.
#ifndef MMVLOG_ARCHIVER_MMV_MMV_MAPPING_H_
#define MMVLOG_ARCHIVER_MMV_MMV_MAPPING_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "format/archive/archive_meta.h"
#include "format/mmv/mmv_reader.h"

namespace mmvlog::archiver {

inline constexpr uint32_t kMmvDomain = 70;  // MMV in PCP's stdpmid

struct MappingOptions {
  std::string prefix = "mmv";  // first component of every name
  uint32_t domain = kMmvDomain;
  // Shell globs on full metric names (fnmatch(3)): a metric is recorded when
  // it matches an include pattern (or there are none) and no exclude one.
  std::vector<std::string> include;
  std::vector<std::string> exclude;
};

// How one exported metric gets its values from a snapshot.
struct MappedMetric {
  format::Desc desc;
  format::MmvType mmv_type = format::MmvType::kU64;
  // Indices into MmvFile::values, in the order pmdammv returns them (the
  // indom's instance order).
  std::vector<uint32_t> values;
  // File offsets of those values' bytes, same order (for ValuePlan).
  std::vector<uint32_t> offsets;
};

struct MappedFile {
  std::string name;  // the file name in the MMV directory
  std::shared_ptr<const format::MmvFile> mmv;
  uint32_t cluster = 0;
  // Shares `cluster` with a file mapped before it (both NOPREFIX).
  bool shares_cluster = false;
  bool sentinel = false;  // MMV_FLAG_SENTINEL
  // Every sample gives the same value sets and instances (no sentinels,
  // which leave values out), each value a number, an elapsed time or a
  // string, so a recorder can keep the encoded result and only store new
  // values: see ValuePlan (a string may outgrow its place: then the
  // result is encoded afresh).
  bool fixed_layout = false;
  std::vector<MappedMetric> metrics;
  std::vector<format::InDom> indoms;  // full instance lists, no timestamp
  std::vector<format::HelpText> texts;
  std::vector<format::LabelRecord> labels;  // cluster/item/indom/instances
  // Metrics or labels left out, one line each (the file still records).
  std::vector<std::string> warnings;
  // Where the values' bytes lie in the file: the least offset and past the
  // last value entry (NoteValueRange), for a reader to prefetch a file
  // ahead of reading it; equal when unknown.
  size_t values_from = 0;
  size_t values_to = 0;
};

// Sets f->values_from and values_to from its metrics' offsets.
void NoteValueRange(MappedFile* f);

class MmvMapper {
 public:
  explicit MmvMapper(MappingOptions options = {}) : options_(std::move(options)) {}

  // Reserves the header's cluster of each of `files` (name, header cluster)
  // before any is mapped, so an automatic cluster never takes one a file
  // pins. Call with every file seen in a scan, in any order.
  void ReserveClusters(const std::vector<std::pair<std::string, int32_t>>& files);

  // Seeds name -> PMID from an archive being continued, so a file recorded
  // before keeps its cluster and every name its PMID.
  void Seed(const std::vector<format::Desc>& descs);

  // Maps one file. Errors (the file is not recorded, as pmdammv skips it):
  // InvalidArgument for a cluster outside 0..4095, ResourceExhausted when no
  // cluster is free, AlreadyExists when a name this file had before now has
  // another item (its PMID would change: a new archive is needed).
  absl::StatusOr<MappedFile> Map(const std::string& name,
                                 std::shared_ptr<const format::MmvFile> mmv);

  const MappingOptions& options() const { return options_; }

 private:
  // Map's steps: each metric's PMID and descriptor (an error when one of
  // this file's names would change PMID), the instance domains its metrics
  // use, the labels, and whether the values can be read in place.
  absl::Status MapMetrics(const std::string& name, const std::string& prefix, MappedFile* out);
  // One metric, or nullopt (with a warning when it is not simply left
  // unselected) when it is not exported.
  absl::StatusOr<std::optional<MappedMetric>> MapMetric(const std::string& name,
                                                       const std::string& full,
                                                       const format::MmvMetric& m,
                                                       absl::flat_hash_set<std::string>* names_here,
                                                       MappedFile* out);
  void MapIndoms(const std::vector<bool>& used, MappedFile* out) const;
  void MapLabels(const absl::flat_hash_map<uint32_t, uint32_t>& pmid_of_item, MappedFile* out) const;
  uint32_t IndomId(uint32_t cluster, uint32_t serial) const;
  absl::StatusOr<uint32_t> ClusterFor(const std::string& name, int32_t requested,
                                      std::optional<uint32_t> seeded, bool noprefix,
                                      bool* shared);

  MappingOptions options_;
  absl::flat_hash_map<std::string, uint32_t> cluster_of_file_;
  absl::flat_hash_map<uint32_t, std::string> file_of_cluster_;
  absl::flat_hash_map<uint32_t, std::string> reserved_;  // pinned cluster -> file
  absl::flat_hash_map<std::string, uint32_t> pmid_of_name_;
  absl::flat_hash_set<uint32_t> noprefix_clusters_;  // owned by a NOPREFIX file
  // PMIDs of shared clusters: the file that defined each first, and how.
  absl::flat_hash_map<uint32_t, std::pair<std::string, format::Desc>> first_of_pmid_;
};

// pmdammv's name rule for the whole metric name.
bool IsValidPcpName(absl::string_view name);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_MMV_MMV_MAPPING_H_

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
// Pure: no I/O, no clock.
#ifndef MMVLOG_ARCHIVER_RECORD_MMV_MAPPING_H_
#define MMVLOG_ARCHIVER_RECORD_MMV_MAPPING_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "format/archive_meta.h"
#include "format/archive_result.h"
#include "format/mmv_reader.h"
#include "format/result_template.h"

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
  // File offsets of those values' bytes, same order (for StoreValues).
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
  // values: see StoreValues (a string may outgrow its place: then the
  // result is encoded afresh).
  bool fixed_layout = false;
  std::vector<MappedMetric> metrics;
  std::vector<format::InDom> indoms;  // full instance lists, no timestamp
  std::vector<format::HelpText> texts;
  std::vector<format::LabelRecord> labels;  // cluster/item/indom/instances
  // Metrics or labels left out, one line each (the file still records).
  std::vector<std::string> warnings;
};

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

// Merges the value sets of one PMID that files sharing a cluster gave
// (sets [0, n) of `result`): the first set keeps its values and takes the
// instances only later ones have, as pmdammv answers an instance from the
// first file that has it. Returns the number of sets left.
size_t MergeSharedSets(format::Result* result, size_t n);

// Appends one value set per metric of `file` to `result`, read from `image`
// (a snapshot of the same generation). `now_usec` is the wall clock in
// microseconds, for ELAPSED intervals still running. Values that are
// sentinels under MMV_FLAG_SENTINEL are left out; a value that cannot be
// decoded becomes an error set (PM_ERR_GENERIC, as pmdammv).
void AppendValueSets(const MappedFile& file, std::span<const uint8_t> image,
                     int64_t now_usec, format::Result* result);

// The same, writing sets at result->sets[at], [at + 1], ... and reusing
// what is there (its values' memory), growing the vector as needed. Returns
// the index after the last set written. The recorder calls this every
// sample, so a steady sample allocates nothing.
size_t FillValueSets(const MappedFile& file, std::span<const uint8_t> image,
                     int64_t now_usec, format::Result* result, size_t at);

// The instances of `m`'s values, in order (kInNull for a singular
// metric): the instances FillValueSets gives it when none is left out.
std::vector<int32_t> Instances(const MappedFile& file, const MappedMetric& m);

// The value sizes of `m` for a template's SetLayout: for a STRING metric
// each string's size with its NUL, read from `image`; empty for numbers.
// nullopt when a string cannot be read (FillValueSets would give the set
// an error).
std::optional<std::vector<uint32_t>> ValueSizes(const MappedFile& file, const MappedMetric& m,
                                                std::span<const uint8_t> image);

// The fast path of FillValueSets for a file with fixed_layout: stores its
// values from `image` (a snapshot, or the file's mapping) straight into the
// record of `tmpl`, whose sets *at, *at + 1, ... were made from what
// FillValueSets gave for this same MappedFile, and advances *at past them.
// `now_usec` as for FillValueSets (ELAPSED intervals still running).
// Each string is read from one copy of its slot (its length and bytes
// agree, whatever a writer does meanwhile). Returns false when the record
// cannot take this sample: a string that no longer fits its place or cannot
// be read (the template is then partly stored; encode the result whole).
// REQUIRES: file.fixed_layout and image.size() >= file.mmv->size.
bool StoreValues(const MappedFile& file, std::span<const uint8_t> image, int64_t now_usec,
                 format::ResultTemplate* tmpl, size_t* at);

// pmdammv's name rule for the whole metric name.
bool IsValidPcpName(absl::string_view name);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_RECORD_MMV_MAPPING_H_

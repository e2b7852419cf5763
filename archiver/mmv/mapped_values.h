// The values of a mapped MMV file (mmv_mapping.h) as a recorder writes
// them, sample after sample: value sets for a result (FillValueSets,
// AppendValueSets; MergeSharedSets for files sharing a cluster), read as
// pmdammv reads them (shared/notes/PCP-BEHAVIOUR.md section 1.6: SENTINEL,
// running ELAPSED intervals, strings from their slots, PM_ERR_GENERIC for a
// value that cannot be decoded), and the fast path that stores them straight
// into an encoded result (format::ResultTemplate: Instances, ValueSizes,
// ValuePlan), which gives the same bytes (tested).
//
// Pure: no I/O, no clock (the time is given).
#ifndef MMVLOG_ARCHIVER_MMV_MAPPED_VALUES_H_
#define MMVLOG_ARCHIVER_MMV_MAPPED_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "archiver/mmv/mmv_mapping.h"
#include "format/archive/archive_result.h"
#include "format/archive/result_template.h"

namespace mmvlog::archiver {

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

// The fast path of FillValueSets, for a group of files with fixed_layout
// whose record template (format::ResultTemplate) was made from what
// FillValueSets gave for them, in order: their metrics are the template's
// sets 0, 1, ... Store puts one file's values from `image` (a snapshot, or
// the file's mapping) straight into the record, the bytes EncodeResult
// gives for what FillValueSets reads (tested).
//
// What a store needs is laid out in three flat arrays (files, metrics,
// offsets), made once per template: a tick over a thousand small files then
// reads its own memory in order, where going from each MappedFile to its
// metrics and from each metric to its offsets was a thousand places out of
// cache a tick (issue 32).
class ValuePlan {
 public:
  ValuePlan() = default;
  // REQUIRES: every file outlives the plan (the ResultWriter holds them).
  static ValuePlan Make(std::span<const std::shared_ptr<const MappedFile>> files);

  size_t files() const { return files_.size(); }
  // Where file `i`'s values lie in it: [from, to), for prefetching.
  size_t values_from(size_t i) const { return files_[i].values_from; }
  size_t values_to(size_t i) const { return files_[i].values_to; }
  // Stores file `i`'s values (into its sets, where Make placed them);
  // `now_usec` as for FillValueSets (ELAPSED intervals still running).
  // Each string is read from one copy of its slot (its length and bytes
  // agree, whatever a writer does meanwhile). False when the record cannot
  // take this sample: a string that no longer fits its place or cannot be
  // read (the template is then partly stored; encode the result whole).
  // REQUIRES: image.size() >= the file's size.
  bool Store(size_t i, std::span<const uint8_t> image, int64_t now_usec,
             format::ResultTemplate* tmpl) const;

 private:
  struct File {
    const format::MmvFile* mmv = nullptr;  // for strings
    uint32_t first_metric = 0, end_metric = 0;
    uint32_t values_from = 0, values_to = 0;
  };
  struct Metric {
    uint32_t first_offset = 0, count = 0;
    uint32_t set = 0;
    format::MmvType type = format::MmvType::kU64;
  };
  std::vector<File> files_;
  std::vector<Metric> metrics_;
  std::vector<uint32_t> offsets_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_MMV_MAPPED_VALUES_H_

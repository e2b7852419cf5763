// The values of a mapped MMV file (mmv_mapping.h) as a recorder writes
// them, sample after sample: value sets for a result (FillValueSets,
// AppendValueSets; MergeSharedSets for files sharing a cluster), read as
// pmdammv reads them (shared/notes/PCP-BEHAVIOUR.md section 1.6: SENTINEL,
// running ELAPSED intervals, strings from their slots, PM_ERR_GENERIC for a
// value that cannot be decoded), and the fast path that stores them straight
// into an encoded result (format::ResultTemplate: Instances, ValueSizes,
// StoreValues), which gives the same bytes (tested).
//
// Pure: no I/O, no clock (the time is given).
#ifndef MMVLOG_ARCHIVER_MMV_MAPPED_VALUES_H_
#define MMVLOG_ARCHIVER_MMV_MAPPED_VALUES_H_

#include <cstddef>
#include <cstdint>
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

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_MMV_MAPPED_VALUES_H_

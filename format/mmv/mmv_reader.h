// ParseMmv: the whole-file view of an MMV file (mmv(5), versions 1, 2, 3),
// decoded from a copy of its bytes, validated completely, and ReadMmvValue to
// decode one value from a (possibly newer) copy of the same file.
//
// Pure: bytes in, values out. Reading the file consistently (generation
// checks, retries, files that shrink) is archiver/mmv/mmv_source's job.
//
// One file pair per part of the file, each enforcing its rules below:
// mmv_toc (header and TOC: M1-M13, ParseMmvHeader, MmvExtent), mmv_indoms
// (indoms and instances), mmv_metrics, mmv_values (value entries and
// ReadMmvValue), mmv_labels, mmv_strings (fixed fields and the STRINGS
// section); mmv_file holds the parsed view; mmv_parse the state they share.
// This header gathers them and ParseMmv runs them in order.
//
// Validation rules. Every rule has a test in tests/format/mmv_reader_test.cc
// with a crafted file; every error message starts "offset <N>: " (the byte
// offset of the offending field or entry) and names the rule's subject.
//   M1  file shorter than the 40-byte header              InvalidArgument
//   M2  magic is not "MMV\0"                              InvalidArgument
//   M3  version is not 1, 2 or 3                          Unimplemented
//   M4  generation 1 is zero or differs from generation 2 Unavailable
//   M5  fewer than 2 TOC entries                          DataLoss
//   M6  TOC table runs past the end of the file           DataLoss
//   M7  unknown section type                              DataLoss
//   M8  a section type appears twice                      DataLoss
//   M9  no METRICS or no VALUES section                   DataLoss
//   M10 negative count, or count * entry size past EOF    DataLoss
//   M11 section misaligned (not 8-byte) or inside header/TOC DataLoss
//   M12 two sections overlap                              DataLoss
//   M13 LABELS section in a v1/v2 file, or over 255 labels DataLoss
//   M14 string offset outside the STRINGS section          DataLoss
//       (anywhere inside is read, as PCP does: not only libpcp_mmv's
//       256-byte slots)
//   M15 string without a NUL within 256 bytes and the section's end (or
//       a v1 name / label field without one)              DataLoss
//   M16 indom's instances outside the INSTANCES section   DataLoss
//   M17 instance whose indom offset is not its indom      DataLoss
//   M18 unknown metric type                               DataLoss
//   M21 duplicate indom serial                            DataLoss
//   M22 duplicate instance id within an indom             DataLoss
//   M23 metric names an unknown indom                     DataLoss
//   M24 value's metric offset is not a metric entry       DataLoss
//   M25 value's instance offset is not an instance of the metric's indom
//       (or a singular metric's value names an instance)  DataLoss
//   M26 two values for the same metric and instance       DataLoss
//   M27 label with no, several or unknown type flags      DataLoss
//   M28 label names an unknown item, indom or instance    DataLoss
//   M29 empty metric name                                 DataLoss
//   M30 (ReadMmvValue) string value outside the STRINGS section or
//       without a NUL                                     DataLoss
//   M31 negative instance id (PCP's instance ids are >= 0; -1 is
//       PM_IN_NULL, and no archive may hold one)          DataLoss
// Deliberately not rules here (pmdammv skips the metric, not the file, so the
// mapping in archiver/ does the same): item over 1023, more than 1023
// metrics, names that are not PCP metric names, and (formerly M20) a
// metric whose item an earlier one has (MmvMetric::duplicate_item), and
// (formerly M19) unknown semantics, kept in MmvMetric::semantics.
#ifndef MMVLOG_FORMAT_MMV_MMV_READER_H_
#define MMVLOG_FORMAT_MMV_MMV_READER_H_

#include <cstdint>
#include <span>

#include "absl/status/statusor.h"
#include "format/mmv/mmv_file.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_strings.h"
#include "format/mmv/mmv_toc.h"
#include "format/mmv/mmv_values.h"

namespace mmvlog::format {

// Parses and validates a complete MMV file image. `bytes` is a copy of the
// file (not a live mapping). Errors: see the rule table above; messages
// start with "offset <N>: ".
absl::StatusOr<MmvFile> ParseMmv(std::span<const uint8_t> bytes);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_MMV_READER_H_

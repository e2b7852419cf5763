// ParseMmv: the whole-file view of an MMV file (mmv(5), versions 1, 2, 3),
// decoded from a copy of its bytes, validated completely, and ReadMmvValue to
// decode one value from a (possibly newer) copy of the same file.
//
// Pure: bytes in, values out. Reading the file consistently (generation
// checks, retries, files that shrink) is archiver/mmv_source's job.
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
//   M19 unknown semantics                                 DataLoss
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
// metric whose item an earlier one has (MmvMetric::duplicate_item).
#ifndef MMVLOG_FORMAT_MMV_READER_H_
#define MMVLOG_FORMAT_MMV_READER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "format/mmv_format.h"

namespace mmvlog::format {

struct MmvHeader {
  int32_t version = 0;
  uint64_t generation1 = 0;
  uint64_t generation2 = 0;
  int32_t toc_count = 0;
  uint32_t flags = 0;
  int32_t process = 0;
  int32_t cluster = 0;
};

struct MmvSection {
  MmvTocType type;
  uint32_t count = 0;
  uint64_t offset = 0;  // of the first entry
  uint64_t size = 0;    // count * entry size
};

struct MmvInstance {
  int32_t internal = 0;
  std::string external;
  uint64_t offset = 0;  // of the instance entry
};

struct MmvIndom {
  uint32_t serial = 0;
  std::vector<MmvInstance> instances;
  std::string short_help;  // empty when absent
  std::string long_help;
  uint64_t offset = 0;
};

struct MmvMetric {
  std::string name;  // as in the file, without any prefix
  uint32_t item = 0;
  MmvType type = MmvType::kNoSupport;
  int32_t semantics = 0;  // as in the file (0 = counter for PCP)
  uint32_t units = 0;     // pmUnits bit-field word as read (native order)
  uint32_t indom = kMmvIndomNull;  // indom serial
  int32_t indom_index = -1;        // into MmvFile::indoms, -1 if singular
  std::string short_help;
  std::string long_help;
  uint64_t offset = 0;
  // An earlier metric of the file has the same item: PCP's MMV agent keeps
  // the first and ignores this one, the rest of the file still exported.
  bool duplicate_item = false;
};

struct MmvValueEntry {
  uint32_t metric_index = 0;       // into MmvFile::metrics
  int32_t instance_index = -1;     // into the indom's instances, -1 if none
  int32_t instance = kMmvInNull;   // internal instance id, or PM_IN_NULL
  uint64_t offset = 0;             // of the value entry
};

struct MmvLabel {
  uint32_t flags = 0;
  uint32_t identity = 0;
  int32_t internal = kMmvInNull;
  std::string payload;  // JSON "{"name":value}"
  uint64_t offset = 0;
};

struct MmvFile {
  MmvHeader header;
  uint64_t size = 0;  // bytes parsed
  std::vector<MmvSection> sections;  // in TOC order
  std::vector<MmvIndom> indoms;      // in file order
  std::vector<MmvMetric> metrics;    // in file order
  std::vector<MmvValueEntry> values; // in file order
  std::vector<MmvLabel> labels;      // in file order
  // The VALUES section (every value entry lies inside it).
  uint64_t values_offset = 0;
  uint64_t values_size = 0;
  // The STRINGS section, or 0/0 when absent.
  uint64_t strings_offset = 0;
  uint64_t strings_size = 0;
};

// Parses and validates a complete MMV file image. `bytes` is a copy of the
// file (not a live mapping). Errors: see the rule table above; messages
// start with "offset <N>: ".
absl::StatusOr<MmvFile> ParseMmv(std::span<const uint8_t> bytes);

// Reads only the header (M1-M4 apply). Used to re-check generations.
absl::StatusOr<MmvHeader> ParseMmvHeader(std::span<const uint8_t> bytes);

// The number of bytes from the start of a file of `file_size` bytes that
// hold its header, TOC and every section the TOC names: the most a reader
// needs to copy, known before copying it. `prefix` is the start of the file:
// at least the header, and the whole TOC when the header's TOC count fits the
// file (else the TOC rule M6 is reported from the sizes alone, without
// reading it). Errors: M1-M7, M10 as ParseMmv reports them.
absl::StatusOr<uint64_t> MmvExtent(std::span<const uint8_t> prefix, uint64_t file_size);

// One decoded value. For 32-bit types `u64`/`i64` hold the widened value.
struct MmvValue {
  MmvType type = MmvType::kNoSupport;
  uint64_t u64 = 0;   // kU32, kU64 (also the raw 8 atom bytes for others)
  int64_t i64 = 0;    // kI32, kI64, kElapsed (value.ll)
  double f64 = 0;     // kFloat, kDouble
  int64_t extra = 0;  // kElapsed: negative while an interval is running
  std::string str;    // kString
};

// Decodes value `entry` of `file` from `bytes`, an image of the same file
// (same generation) whose values and string slots may be newer than the
// image `file` was parsed from. Errors: M30.
absl::StatusOr<MmvValue> ReadMmvValue(std::span<const uint8_t> bytes,
                                      const MmvFile& file,
                                      const MmvValueEntry& entry);

// Decodes the string slot at `offset` of an image (M14, M15).
absl::StatusOr<std::string> ReadMmvString(std::span<const uint8_t> bytes,
                                          const MmvFile& file, uint64_t offset,
                                          uint64_t referrer);

// Human names, e.g. "64-bit unsigned int", "elapsed", "counter".
const char* MmvTypeName(MmvType type);
const char* MmvSemanticsName(int32_t semantics);
bool IsKnownMmvType(int32_t type);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_READER_H_

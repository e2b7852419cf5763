// The parsed view of an MMV file (mmv(5), versions 1, 2, 3) that ParseMmv
// (format/mmv/mmv_reader.h) builds: the header, the TOC's sections, indoms with
// their instances, metrics, value entries and labels, each with the file
// offset of its entry; and one decoded value. Plain data: every invariant
// (the M rules in mmv_reader.h) holds because ParseMmv checked it.
#ifndef MMVLOG_FORMAT_MMV_MMV_FILE_H_
#define MMVLOG_FORMAT_MMV_MMV_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "format/mmv/mmv_format.h"

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

// One decoded value. For 32-bit types `u64`/`i64` hold the widened value.
struct MmvValue {
  MmvType type = MmvType::kNoSupport;
  uint64_t u64 = 0;   // kU32, kU64 (also the raw 8 atom bytes for others)
  int64_t i64 = 0;    // kI32, kI64, kElapsed (value.ll)
  double f64 = 0;     // kFloat, kDouble
  int64_t extra = 0;  // kElapsed: negative while an interval is running
  std::string str;    // kString
};

// Human names, e.g. "64-bit unsigned int", "elapsed", "counter".
const char* MmvTypeName(MmvType type);
const char* MmvSemanticsName(int32_t semantics);
bool IsKnownMmvType(int32_t type);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_MMV_FILE_H_

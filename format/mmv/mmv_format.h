// MMV ("memory mapped values") file format constants. Normative source:
// mmv(5) (shared/spec/mmv.5.txt) and PCP's <pcp/mmv_dev.h>. MMV files are
// written from C structs in the writer's native byte order; the mirror structs
// below are only ever filled with memcpy (LoadNative), never overlaid on the
// file's bytes. The values here are frozen in the file format.
#ifndef MMVLOG_FORMAT_MMV_MMV_FORMAT_H_
#define MMVLOG_FORMAT_MMV_MMV_FORMAT_H_

#include <cstddef>
#include <cstdint>

namespace mmvlog::format {

inline constexpr char kMmvMagic[4] = {'M', 'M', 'V', '\0'};
inline constexpr int32_t kMmvVersion1 = 1;  // inline names (64 bytes)
inline constexpr int32_t kMmvVersion2 = 2;  // names in string slots
inline constexpr int32_t kMmvVersion3 = 3;  // v2 + labels

// Section ("TOC") types. Frozen in the file format.
enum class MmvTocType : int32_t {
  kIndoms = 1,
  kInstances = 2,
  kMetrics = 3,
  kValues = 4,
  kStrings = 5,
  kLabels = 6,
};

// Metric types (mmv_stats.h; equal to PM_TYPE_* except ELAPSED).
enum class MmvType : int32_t {
  kNoSupport = -1,
  kI32 = 0,
  kU32 = 1,
  kI64 = 2,
  kU64 = 3,
  kFloat = 4,
  kDouble = 5,
  kString = 6,
  kElapsed = 9,  // 64-bit elapsed time; exported as a PM_TYPE_64 counter
};

// Semantics (PM_SEM_*). 0 is accepted and read as counter, as pmdammv does.
inline constexpr int32_t kMmvSemUnset = 0;
inline constexpr int32_t kMmvSemCounter = 1;
inline constexpr int32_t kMmvSemInstant = 3;
inline constexpr int32_t kMmvSemDiscrete = 4;

// Header flags.
inline constexpr uint32_t kMmvFlagNoPrefix = 0x1;  // names without file name
inline constexpr uint32_t kMmvFlagProcess = 0x2;   // export only while PID lives
inline constexpr uint32_t kMmvFlagSentinel = 0x4;  // all-ones / NaN = no value
inline constexpr uint32_t kMmvKnownFlags =
    kMmvFlagNoPrefix | kMmvFlagProcess | kMmvFlagSentinel;

// A metric or indom serial of this value means "no instance domain".
inline constexpr uint32_t kMmvIndomNull = 0xffffffff;
// Label "internal" for labels that are not per instance (PM_IN_NULL).
inline constexpr int32_t kMmvInNull = -1;

// Label flags (PM_LABEL_* in pmapi.h).
inline constexpr uint32_t kMmvLabelIndom = 1u << 2;
inline constexpr uint32_t kMmvLabelCluster = 1u << 3;
inline constexpr uint32_t kMmvLabelItem = 1u << 4;
inline constexpr uint32_t kMmvLabelInstances = 1u << 5;
inline constexpr uint32_t kMmvLabelOptional = 1u << 7;
inline constexpr uint32_t kMmvLabelTypeMask =
    kMmvLabelIndom | kMmvLabelCluster | kMmvLabelItem | kMmvLabelInstances;

// Field widths.
inline constexpr size_t kMmvNameMax = 64;     // v1 inline names, with NUL
inline constexpr size_t kMmvStringMax = 256;  // string slot, with NUL
inline constexpr size_t kMmvLabelMax = 244;   // label payload, with NUL

// Limits PCP's MMV PMDA applies (src/pmdas/mmv/src/mmv.c).
inline constexpr uint32_t kMmvMaxItem = 1023;       // 10-bit PMID item
inline constexpr int32_t kMmvMaxCluster = 4095;     // 12-bit PMID cluster
inline constexpr uint32_t kMmvMaxIndomSerial = (1u << 22) - 1;
inline constexpr uint32_t kMmvMaxLabels = 255;
inline constexpr uint32_t kMmvMaxMetrics = 1023;
// Sections start on 8-byte boundaries: every entry size is a multiple of 8
// and all known writers (libpcp_mmv, Parfait, Speed, Hornet) lay them out
// back to back after the 40-byte header.
inline constexpr uint64_t kMmvSectionAlign = 8;

// Header (mmv_disk_header_t), 40 bytes.
struct MmvDiskHeader {
  char magic[4];
  int32_t version;
  uint64_t g1;  // generation, written first at creation
  uint64_t g2;  // generation, written last; g1 == g2 != 0 when complete
  int32_t tocs;
  uint32_t flags;
  int32_t process;
  int32_t cluster;
};
static_assert(sizeof(MmvDiskHeader) == 4 + 4 + 8 + 8 + 4 + 4 + 4 + 4);
static_assert(offsetof(MmvDiskHeader, g1) == 8);
static_assert(offsetof(MmvDiskHeader, tocs) == 24);
static_assert(offsetof(MmvDiskHeader, cluster) == 36);
inline constexpr size_t kMmvHeaderSize = sizeof(MmvDiskHeader);

// TOC entry (mmv_disk_toc_t), 16 bytes.
struct MmvDiskToc {
  int32_t type;
  int32_t count;
  uint64_t offset;
};
static_assert(sizeof(MmvDiskToc) == 16);

// Indom entry (mmv_disk_indom_t), 32 bytes.
struct MmvDiskIndom {
  uint32_t serial;
  uint32_t count;
  uint64_t offset;     // first instance
  uint64_t shorttext;  // string slot or 0
  uint64_t helptext;   // string slot or 0
};
static_assert(sizeof(MmvDiskIndom) == 32);

// Instance entry, v1 (mmv_disk_instance_t), 80 bytes.
struct MmvDiskInstance1 {
  uint64_t indom;  // offset of the owning indom entry
  uint32_t padding;
  int32_t internal;
  char external[kMmvNameMax];
};
static_assert(sizeof(MmvDiskInstance1) == 8 + 4 + 4 + 64);

// Instance entry, v2/v3 (mmv_disk_instance2_t), 24 bytes.
struct MmvDiskInstance2 {
  uint64_t indom;
  uint32_t padding;
  int32_t internal;
  uint64_t external;  // string slot
};
static_assert(sizeof(MmvDiskInstance2) == 24);

// Metric entry, v1 (mmv_disk_metric_t), 104 bytes.
struct MmvDiskMetric1 {
  char name[kMmvNameMax];
  uint32_t item;
  int32_t type;
  int32_t semantics;
  uint32_t dimension;  // pmUnits bit-field word, native order
  int32_t indom;       // indom serial or -1
  uint32_t padding;
  uint64_t shorttext;
  uint64_t helptext;
};
static_assert(sizeof(MmvDiskMetric1) == 104);
static_assert(offsetof(MmvDiskMetric1, item) == 64);
static_assert(offsetof(MmvDiskMetric1, shorttext) == 88);

// Metric entry, v2/v3 (mmv_disk_metric2_t), 48 bytes.
struct MmvDiskMetric2 {
  uint64_t name;  // string slot
  uint32_t item;
  int32_t type;
  int32_t semantics;
  uint32_t dimension;
  int32_t indom;
  uint32_t padding;
  uint64_t shorttext;
  uint64_t helptext;
};
static_assert(sizeof(MmvDiskMetric2) == 48);
static_assert(offsetof(MmvDiskMetric2, shorttext) == 32);

// Value entry (mmv_disk_value_t), 32 bytes.
struct MmvDiskValue {
  uint64_t value;   // pmAtomValue: the low 4 bytes hold 32-bit types
  int64_t extra;    // STRING: slot offset; ELAPSED: -(start) while running
  uint64_t metric;  // offset of the metric entry
  uint64_t instance;  // offset of the instance entry, 0 if singular
};
static_assert(sizeof(MmvDiskValue) == 32);
inline constexpr size_t kMmvValueAtomOffset = 0;
inline constexpr size_t kMmvValueExtraOffset = 8;

// Label entry, v3 (mmv_disk_label_t), 256 bytes.
struct MmvDiskLabel {
  uint32_t flags;
  uint32_t identity;
  int32_t internal;
  char payload[kMmvLabelMax];
};
static_assert(sizeof(MmvDiskLabel) == 4 + 4 + 4 + 244);

// String slot (mmv_disk_string_t), 256 bytes.
inline constexpr size_t kMmvStringSlotSize = kMmvStringMax;

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_MMV_FORMAT_H_

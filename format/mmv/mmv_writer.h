// BuildMmv: assembles an MMV file image (mmv(5), versions 1, 2, 3) from a
// description, laid out as libpcp_mmv lays it out: header, TOC, indoms,
// instances, metrics, values, strings, labels. Used by tests to craft files
// (valid ones, and broken ones by editing the bytes afterwards) and by the
// demo application, which maps the image and updates values in place with
// the Set* functions below.
//
// Pure: the image is returned in memory, in the host's byte order.
#ifndef MMVLOG_FORMAT_MMV_MMV_WRITER_H_
#define MMVLOG_FORMAT_MMV_MMV_WRITER_H_

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/mmv/mmv_format.h"

namespace mmvlog::format {

struct MmvSpecInstance {
  int32_t id = 0;
  std::string name;
};

struct MmvSpecIndom {
  uint32_t serial = 0;
  std::vector<MmvSpecInstance> instances;
  std::string short_help;  // empty: none
  std::string long_help;
};

struct MmvSpecMetric {
  std::string name;
  uint32_t item = 0;
  MmvType type = MmvType::kU64;
  int32_t semantics = kMmvSemCounter;
  uint32_t units = 0;  // pmUnits word (format/pm_units.h)
  uint32_t indom = kMmvIndomNull;  // indom serial, or none
  std::string short_help;
  std::string long_help;
};

struct MmvSpecLabel {
  uint32_t flags = kMmvLabelItem;
  uint32_t identity = 0;
  int32_t internal = kMmvInNull;
  std::string payload;  // {"name":value}
};

struct MmvSpec {
  // 0 picks the lowest version that can hold the content, as libpcp_mmv
  // does: 1, or 2 for names over 63 bytes, or 3 when there are labels.
  int32_t version = 0;
  uint32_t flags = 0;
  int32_t process = 0;
  int32_t cluster = 0;
  uint64_t generation = 1;  // written to both g1 and g2; must not be 0
  std::vector<MmvSpecIndom> indoms;
  std::vector<MmvSpecMetric> metrics;  // one value per instance of its indom
  std::vector<MmvSpecLabel> labels;
};

// Where one metric's value for one instance lives in the image.
struct MmvValueSlot {
  uint64_t value_offset = 0;   // of the 32-byte value entry
  uint64_t string_offset = 0;  // STRING metrics: the value's string slot
};

struct MmvImage {
  std::vector<uint8_t> bytes;
  int32_t version = 0;
  // (item, internal instance id or PM_IN_NULL) -> slot.
  absl::flat_hash_map<std::pair<uint32_t, int32_t>, MmvValueSlot> slots;

  // REQUIRES: the metric/instance exists.
  const MmvValueSlot& slot(uint32_t item, int32_t instance = kMmvInNull) const {
    return slots.at({item, instance});
  }
};

// Builds the image. Errors: InvalidArgument when the description cannot be
// written (a name or help text too long for its field, a metric naming an
// unknown indom, a version too low for the content, generation 0).
absl::StatusOr<MmvImage> BuildMmv(const MmvSpec& spec);

// In-place value updates on an image or a mapping of one (native order).
void SetMmvI32(std::span<uint8_t> file, const MmvValueSlot& s, int32_t v);
void SetMmvU32(std::span<uint8_t> file, const MmvValueSlot& s, uint32_t v);
void SetMmvI64(std::span<uint8_t> file, const MmvValueSlot& s, int64_t v);
void SetMmvU64(std::span<uint8_t> file, const MmvValueSlot& s, uint64_t v);
void SetMmvFloat(std::span<uint8_t> file, const MmvValueSlot& s, float v);
void SetMmvDouble(std::span<uint8_t> file, const MmvValueSlot& s, double v);
// ELAPSED: accumulated time and, while an interval runs, -(start time); both
// in the writer's microsecond clock, as mmv_stats_interval_start does.
void SetMmvElapsed(std::span<uint8_t> file, const MmvValueSlot& s,
                   int64_t total, int64_t extra);
// STRING: at most 255 bytes are kept (the slot holds the NUL too).
void SetMmvString(std::span<uint8_t> file, const MmvValueSlot& s,
                  absl::string_view v);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_MMV_WRITER_H_

#include "format/mmv/mmv_values.h"

#include <cstddef>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "format/endian.h"
#include "format/errors.h"
#include "format/mmv/mmv_strings.h"

namespace mmvlog::format {

absl::Status ParseMmvValues(const MmvSection& s, MmvParse* p) {
  p->file.values.reserve(s.count);
  // (metric index, instance index + 1) of every value, to find duplicates
  // (M26). Sized by the values present: metrics x instances can pass 2^32
  // in a file of a few megabytes.
  absl::flat_hash_set<uint64_t> seen;
  seen.reserve(s.count);
  for (uint32_t j = 0; j < s.count; ++j) {
    const uint64_t at = s.offset + j * sizeof(MmvDiskValue);
    const auto d = LoadAt<MmvDiskValue>(p->bytes, at);
    auto mit = p->metric_at.find(d.metric);
    if (mit == p->metric_at.end()) {  // M24
      return DataLossAt(at + offsetof(MmvDiskValue, metric),
                        absl::StrCat("value names metric offset ", d.metric,
                                     ", which is not a metric entry"));
    }
    MmvValueEntry v;
    v.metric_index = mit->second;
    v.offset = at;
    const MmvMetric& m = p->file.metrics[v.metric_index];
    if (m.indom_index < 0) {
      if (d.instance != 0) {  // M25
        return DataLossAt(at + offsetof(MmvDiskValue, instance),
                          absl::StrCat("value of singular metric ", m.name,
                                       " names instance offset ", d.instance));
      }
    } else {
      auto iit = p->instance_at.find(d.instance);
      if (iit == p->instance_at.end() || iit->second.first != m.indom_index) {
        return DataLossAt(  // M25
            at + offsetof(MmvDiskValue, instance),
            absl::StrCat("value of metric ", m.name, " names instance offset ",
                         d.instance, ", which is not an instance of indom ",
                         m.indom));
      }
      v.instance_index = iit->second.second;
      v.instance = p->file.indoms[m.indom_index].instances[v.instance_index].internal;
    }
    const uint64_t key = (uint64_t{v.metric_index} << 32) |
                         static_cast<uint32_t>(v.instance_index + 1);
    if (!seen.insert(key).second) {  // M26
      return DataLossAt(at, absl::StrCat("second value for metric ", m.name,
                                         v.instance_index >= 0
                                             ? absl::StrCat(" instance ",
                                                            v.instance)
                                             : std::string()));
    }
    p->file.values.push_back(v);
  }
  return absl::OkStatus();
}

absl::StatusOr<MmvValue> ReadMmvValue(std::span<const uint8_t> bytes,
                                      const MmvFile& file,
                                      const MmvValueEntry& entry) {
  if (entry.offset + sizeof(MmvDiskValue) > bytes.size()) {
    return ErrorAt(absl::StatusCode::kOutOfRange, entry.offset,
                   "value entry past the end of the image");
  }
  const MmvMetric& m = file.metrics[entry.metric_index];
  const uint8_t* p = bytes.data() + entry.offset;
  MmvValue v;
  v.type = m.type;
  v.u64 = LoadNative<uint64_t>(p + kMmvValueAtomOffset);
  v.extra = LoadNative<int64_t>(p + kMmvValueExtraOffset);
  // pmAtomValue is a union: every member starts at its first byte.
  switch (m.type) {
    case MmvType::kI32:
      v.i64 = LoadNative<int32_t>(p);
      break;
    case MmvType::kU32:
      v.u64 = LoadNative<uint32_t>(p);
      break;
    case MmvType::kI64:
    case MmvType::kElapsed:
      v.i64 = LoadNative<int64_t>(p);
      break;
    case MmvType::kU64:
    case MmvType::kNoSupport:
      break;
    case MmvType::kFloat:
      v.f64 = LoadNative<float>(p);
      break;
    case MmvType::kDouble:
      v.f64 = LoadNative<double>(p);
      break;
    case MmvType::kString: {
      absl::StatusOr<std::string> s = ReadMmvString(
          bytes, file, static_cast<uint64_t>(v.extra),
          entry.offset + kMmvValueExtraOffset);  // M30
      if (!s.ok()) return s.status();
      v.str = std::move(*s);
      break;
    }
  }
  return v;
}

}  // namespace mmvlog::format

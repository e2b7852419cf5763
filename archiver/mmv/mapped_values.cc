#include "archiver/mmv/mapped_values.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "format/archive/archive_format.h"
#include "format/endian.h"
#include "format/mmv/mmv_format.h"

namespace mmvlog::archiver {
namespace {

using format::MmvFile;
using format::MmvType;

constexpr int32_t kPmErrGeneric = -12345;  // PM_ERR_GENERIC

}  // namespace

size_t MergeSharedSets(format::Result* result, size_t n) {
  std::vector<format::ValueSet>& sets = result->sets;
  absl::flat_hash_map<uint32_t, size_t> first;  // pmid -> its first set
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    auto [it, added] = first.try_emplace(sets[i].pmid, kept);
    if (added) {
      if (kept != i) std::swap(sets[kept], sets[i]);
      ++kept;
      continue;
    }
    format::ValueSet& into = sets[it->second];
    format::ValueSet& from = sets[i];
    if (from.error < 0 || from.values.empty()) continue;
    if (into.error < 0) {  // pmdammv would have found the instance in a later file
      into.error = 0;
      into.values.clear();
    }
    absl::flat_hash_set<int32_t> have;
    for (const format::ResultValue& v : into.values) have.insert(v.inst);
    for (format::ResultValue& v : from.values) {
      if (have.insert(v.inst).second) into.values.push_back(std::move(v));
    }
  }
  return kept;
}

void AppendValueSets(const MappedFile& file, std::span<const uint8_t> image,
                     int64_t now_usec, format::Result* result) {
  FillValueSets(file, image, now_usec, result, result->sets.size());
}

std::vector<int32_t> Instances(const MappedFile& file, const MappedMetric& m) {
  std::vector<int32_t> out;
  out.reserve(m.values.size());
  for (uint32_t idx : m.values) {
    const format::MmvValueEntry& e = file.mmv->values[idx];
    out.push_back(e.instance_index < 0 ? format::kInNull : e.instance);
  }
  return out;
}

namespace {

// A string value's slot as ReadMmvString finds it (inside the STRINGS
// section, its NUL within the slot), copied once into `slot`: its length,
// or nullopt where ReadMmvValue would fail.
std::optional<size_t> CopyString(const MmvFile& f, std::span<const uint8_t> image,
                                 uint32_t value_offset, uint8_t (&slot)[format::kMmvStringSlotSize]) {
  const auto extra = format::LoadNative<uint64_t>(image.data() + value_offset +
                                                  format::kMmvValueExtraOffset);
  const uint64_t begin = f.strings_offset;
  const uint64_t end = begin + f.strings_size;
  if (f.strings_size == 0 || extra < begin || extra >= end || end > image.size()) {
    return std::nullopt;
  }
  const size_t width = static_cast<size_t>(std::min<uint64_t>(sizeof(slot), end - extra));
  std::memcpy(slot, image.data() + extra, width);
  const void* nul = std::memchr(slot, 0, width);
  if (nul == nullptr) return std::nullopt;
  return static_cast<size_t>(static_cast<const uint8_t*>(nul) - slot);
}

}  // namespace

std::optional<std::vector<uint32_t>> ValueSizes(const MappedFile& file, const MappedMetric& m,
                                                std::span<const uint8_t> image) {
  std::vector<uint32_t> sizes;
  if (m.mmv_type != MmvType::kString) return sizes;
  uint8_t slot[format::kMmvStringSlotSize];
  for (uint32_t off : m.offsets) {
    std::optional<size_t> n = CopyString(*file.mmv, image, off, slot);
    if (!n.has_value()) return std::nullopt;
    sizes.push_back(static_cast<uint32_t>(*n + 1));
  }
  return sizes;
}

namespace {

// One metric's values from `image` into set `set` of `tmpl`.
bool StoreSet(const MmvFile& mmv, MmvType type, std::span<const uint32_t> offsets, size_t set,
              std::span<const uint8_t> image, int64_t now_usec, format::ResultTemplate* tmpl) {
  const uint8_t* in = image.data();
  const format::ValueSlots& slots = tmpl->sets()[set];
  assert(slots.count == offsets.size());
  uint8_t* out = tmpl->data() + slots.first;
  const size_t stride = slots.stride;
  // The bytes as they are (a float or double is not converted, so even a
  // signalling NaN is kept), in the archive's big-endian order.
  switch (type) {
    case MmvType::kI32:
    case MmvType::kU32:
    case MmvType::kFloat:
      for (uint32_t off : offsets) {
        format::StoreBig32(out, format::LoadNative<uint32_t>(in + off));
        out += stride;
      }
      break;
    case MmvType::kElapsed:
      // A 64-bit counter of microseconds; an interval still running
      // (extra < 0: minus its start) counts up to now, as in FillValueSets.
      for (uint32_t off : offsets) {
        const auto ll = format::LoadNative<int64_t>(in + off);
        const auto extra = format::LoadNative<int64_t>(in + off + format::kMmvValueExtraOffset);
        format::StoreBig64(out, static_cast<uint64_t>(ll + (extra < 0 ? now_usec + extra : 0)));
        out += stride;
      }
      break;
    case MmvType::kString: {
      uint8_t slot[format::kMmvStringSlotSize];
      for (size_t k = 0; k < offsets.size(); ++k) {
        std::optional<size_t> n = CopyString(mmv, image, offsets[k], slot);
        if (!n.has_value() || !tmpl->StoreString(set, k, {slot, *n})) return false;
      }
      break;
    }
    default:  // kI64, kU64, kDouble
      for (uint32_t off : offsets) {
        format::StoreBig64(out, format::LoadNative<uint64_t>(in + off));
        out += stride;
      }
      break;
  }
  return true;
}

}  // namespace

ValuePlan ValuePlan::Make(std::span<const std::shared_ptr<const MappedFile>> files) {
  ValuePlan plan;
  plan.files_.reserve(files.size());
  uint32_t set = 0;
  for (const std::shared_ptr<const MappedFile>& f : files) {
    File& pf = plan.files_.emplace_back();
    pf.mmv = f->mmv.get();
    pf.first_metric = static_cast<uint32_t>(plan.metrics_.size());
    pf.values_from = f->values_from;
    pf.values_to = f->values_to;
    for (const MappedMetric& m : f->metrics) {
      plan.metrics_.push_back({static_cast<uint32_t>(plan.offsets_.size()),
                               static_cast<uint32_t>(m.offsets.size()), set++, m.mmv_type});
      plan.offsets_.insert(plan.offsets_.end(), m.offsets.begin(), m.offsets.end());
    }
    pf.end_metric = static_cast<uint32_t>(plan.metrics_.size());
  }
  return plan;
}

bool ValuePlan::Store(size_t file, std::span<const uint8_t> image, int64_t now_usec,
                      format::ResultTemplate* tmpl) const {
  const File& f = files_[file];
  assert(image.size() >= f.mmv->size);
  for (uint32_t i = f.first_metric; i < f.end_metric; ++i) {
    const Metric& m = metrics_[i];
    const std::span<const uint32_t> offsets(offsets_.data() + m.first_offset, m.count);
    if (!StoreSet(*f.mmv, m.type, offsets, m.set, image, now_usec, tmpl)) return false;
  }
  return true;
}

size_t FillValueSets(const MappedFile& file, std::span<const uint8_t> image,
                     int64_t now_usec, format::Result* result, size_t at) {
  const MmvFile& f = *file.mmv;
  for (const MappedMetric& m : file.metrics) {
    // Reuse the set (and its values' capacity) left from the last sample.
    if (at >= result->sets.size()) result->sets.emplace_back();
    format::ValueSet& set = result->sets[at++];
    set.values.clear();
    set.error = 0;
    set.pmid = m.desc.pmid;
    set.type = m.desc.type;
    set.values.reserve(m.values.size());
    if (!file.sentinel && m.mmv_type != MmvType::kString && m.mmv_type != MmvType::kElapsed &&
        image.size() >= f.size) {
      // The hot path: a fixed-size number straight from the image (entries
      // were bounds-checked when the file was parsed and the image has the
      // same size).
      for (uint32_t idx : m.values) {
        const format::MmvValueEntry& e = f.values[idx];
        const uint8_t* p = image.data() + e.offset;
        format::ResultValue& rv = set.values.emplace_back();
        rv.inst = e.instance_index < 0 ? format::kInNull : e.instance;
        switch (m.mmv_type) {
          case MmvType::kI32: rv.i64 = format::LoadNative<int32_t>(p); break;
          case MmvType::kU32: rv.u64 = format::LoadNative<uint32_t>(p); break;
          case MmvType::kI64: rv.i64 = format::LoadNative<int64_t>(p); break;
          case MmvType::kU64: rv.u64 = format::LoadNative<uint64_t>(p); break;
          case MmvType::kFloat: rv.f64 = format::LoadNative<float>(p); break;
          case MmvType::kDouble: rv.f64 = format::LoadNative<double>(p); break;
          default: break;
        }
      }
      continue;
    }
    for (uint32_t idx : m.values) {
      const format::MmvValueEntry& e = f.values[idx];
      absl::StatusOr<format::MmvValue> v = format::ReadMmvValue(image, f, e);
      if (!v.ok()) {
        set.values.clear();
        set.error = kPmErrGeneric;
        break;
      }
      format::ResultValue rv;
      rv.inst = e.instance_index < 0 ? format::kInNull : e.instance;
      switch (m.mmv_type) {
        case MmvType::kI32:
        case MmvType::kI64:
          if (file.sentinel && v->u64 == ~uint64_t{0}) continue;
          rv.i64 = v->i64;
          break;
        case MmvType::kU32:
        case MmvType::kU64:
          if (file.sentinel && format::LoadNative<uint64_t>(image.data() + e.offset) == ~uint64_t{0}) {
            continue;
          }
          rv.u64 = v->u64;
          break;
        case MmvType::kFloat:
        case MmvType::kDouble:
          // pmdammv compares with NaN (never equal) before 6.3.1; isnan is
          // what SENTINEL means.
          if (file.sentinel && std::isnan(v->f64)) continue;
          rv.f64 = v->f64;
          break;
        case MmvType::kString:
          if (file.sentinel && v->str.empty()) continue;
          rv.bytes = std::move(v->str);
          break;
        case MmvType::kElapsed:
          if (file.sentinel && v->u64 == ~uint64_t{0}) continue;
          rv.i64 = v->i64 + (v->extra < 0 ? now_usec + v->extra : 0);
          break;
        case MmvType::kNoSupport:
          continue;
      }
      set.values.push_back(std::move(rv));
    }
  }
  return at;
}

}  // namespace mmvlog::archiver

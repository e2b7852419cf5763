#include "cmd/to_mmv.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <map>
#include <memory>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "archiver/store/posix_file.h"
#include "cmd/common.h"
#include "format/archive_format.h"
#include "format/mmv_writer.h"

namespace mmvlog::cmd {
namespace {

using format::MmvType;

MmvType MmvTypeOf(int32_t type) {
  switch (type) {
    case format::kType32: return MmvType::kI32;
    case format::kTypeU32: return MmvType::kU32;
    case format::kType64: return MmvType::kI64;
    case format::kTypeU64: return MmvType::kU64;
    case format::kTypeFloat: return MmvType::kFloat;
    case format::kTypeDouble: return MmvType::kDouble;
    case format::kTypeString: return MmvType::kString;
  }
  return MmvType::kNoSupport;
}

struct OutFile {
  format::MmvSpec spec;
  format::MmvImage image;
  uint8_t* map = nullptr;
  size_t size = 0;
  // column -> (item, instance id or PM_IN_NULL) in this file
  std::map<size_t, std::pair<uint32_t, int32_t>> slots;
};

}  // namespace

absl::Status PlayToMmv(const archiver::Timeline& t, const std::vector<size_t>& rows,
                       const std::string& dir, double speed) {
  std::map<std::string, OutFile> files;
  std::map<std::pair<std::string, uint32_t>, uint32_t> item_of;  // (file, pmid) -> item
  for (size_t c = 0; c < t.columns.size(); ++c) {
    const archiver::Column& col = t.columns[c];
    const format::Desc* d = t.Desc(col.pmid);
    if (d == nullptr || MmvTypeOf(d->type) == MmvType::kNoSupport) continue;
    std::string file = "replay", name = col.metric;
    if (absl::StartsWith(name, "mmv.")) {
      const size_t dot = name.find('.', 4);
      if (dot != std::string::npos) {
        file = name.substr(4, dot - 4);
        name = name.substr(dot + 1);
      }
    }
    OutFile& f = files[file];
    auto key = std::make_pair(file, col.pmid);
    auto it = item_of.find(key);
    if (it == item_of.end()) {
      uint32_t item = format::PmidItem(col.pmid);
      for (const auto& m : f.spec.metrics) {
        if (m.item == item) item = static_cast<uint32_t>(f.spec.metrics.size() + 1);
      }
      format::MmvSpecMetric m;
      m.name = name;
      m.item = item;
      m.type = MmvTypeOf(d->type);
      m.semantics = d->sem;
      m.units = d->units;
      if (d->indom != format::kIndomNull) {
        m.indom = format::InDomSerial(d->indom) & 0x7ff;
        if (m.indom == 0) m.indom = format::InDomSerial(d->indom);
        bool have = false;
        for (const auto& x : f.spec.indoms) have |= x.serial == m.indom;
        if (!have) f.spec.indoms.push_back({m.indom, {}, "", ""});
      }
      f.spec.metrics.push_back(m);
      it = item_of.emplace(key, item).first;
    }
    int32_t inst = format::kInNull;
    if (d->indom != format::kIndomNull) {
      inst = col.inst;
      uint32_t serial = 0;
      for (const auto& m : f.spec.metrics) {
        if (m.item == it->second) serial = m.indom;
      }
      for (auto& x : f.spec.indoms) {
        if (x.serial != serial) continue;
        bool have = false;
        for (const auto& i : x.instances) have |= i.id == inst;
        if (!have) x.instances.push_back({inst, col.instance});
      }
    }
    f.slots[c] = {it->second, inst};
  }
  if (files.empty()) return absl::InvalidArgumentError("no metric to play back");
  for (auto& [name, f] : files) {
    f.spec.generation = static_cast<uint64_t>(absl::ToUnixNanos(absl::Now()));
    f.spec.process = static_cast<int32_t>(::getpid());
    absl::StatusOr<format::MmvImage> image = format::BuildMmv(f.spec);
    if (!image.ok()) return image.status();
    f.image = std::move(*image);
    const std::string path = absl::StrCat(dir, "/", name);
    if (absl::Status s = archiver::WriteFileAtomically(path, f.image.bytes); !s.ok()) return s;
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
    f.size = f.image.bytes.size();
    void* m = ::mmap(nullptr, f.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (m == MAP_FAILED) return absl::ErrnoToStatus(errno, absl::StrCat("mmap ", path));
    f.map = static_cast<uint8_t*>(m);
    LogLine(archiver::LogLevel::kInfo, absl::StrCat("playing back into ", path));
  }
  const absl::Time wall0 = absl::Now();
  absl::Time rec0;
  bool first = true;
  for (size_t r : rows) {
    const archiver::Row& row = t.rows[r];
    if (row.mark) continue;
    const absl::Time when = format::ToAbslTime(row.time);
    if (first) rec0 = when, first = false;
    if (!SleepUntil(wall0 + (when - rec0) / speed)) break;
    for (auto& [name, f] : files) {
      std::span<uint8_t> live(f.map, f.size);
      for (const auto& [c, where] : f.slots) {
        const archiver::StoredValue sv = t.Value(r, c);
        if (!sv.has_value()) continue;
        const format::MmvValueSlot& slot = f.image.slot(where.first, where.second);
        switch (MmvTypeOf(t.ColumnDesc(c).type)) {
          case MmvType::kI32: format::SetMmvI32(live, slot, static_cast<int32_t>(sv.i)); break;
          case MmvType::kU32: format::SetMmvU32(live, slot, static_cast<uint32_t>(sv.u)); break;
          case MmvType::kI64: format::SetMmvI64(live, slot, sv.i); break;
          case MmvType::kU64: format::SetMmvU64(live, slot, sv.u); break;
          case MmvType::kFloat: format::SetMmvFloat(live, slot, static_cast<float>(sv.d)); break;
          case MmvType::kDouble: format::SetMmvDouble(live, slot, sv.d); break;
          case MmvType::kString: format::SetMmvString(live, slot, sv.s); break;
          default: break;
        }
      }
    }
  }
  for (auto& [name, f] : files) ::munmap(f.map, f.size);
  return absl::OkStatus();
}

}  // namespace mmvlog::cmd

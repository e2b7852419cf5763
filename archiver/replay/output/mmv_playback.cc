#include "archiver/replay/output/mmv_playback.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bit>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "archiver/file/posix_file.h"
#include "format/archive/archive_format.h"

namespace mmvlog::archiver {
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

MmvPlayback::~MmvPlayback() {
  for (auto& [name, f] : files_) {
    if (f.map != nullptr) ::munmap(f.map, f.size);
  }
}

void MmvPlayback::Begin(const ReplayHeader& header) {
  Output::Begin(header);
  status_ = Open();
}

absl::Status MmvPlayback::Open() {
  const ColumnSet& columns = *header_.columns;
  std::map<std::pair<std::string, uint32_t>, uint32_t> item_of;  // (file, pmid) -> item
  for (size_t c = 0; c < columns.size(); ++c) {
    const Column& col = columns.columns()[c];
    const format::Desc* d = &columns.desc(c);
    if (MmvTypeOf(d->type) == MmvType::kNoSupport) continue;
    std::string file = "replay", name = columns.metrics()[col.metric].name;
    if (absl::StartsWith(name, "mmv.")) {
      const size_t dot = name.find('.', 4);
      if (dot != std::string::npos) {
        file = name.substr(4, dot - 4);
        name = name.substr(dot + 1);
      }
    }
    OutFile& f = files_[file];
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
  if (files_.empty()) return absl::InvalidArgumentError("no metric to play back");
  for (auto& [name, f] : files_) {
    f.spec.generation = static_cast<uint64_t>(absl::ToUnixNanos(absl::Now()));
    f.spec.process = static_cast<int32_t>(::getpid());
    absl::StatusOr<format::MmvImage> image = format::BuildMmv(f.spec);
    if (!image.ok()) return image.status();
    f.image = std::move(*image);
    const std::string path = absl::StrCat(dir_, "/", name);
    if (absl::Status s = WriteFileAtomically(path, f.image.bytes); !s.ok()) return s;
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
    f.size = f.image.bytes.size();
    void* m = ::mmap(nullptr, f.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (m == MAP_FAILED) return absl::ErrnoToStatus(errno, absl::StrCat("mmap ", path));
    f.map = static_cast<uint8_t*>(m);
    log_(LogLevel::kInfo, absl::StrCat("playing back into ", path));
  }
  return absl::OkStatus();
}

bool MmvPlayback::TakeRow(const Row& row) {
  if (!status_.ok()) return false;
  if (row.mark) return true;
  const absl::Time when = format::ToAbslTime(row.time);
  if (!started_) {
    wall0_ = absl::Now();
    rec0_ = when;
    started_ = true;
  }
  if (!sleep_until_(wall0_ + (when - rec0_) / speed_)) return false;
  const ColumnSet& columns = *header_.columns;
  for (auto& [name, f] : files_) {
    std::span<uint8_t> live(f.map, f.size);
    for (const auto& [c, where] : f.slots) {
      if (!row.has(c)) continue;
      const format::MmvValueSlot& slot = f.image.slot(where.first, where.second);
      const uint64_t b = row.bits[c];
      switch (MmvTypeOf(columns.desc(c).type)) {
        case MmvType::kI32: format::SetMmvI32(live, slot, static_cast<int32_t>(b)); break;
        case MmvType::kU32: format::SetMmvU32(live, slot, static_cast<uint32_t>(b)); break;
        case MmvType::kI64: format::SetMmvI64(live, slot, static_cast<int64_t>(b)); break;
        case MmvType::kU64: format::SetMmvU64(live, slot, b); break;
        case MmvType::kFloat: format::SetMmvFloat(live, slot, static_cast<float>(std::bit_cast<double>(b))); break;
        case MmvType::kDouble: format::SetMmvDouble(live, slot, std::bit_cast<double>(b)); break;
        case MmvType::kString: format::SetMmvString(live, slot, row.text(c)); break;
        default: break;
      }
    }
  }
  return true;
}

absl::Status MmvPlayback::End(const ReplayEnd& /*end*/) { return status_; }

}  // namespace mmvlog::archiver

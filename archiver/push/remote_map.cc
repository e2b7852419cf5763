#include "archiver/push/remote_map.h"


namespace mmvlog::archiver {

void RemoteMap::Map(int32_t volume, uint64_t local, uint64_t remote) {
  segments_.push_back({volume, local, remote, false});
}

void RemoteMap::Drop(int32_t volume, uint64_t local) {
  segments_.push_back({volume, local, 0, true});
}

std::optional<uint64_t> RemoteMap::Translate(int32_t volume, uint64_t local) const {
  const Segment* best = nullptr;
  for (const Segment& s : segments_) {
    // Later segments of a volume start at or after earlier ones.
    if (s.volume == volume && s.local <= local) best = &s;
  }
  if (best == nullptr || best->dropped) return std::nullopt;
  return best->remote + (local - best->local);
}

std::optional<format::IndexEntry> RemoteMap::Translate(const format::IndexEntry& e) const {
  std::optional<uint64_t> data = Translate(e.volume, e.data_offset);
  if (!data.has_value()) return std::nullopt;
  format::IndexEntry out = e;
  out.data_offset = *data;
  return out;
}

}  // namespace mmvlog::archiver

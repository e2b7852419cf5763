// RemoteMap: where the records of a local archive's volumes are in the
// remote archive pmproxy writes from the pushed bytes, so that temporal
// index entries can be sent with offsets "as the remote file will hold
// them" (PMWEBAPI(3): pmproxy writes .index bodies as they come).
//
// Pushed without a gap, a remote volume holds the local one byte for byte
// (pmproxy writes a label of the same size itself) and the map is the
// identity. It is not when the remote archive began part-way through the
// local one (pmproxy forgot the LOGID: the rest went to a new remote
// archive), when records were dropped (a full spool), or when a <mark> was
// inserted at such a gap. Each of those starts a segment; a local offset
// maps by the last segment of its volume at or before it.
//
// .meta needs no map: every remote archive gets the whole local .meta, in
// order, from its label on.
//
// Pure: no I/O.
#ifndef MMVLOG_ARCHIVER_PUSH_REMOTE_MAP_H_
#define MMVLOG_ARCHIVER_PUSH_REMOTE_MAP_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "format/archive/archive_index.h"

namespace mmvlog::archiver {

class RemoteMap {
 public:
  struct Segment {
    int32_t volume = 0;
    uint64_t local = 0;   // first local offset of the segment
    uint64_t remote = 0;  // where it is in the remote volume
    bool dropped = false;  // local bytes from `local` on are not remote

    bool operator==(const Segment&) const = default;
  };

  // Local bytes of `volume` from `local` on are at `remote` on, in order.
  // REQUIRES: `local` is not before the volume's last segment.
  void Map(int32_t volume, uint64_t local, uint64_t remote);
  // Local bytes of `volume` from `local` on are not in the remote archive
  // (until the next Map of that volume).
  void Drop(int32_t volume, uint64_t local);
  // The remote offset of local offset `local` of `volume`; nullopt when
  // that part of the local archive is not in the remote one.
  std::optional<uint64_t> Translate(int32_t volume, uint64_t local) const;
  // `e` as the remote .index holds it (.meta offsets as they are), or
  // nullopt when the record it points at is not in the remote archive.
  std::optional<format::IndexEntry> Translate(const format::IndexEntry& e) const;

  void Clear() { segments_.clear(); }
  // In the order they were made (for the push state file).
  const std::vector<Segment>& segments() const { return segments_; }
  void Restore(std::vector<Segment> segments) { segments_ = std::move(segments); }

 private:
  std::vector<Segment> segments_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_REMOTE_MAP_H_

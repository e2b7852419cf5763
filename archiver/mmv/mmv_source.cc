#include "archiver/mmv/mmv_source.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "format/errors.h"
#include "format/mmv/mmv_format.h"

namespace mmvlog::archiver {

using format::MmvFile;
using format::MmvHeader;
using format::WithContext;

absl::Status MmvSource::Reopen() {
  file_.reset();
  map_.reset();
  fd_.reset();
  absl::StatusOr<FileDescriptor> fd = OpenRegularNoFollow(dir_fd(), name_, path_);
  if (!fd.ok()) return fd.status();
  absl::StatusOr<struct stat> st = StatFd(fd->get(), path_);
  if (!st.ok()) return st.status();
  fd_ = std::move(*fd);
  dev_ = st->st_dev;
  ino_ = st->st_ino;
  return absl::OkStatus();
}

absl::StatusOr<MmvHeader> MmvSource::ReadHeader() {
  uint8_t buf[format::kMmvHeaderSize];
  absl::StatusOr<size_t> n = ReadAt(fd_.get(), 0, buf, path_);
  if (!n.ok()) return n.status();
  return format::ParseMmvHeader(std::span<const uint8_t>(buf, *n));
}

// One piece: the snapshot's read, check and re-read (a seqlock on g1/g2)
// in one place.
absl::Status MmvSource::LoadAll() {
  absl::Status last;
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    absl::StatusOr<MmvHeader> before = ReadHeader();
    if (!before.ok()) {
      if (!absl::IsUnavailable(before.status())) return before.status();
      last = before.status();
      continue;
    }
    absl::StatusOr<struct stat> st = StatFd(fd_.get(), path_);
    if (!st.ok()) return st.status();
    const uint64_t size = static_cast<uint64_t>(st->st_size);
    // How much to copy, from the header and TOC alone: never the claims of
    // a hostile header, never a sparse tail.
    const uint64_t toc_end =
        format::kMmvHeaderSize + static_cast<uint64_t>(std::max(before->toc_count, 0)) *
                                     sizeof(format::MmvDiskToc);
    image_.resize(toc_end <= size ? toc_end : format::kMmvHeaderSize);
    absl::StatusOr<size_t> n = ReadAt(fd_.get(), 0, image_, path_);
    if (!n.ok()) return n.status();
    absl::StatusOr<uint64_t> extent =
        format::MmvExtent(std::span<const uint8_t>(image_.data(), *n), size);
    if (!extent.ok()) {
      if (*n != image_.size()) {
        last = absl::UnavailableError("file shrank while being read");
        continue;
      }
      return extent.status();
    }
    if (*extent > options_.max_image_bytes) {
      return absl::FailedPreconditionError(absl::StrCat(
          "sections end at byte ", *extent, ", past the ", options_.max_image_bytes,
          " bytes mmvlog reads of an MMV file; not read"));
    }
    image_.resize(*extent);
    n = ReadAt(fd_.get(), 0, image_, path_);
    if (!n.ok()) return n.status();
    if (*n != image_.size()) {
      last = absl::UnavailableError(
          absl::StrCat("file shrank from ", image_.size(), " to ", *n,
                       " bytes while being read"));
      continue;
    }
    absl::StatusOr<MmvHeader> after = ReadHeader();
    if (!after.ok() || after->generation1 != before->generation1) {
      last = absl::UnavailableError("generation changed while being read");
      continue;
    }
    absl::StatusOr<MmvFile> parsed = format::ParseMmv(image_);
    if (!parsed.ok()) return parsed.status();
    // The values section, plus each string value's slot. Nothing is kept
    // until all of it is known: a file that fails here must fail again.
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    ranges.push_back({parsed->values_offset, parsed->values_size});
    for (const format::MmvValueEntry& v : parsed->values) {
      if (parsed->metrics[v.metric_index].type != format::MmvType::kString) {
        continue;
      }
      absl::StatusOr<format::MmvValue> value =
          format::ReadMmvValue(image_, *parsed, v);
      if (!value.ok()) return value.status();
      const auto extra = static_cast<uint64_t>(value->extra);
      ranges.push_back({extra, format::kMmvStringSlotSize});
    }
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<uint64_t, uint64_t>> merged;
    for (const auto& r : ranges) {
      if (!merged.empty() &&
          merged.back().first + merged.back().second >= r.first) {
        uint64_t end = std::max(merged.back().first + merged.back().second,
                                r.first + r.second);
        merged.back().second = end - merged.back().first;
      } else {
        merged.push_back(r);
      }
    }
    hot_ranges_ = std::move(merged);
    file_size_ = size;
    file_ = std::make_shared<const MmvFile>(std::move(*parsed));
    std::memcpy(header_, image_.data(), sizeof(header_));
    // The same bytes, mapped, for Snapshot(kMapped). Without a mapping
    // (mmap refused) every snapshot is a copy.
    absl::StatusOr<GuardedMapping> map = GuardedMapping::Map(fd_.get(), image_.size(), path_);
    map_ = map.ok() ? std::move(*map) : GuardedMapping();
    return absl::OkStatus();
  }
  return absl::UnavailableError(absl::StrCat(
      "no consistent copy after ", options_.max_attempts,
      " attempts: ", last.message()));
}

absl::Status MmvSource::RefreshValues(bool* consistent) {
  *consistent = false;
  // The header byte for byte as parsed (the generations, and what they
  // settle: a header changed in place under the same generation is read
  // whole again, as the mapped path's check would have it), before and
  // after the copy.
  auto header_current = [&]() -> absl::StatusOr<bool> {
    uint8_t now[sizeof(header_)];
    absl::StatusOr<size_t> n = ReadAt(fd_.get(), 0, now, path_);
    if (!n.ok()) return n.status();
    return *n == sizeof(now) && std::memcmp(now, header_, sizeof(now)) == 0;
  };
  absl::StatusOr<bool> before = header_current();
  if (!before.ok()) return before.status();
  if (!*before) return absl::OkStatus();  // new or unsettled: full reload
  for (const auto& [offset, size] : hot_ranges_) {
    absl::StatusOr<size_t> n = ReadAt(
        fd_.get(), offset, std::span<uint8_t>(image_.data() + offset, size),
        path_);
    if (!n.ok()) return n.status();
    if (*n != size) return absl::OkStatus();  // shrank: full reload
  }
  absl::StatusOr<bool> after = header_current();
  if (!after.ok()) return after.status();
  *consistent = *after;
  return absl::OkStatus();
}

bool MmvSource::GenerationCurrent() const {
  if (file_ == nullptr || map_.size() < sizeof(header_)) return false;
  bool current = false;
  // Fences on each side: the header is read after the caller's reads of
  // the values and before the next ones, as the pread path's are.
  std::atomic_thread_fence(std::memory_order_acquire);
  if (!ReadMapped([&](std::span<const uint8_t> bytes) { current = HeaderMatches(bytes); })) {
    return false;
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  return current;
}

bool MmvSource::StillCurrent(bool size_known) const {
  return GenerationCurrent() && SizeCurrent(size_known);
}

bool MmvSource::SizeCurrent(bool size_known) const {
  if (size_known) return true;
  // A file cut short reads as zeros past its end (to the end of that page)
  // where pread stops short: the stress tests' writers that truncate and
  // rewrite in place showed such reads between two good headers. Any other
  // size (grown, same generation) is for the next copy to look at, as a
  // snapshot that stats the name would have.
  absl::StatusOr<struct stat> st = StatFd(fd_.get(), path_);
  return st.ok() && static_cast<uint64_t>(st->st_size) == file_size_;
}

absl::StatusOr<std::span<const uint8_t>> MmvSource::CopyMapped() {
  bool copied = ReadMapped([&](std::span<const uint8_t> bytes) {
    for (const auto& [offset, size] : hot_ranges_) {
      std::memcpy(image_.data() + offset, bytes.data() + offset, size);
    }
  });
  if (!copied || !StillCurrent()) {
    return absl::UnavailableError(absl::StrCat(path_, ": changed while being read"));
  }
  return std::span<const uint8_t>(image_);
}

absl::StatusOr<MmvSnapshot> MmvSource::Snapshot(Values values, bool same_entry) {
  // The entry by its name: a new inode (the file replaced), a new size.
  uint64_t size = file_size_;
  if (!same_entry || !fd_.valid() || file_ == nullptr) {
    absl::StatusOr<struct stat> st = StatNoFollow(dir_fd(), name_, path_);
    if (!st.ok()) {
      file_.reset();
      fd_.reset();
      map_.reset();
      return st.status();
    }
    if (!fd_.valid() || st->st_dev != dev_ || st->st_ino != ino_) {
      if (absl::Status s = Reopen(); !s.ok()) return s;
    }
    size = static_cast<uint64_t>(st->st_size);
  }
  if (file_ != nullptr && size == file_size_) {
    // The generation check before the caller's reads (StillCurrent or
    // ReadMappedCurrent after); for a file the watch heard nothing of, only
    // after: a new generation in place, which libpcp_mmv never writes (it
    // makes a new file), costs a retaken tick.
    if (values == kMapped && map_.valid() && (same_entry || GenerationCurrent())) {
      return MmvSnapshot{file_, image_, false, true};
    }
    bool consistent = false;
    if (absl::Status s = RefreshValues(&consistent); !s.ok()) return s;
    if (consistent) return MmvSnapshot{file_, image_, false};
  }
  file_.reset();
  if (absl::Status s = LoadAll(); !s.ok()) return WithContext(s, path_);
  return MmvSnapshot{file_, image_, true};
}

}  // namespace mmvlog::archiver

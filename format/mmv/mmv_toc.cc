#include "format/mmv/mmv_toc.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "format/endian.h"
#include "format/errors.h"

namespace mmvlog::format {
namespace {

constexpr uint64_t kTocOffset = kMmvHeaderSize;

}  // namespace

const char* MmvSectionName(MmvTocType type) {
  switch (type) {
    case MmvTocType::kIndoms: return "INDOMS";
    case MmvTocType::kInstances: return "INSTANCES";
    case MmvTocType::kMetrics: return "METRICS";
    case MmvTocType::kValues: return "VALUES";
    case MmvTocType::kStrings: return "STRINGS";
    case MmvTocType::kLabels: return "LABELS";
  }
  return "?";
}

uint64_t MmvEntrySize(MmvTocType type, int32_t version) {
  switch (type) {
    case MmvTocType::kIndoms: return sizeof(MmvDiskIndom);
    case MmvTocType::kInstances:
      return version == kMmvVersion1 ? sizeof(MmvDiskInstance1)
                                     : sizeof(MmvDiskInstance2);
    case MmvTocType::kMetrics:
      return version == kMmvVersion1 ? sizeof(MmvDiskMetric1)
                                     : sizeof(MmvDiskMetric2);
    case MmvTocType::kValues: return sizeof(MmvDiskValue);
    case MmvTocType::kStrings: return kMmvStringSlotSize;
    case MmvTocType::kLabels: return sizeof(MmvDiskLabel);
  }
  return 0;
}

absl::StatusOr<MmvHeader> ParseMmvHeader(std::span<const uint8_t> bytes) {
  if (bytes.size() < kMmvHeaderSize) {  // M1
    return ErrorAt(absl::StatusCode::kInvalidArgument, 0,
                   absl::StrCat("file is ", bytes.size(),
                                " bytes, shorter than the ", kMmvHeaderSize,
                                "-byte MMV header"));
  }
  const auto d = LoadNative<MmvDiskHeader>(bytes.data());
  if (std::memcmp(d.magic, kMmvMagic, sizeof(kMmvMagic)) != 0) {  // M2
    // Not an MMV file: say so without echoing any of its bytes (it may be
    // anything a symlink or a stray file put there).
    return ErrorAt(absl::StatusCode::kInvalidArgument, 0,
                   "bad magic: not an MMV file (expected \"MMV\\0\")");
  }
  if (d.version < kMmvVersion1 || d.version > kMmvVersion3) {  // M3
    return ErrorAt(absl::StatusCode::kUnimplemented, 4,
                   absl::StrCat("unknown MMV version ", d.version,
                                " (know 1, 2, 3)"));
  }
  if (d.g1 == 0 || d.g1 != d.g2) {  // M4
    return ErrorAt(absl::StatusCode::kUnavailable, 8,
                   absl::StrCat("generation not settled (g1 ", d.g1, ", g2 ",
                                d.g2, "): file being written"));
  }
  MmvHeader h;
  h.version = d.version;
  h.generation1 = d.g1;
  h.generation2 = d.g2;
  h.toc_count = d.tocs;
  h.flags = d.flags;
  h.process = d.process;
  h.cluster = d.cluster;
  return h;
}

absl::StatusOr<uint64_t> MmvExtent(std::span<const uint8_t> prefix, uint64_t file_size) {
  absl::StatusOr<MmvHeader> h = ParseMmvHeader(prefix);
  if (!h.ok()) return h.status();
  if (h->toc_count < 2) {  // M5
    return DataLossAt(24, absl::StrCat("TOC count ", h->toc_count, " is less than 2"));
  }
  const uint64_t toc_end = kTocOffset + static_cast<uint64_t>(h->toc_count) * sizeof(MmvDiskToc);
  if (toc_end > file_size) {  // M6, from the sizes alone
    return DataLossAt(24, absl::StrCat("TOC count ", h->toc_count, " (ending at ", toc_end,
                                       ") exceeds the file's ", file_size, " bytes"));
  }
  if (toc_end > prefix.size()) {
    return absl::InvalidArgumentError(absl::StrCat("MmvExtent: needs the first ", toc_end,
                                                   " bytes, given ", prefix.size()));
  }
  uint64_t extent = toc_end;
  for (int32_t i = 0; i < h->toc_count; ++i) {
    const uint64_t at = kTocOffset + i * sizeof(MmvDiskToc);
    const MmvDiskToc toc = LoadAt<MmvDiskToc>(prefix, at);
    if (toc.type < 1 || toc.type > 6) {  // M7
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": unknown section type ", toc.type));
    }
    const auto type = static_cast<MmvTocType>(toc.type);
    if (toc.count < 0) {  // M10
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": ", MmvSectionName(type), " count ",
                                         toc.count, " is negative"));
    }
    if (toc.count == 0) continue;
    const uint64_t size = static_cast<uint64_t>(toc.count) * MmvEntrySize(type, h->version);
    if (toc.offset > file_size || size > file_size - toc.offset) {  // M10
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": ", MmvSectionName(type), " section of ",
                                         toc.count, " entries at ", toc.offset,
                                         " runs past the end of the file (", file_size,
                                         " bytes)"));
    }
    extent = std::max(extent, toc.offset + size);
  }
  return extent;
}

// One piece: mmv(5)'s rules for the header and TOC in the order pmdammv
// applies them (the table in mmv_reader.h).
absl::Status ParseMmvToc(MmvParse* p) {
  const MmvHeader& h = p->file.header;
  if (h.toc_count < 2) {  // M5
    return DataLossAt(24, absl::StrCat("TOC count ", h.toc_count,
                                       " is less than 2"));
  }
  const uint64_t toc_end =
      kTocOffset + static_cast<uint64_t>(h.toc_count) * sizeof(MmvDiskToc);
  if (toc_end > p->bytes.size()) {  // M6
    return DataLossAt(24, absl::StrCat("TOC of ", h.toc_count,
                                       " entries ends at ", toc_end,
                                       ", past the end of the file (",
                                       p->bytes.size(), " bytes)"));
  }
  for (int32_t i = 0; i < h.toc_count; ++i) {
    const uint64_t at = kTocOffset + i * sizeof(MmvDiskToc);
    const MmvDiskToc toc = LoadAt<MmvDiskToc>(p->bytes, at);
    if (toc.type < 1 || toc.type > 6) {  // M7
      return DataLossAt(at, absl::StrCat("TOC entry ", i,
                                         ": unknown section type ", toc.type));
    }
    const auto type = static_cast<MmvTocType>(toc.type);
    if (p->Find(type) != nullptr) {  // M8
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": second ",
                                         MmvSectionName(type), " section"));
    }
    if (type == MmvTocType::kLabels && h.version < kMmvVersion3) {  // M13
      return DataLossAt(at, absl::StrCat("TOC entry ", i,
                                         ": LABELS section in a version ",
                                         h.version, " file"));
    }
    if (toc.count < 0) {  // M10
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": ",
                                         MmvSectionName(type), " count ",
                                         toc.count, " is negative"));
    }
    if (type == MmvTocType::kLabels &&
        static_cast<uint32_t>(toc.count) > kMmvMaxLabels) {  // M13
      return DataLossAt(at, absl::StrCat("TOC entry ", i, ": ", toc.count,
                                         " labels, more than ", kMmvMaxLabels));
    }
    MmvSection s{type, static_cast<uint32_t>(toc.count), toc.offset,
                  static_cast<uint64_t>(toc.count) * MmvEntrySize(type, h.version)};
    if (s.count > 0) {
      if (s.offset > p->bytes.size() || s.size > p->bytes.size() - s.offset) {
        return DataLossAt(at, absl::StrCat(  // M10
                                  "TOC entry ", i, ": ", MmvSectionName(type),
                                  " section of ", s.count, " entries at ",
                                  s.offset, " runs past the end of the file (",
                                  p->bytes.size(), " bytes)"));
      }
      if (s.offset % kMmvSectionAlign != 0 || s.offset < toc_end) {  // M11
        return DataLossAt(at, absl::StrCat(
                                  "TOC entry ", i, ": ", MmvSectionName(type),
                                  " section offset ", s.offset,
                                  s.offset < toc_end
                                      ? absl::StrCat(" lies inside the header "
                                                     "and TOC (which end at ",
                                                     toc_end, ")")
                                      : " is not 8-byte aligned"));
      }
    }
    p->file.sections.push_back(s);
  }
  for (MmvTocType required : {MmvTocType::kMetrics, MmvTocType::kValues}) {
    if (p->Find(required) == nullptr) {  // M9
      return DataLossAt(kTocOffset, absl::StrCat("no ", MmvSectionName(required),
                                                 " section in the TOC"));
    }
  }
  std::vector<MmvSection> sorted;
  for (const MmvSection& s : p->file.sections) {
    if (s.count > 0) sorted.push_back(s);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const MmvSection& a, const MmvSection& b) {
              return a.offset < b.offset;
            });
  for (size_t i = 1; i < sorted.size(); ++i) {
    const MmvSection& a = sorted[i - 1];
    const MmvSection& b = sorted[i];
    if (a.offset + a.size > b.offset) {  // M12
      return DataLossAt(b.offset,
                        absl::StrCat(MmvSectionName(b.type), " section at ",
                                     b.offset, " overlaps ", MmvSectionName(a.type),
                                     " section [", a.offset, ", ",
                                     a.offset + a.size, ")"));
    }
  }
  const MmvSection* values = p->Find(MmvTocType::kValues);
  p->file.values_offset = values->offset;
  p->file.values_size = values->size;
  if (const MmvSection* strings = p->Find(MmvTocType::kStrings)) {
    p->file.strings_offset = strings->offset;
    p->file.strings_size = strings->size;
  }
  return absl::OkStatus();
}

}  // namespace mmvlog::format

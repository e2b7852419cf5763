// The header and table of contents of an MMV file (mmv(5)): the 40-byte
// header (magic, version, generations, TOC count, flags, process, cluster)
// and the TOC entries (section type, count, offset) that follow it. Rules
// M1-M13 of format/mmv/mmv_reader.h. Pure: bytes in, values out.
#ifndef MMVLOG_FORMAT_MMV_MMV_TOC_H_
#define MMVLOG_FORMAT_MMV_MMV_TOC_H_

#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "format/mmv/mmv_file.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_parse.h"

namespace mmvlog::format {

// Reads only the header (M1-M4 apply). Used to re-check generations.
absl::StatusOr<MmvHeader> ParseMmvHeader(std::span<const uint8_t> bytes);

// The number of bytes from the start of a file of `file_size` bytes that
// hold its header, TOC and every section the TOC names: the most a reader
// needs to copy, known before copying it. `prefix` is the start of the file:
// at least the header, and the whole TOC when the header's TOC count fits the
// file (else the TOC rule M6 is reported from the sizes alone, without
// reading it). Errors: M1-M7, M10 as ParseMmv reports them.
absl::StatusOr<uint64_t> MmvExtent(std::span<const uint8_t> prefix, uint64_t file_size);

// Reads the TOC of `p->bytes` (whose header is `p->file.header`) into
// `p->file.sections`, and the VALUES and STRINGS bounds into `p->file`
// (M5-M13).
absl::Status ParseMmvToc(MmvParse* p);

// "INDOMS", "METRICS", ... as mmv(5) names the sections.
const char* MmvSectionName(MmvTocType type);

// The size of one entry of a section of `type` in a file of `version`.
uint64_t MmvEntrySize(MmvTocType type, int32_t version);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_MMV_TOC_H_

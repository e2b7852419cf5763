#include "format/mmv/mmv_reader.h"

#include <utility>

#include "format/mmv/mmv_indoms.h"
#include "format/mmv/mmv_labels.h"
#include "format/mmv/mmv_metrics.h"
#include "format/mmv/mmv_parse.h"
#include "format/mmv/mmv_values.h"

namespace mmvlog::format {

absl::StatusOr<MmvFile> ParseMmv(std::span<const uint8_t> bytes) {
  MmvParse p(bytes);
  absl::StatusOr<MmvHeader> header = ParseMmvHeader(bytes);
  if (!header.ok()) return header.status();
  p.file.header = *header;
  p.file.size = bytes.size();
  if (absl::Status s = ParseMmvToc(&p); !s.ok()) return s;
  // Order matters: strings are needed by everything, indoms by metrics,
  // metrics and instances by values and labels.
  if (const MmvSection* s = p.Find(MmvTocType::kIndoms)) {
    if (absl::Status st = ParseMmvIndoms(*s, &p); !st.ok()) return st;
  }
  if (absl::Status st = ParseMmvMetrics(*p.Find(MmvTocType::kMetrics), &p); !st.ok()) {
    return st;
  }
  if (absl::Status st = ParseMmvValues(*p.Find(MmvTocType::kValues), &p); !st.ok()) {
    return st;
  }
  if (const MmvSection* s = p.Find(MmvTocType::kLabels)) {
    if (absl::Status st = ParseMmvLabels(*s, &p); !st.ok()) return st;
  }
  return std::move(p.file);
}

}  // namespace mmvlog::format

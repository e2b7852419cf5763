// The INDOMS and INSTANCES sections of an MMV file (mmv(5)): instance
// domains (serial, instance count and offset, help texts) and the instance
// entries each points to (v1: the name in a fixed field; v2, v3: in the
// STRINGS section). Rules M15-M17, M21, M22, M31 of format/mmv/mmv_reader.h.
#ifndef MMVLOG_FORMAT_MMV_MMV_INDOMS_H_
#define MMVLOG_FORMAT_MMV_MMV_INDOMS_H_

#include "absl/status/status.h"
#include "format/mmv/mmv_file.h"
#include "format/mmv/mmv_parse.h"

namespace mmvlog::format {

// Parses the INDOMS section `s` of `p->bytes` and the instances each indom
// names into `p->file.indoms`, filling `p->indom_by_serial` and
// `p->instance_at`. REQUIRES: ParseMmvToc(p) succeeded.
absl::Status ParseMmvIndoms(const MmvSection& s, MmvParse* p);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_MMV_MMV_INDOMS_H_

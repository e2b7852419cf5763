// PlayToMmv: plays recorded values back into MMV files, at the recorded pace
// or `speed` times faster, so live MMV consumers (pmdammv, mmvlog record,
// mmvlog inspect) see a past run again. Metrics named "mmv.<file>.<name>"
// go to <dir>/<file> as <name>; other metrics to <dir>/replay.
#ifndef MMVLOG_CMD_TO_MMV_H_
#define MMVLOG_CMD_TO_MMV_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "archiver/replay/replay.h"

namespace mmvlog::cmd {

// Plays rows `rows` of `t` (stored values, not rates). Stops early when
// g_stop is set. `speed` > 0.
absl::Status PlayToMmv(const archiver::Timeline& t, const std::vector<size_t>& rows,
                       const std::string& dir, double speed);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_TO_MMV_H_

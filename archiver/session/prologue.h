// The prologue and epilogue records pmlogger writes around its samples
// (src/pmlogger/src/logue.c), as `pmlogger -o` writes them (no pmcd):
// pmcd.pmlogger.host "localhost", pmcd.pmlogger.port, pmcd.pmlogger.archive
// (instance: the logger's PID, named by it), pmcd.pid 0 and pmcd.seqnum 0.
//
// Why mmvlog writes them: the first record of a new archive is the one a
// follower that finds the archive late (pmproxy's discovery opens it at its
// end) misses, and pmlogextract reads a prologue/epilogue pair as "the
// logger stopped here"; a record that only describes the logger loses
// nothing when missed.
//
// Pure: no I/O, no clock.
#ifndef MMVLOG_ARCHIVER_SESSION_PROLOGUE_H_
#define MMVLOG_ARCHIVER_SESSION_PROLOGUE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "format/archive/archive_meta.h"
#include "format/archive/archive_result.h"

namespace mmvlog::archiver {

struct Prologue {
  // In the order pmlogger writes them: the first descriptor, the instance
  // domain (2.1), then the other descriptors.
  std::vector<format::Desc> descs;
  format::InDom indom;
  format::Result result;
};

// The record stamped `when` for logger `pid` writing archive `archive`
// (its base name, absolute).
Prologue MakePrologue(format::Timestamp when, int32_t pid, const std::string& archive);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SESSION_PROLOGUE_H_

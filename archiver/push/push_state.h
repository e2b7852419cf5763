// PushState: how far one local archive has been pushed, in the local
// archive's own terms: what pmproxy acknowledged of each file, the remote
// archive it went to (LOGID), where the records are in it (RemoteMap), and
// a gap not yet marked there. The pusher keeps one per archive; it is saved
// in the spool directory, so that a push stopped by a failure (mmvlog push)
// or a restart (mmvlog record) goes on from there, and says what was sent.
//
// The file is text, one "key value..." line each, written atomically:
//
//   mmvlog-push 1
//   archive /var/log/pcp/mmvlog/20261126.10.00
//   server http://pmproxy.example.com:44322
//   logid 1804289383          (0: none; the next push posts a label)
//   clean 1                   (1: saved at a point pmproxy acknowledged)
//   meta 10932                (.meta bytes acknowledged; 0: none yet)
//   index 1064
//   volume 0 52840            (volume and offset acknowledged)
//   remote 52840              (the next record's offset in the remote volume)
//   gap 0 0 0 0 0             (pending, first dropped time: sec nsec, records, bytes)
//   segment 0 808 808 0       (RemoteMap: volume local remote dropped)
//   totals RECORDS BYTES DROPPED_RECORDS DROPPED_BYTES REMOTE_ARCHIVES
//
// Pure: EncodePushState/DecodePushState; the file I/O is Save/LoadPushState.
#ifndef MMVLOG_ARCHIVER_PUSH_PUSH_STATE_H_
#define MMVLOG_ARCHIVER_PUSH_PUSH_STATE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "archiver/push/remote_map.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {

struct PushState {
  std::string archive;  // the local archive's base name
  std::string server;   // HttpEndpoint::ToString()
  // The remote archive: pmproxy's LOGID, 0 when there is none (a label is
  // posted first). Not used after a restart unless `clean`.
  uint32_t logid = 0;
  bool clean = true;
  // Acknowledged, as local file offsets (0: nothing, not even the label).
  uint64_t meta = 0;
  uint64_t index = 0;
  int32_t volume = 0;
  uint64_t data = 0;
  uint64_t remote_data = 0;  // remote offset of the next record in `volume`
  RemoteMap map;
  // Records given up (the spool was full) and not yet marked remotely.
  bool gap = false;
  format::Timestamp gap_from;  // of the first record given up
  uint64_t gap_records = 0;
  uint64_t gap_bytes = 0;
  // Over the life of the push.
  uint64_t records = 0;  // volume records acknowledged
  uint64_t bytes = 0;    // body bytes acknowledged, all files
  uint64_t dropped_records = 0;
  uint64_t dropped_bytes = 0;
  uint64_t remote_archives = 0;  // labels posted
};

std::string EncodePushState(const PushState& s);
// Errors: InvalidArgument naming the line that is not understood.
absl::StatusOr<PushState> DecodePushState(absl::string_view text);

// Atomically (archiver/file/posix_file.h WriteFileAtomically).
absl::Status SavePushState(const std::string& path, const PushState& s);
// NotFound when there is no file; InvalidArgument naming it when it does
// not parse.
absl::StatusOr<PushState> LoadPushState(const std::string& path);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_PUSH_STATE_H_

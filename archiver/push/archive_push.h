// ArchivePush: one local archive pushed to pmproxy (LoggerClient), as it
// grows or once it is finished, resuming from a PushState.
//
// What it keeps true, whatever fails and whenever:
// - the remote archive gets whole records only, in local order, each file
//   as pmproxy's streaming reads it: a label first, then .meta's records,
//   then each volume's records posted to that volume's VOLID, then .index
//   entries; a result is posted only after the metadata written before it
//   (its batch is read from the volume before .meta is read to its end);
// - an index entry is posted once the records it points at are, with its
//   volume offset as the remote volume holds it (RemoteMap); an entry whose
//   record is not in the remote archive is left out;
// - nothing is posted twice to one remote archive: a POST whose outcome is
//   unknown (a timeout, a lost connection, a 5xx) or a forgotten LOGID
//   (410) gives the remote archive up, and the next Step starts a new one:
//   label, the whole .meta, then the records not yet acknowledged;
// - with a spool limit, volume bytes not yet acknowledged stay within it:
//   past it the oldest whole records are given up (Trim), and the first
//   post after them starts with a <mark> (PCP's: no values, at the time of
//   the first record given up), so rate tools never bridge the gap.
//
// What "the spool" is: the local archive itself, from the acknowledged
// position on. Nothing is copied.
#ifndef MMVLOG_ARCHIVER_PUSH_ARCHIVE_PUSH_H_
#define MMVLOG_ARCHIVER_PUSH_ARCHIVE_PUSH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "archiver/push/logger_client.h"
#include "archiver/push/push_state.h"
#include "archiver/push/record_tail.h"
#include "archiver/store/archive_reader.h"
#include "archiver/store/log.h"
#include "format/archive/archive_index.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {

struct PushOptions {
  // Records per POST: about this many bytes (whole records; never over
  // LoggerClient::kMaxBody).
  size_t body_bytes = 1 << 20;
  // Volume bytes not yet acknowledged that are kept for pmproxy; past this
  // the oldest records are given up. 0: no limit.
  uint64_t spool_limit = 0;
  // Delete each volume once all of it is acknowledged or given up (the
  // local archive is only the spool).
  bool remove_sent_volumes = false;
  // Asked between POSTs: true makes Step return (OK, not done) at once.
  std::function<bool()> stop;
};

// What the local archive holds that pmproxy has not acknowledged.
struct Backlog {
  uint64_t records = 0;  // volume records
  uint64_t bytes = 0;    // volume bytes
  std::optional<format::Timestamp> oldest;  // the first of those records
};

class ArchivePush {
 public:
  // `state.archive` names the local archive; the rest says how far it was
  // pushed (a fresh PushState: not at all). `client` must outlive this.
  ArchivePush(PushState state, LoggerClient* client, const PushOptions& options, LogFunction log);

  // Sends what the local archive holds now and pmproxy has not
  // acknowledged. `finished`: the local archive will not grow any more.
  // Returns OK when all of it is acknowledged (then done() once finished),
  // else the first failure: LoggerClient's codes (after any but
  // Unavailable the remote archive is given up), FailedPrecondition
  // (finished, but there is no such archive), DataLoss (a damaged local
  // file, naming it and the offset).
  absl::Status Step(bool finished);
  // Applies the spool limit now (Step does too): for while pmproxy is away.
  absl::Status Trim();
  // The next Step starts a new remote archive.
  void ForgetRemote();
  bool done() const { return done_; }
  const PushState& state() const { return state_; }
  // Scans the unacknowledged records (at most the spool limit's worth when
  // there is one): how far behind the push is.
  absl::StatusOr<Backlog> CountBacklog();
  // Volume bytes not yet acknowledged, from the files' sizes (no reading).
  uint64_t BacklogBytes() const;
  // The time of the oldest record not yet acknowledged (one record read).
  std::optional<format::Timestamp> OldestBacklog();

 private:
  struct Batch {
    std::vector<uint8_t> body;  // the records, framed, in order
    uint64_t first = 0;         // local offset of the first
    uint64_t end = 0;           // local offset after the last
    uint64_t records = 0;
    bool all_there = false;     // it ended for want of records, not of room
  };
  // Reads the label; false (and OK) when it is not written yet.
  absl::StatusOr<bool> Open(bool finished);
  absl::Status NewRemote();
  // Opens data_ on state_.volume at state_.data.
  absl::Status OpenVolume(bool finished);
  // Whether the local archive has a volume after `volume`: its number.
  std::optional<int32_t> NextVolume(int32_t volume);
  void SwitchVolume(int32_t next);
  absl::Status CollectBatch(bool finished, Batch* batch, bool* volume_done);
  // Leaves out `record` (at local offset `at`, just read by data_): a gap
  // to mark, the RemoteMap told.
  void GiveUp(std::span<const uint8_t> record, uint64_t at);
  absl::Status SendMeta();
  absl::Status SendBatch(Batch& batch);
  // Index entries whose records are acknowledged (all of them once the
  // data is `data_exhausted`); `*all`: none is left.
  absl::Status SendIndex(bool data_exhausted, bool* all);
  // A failed POST: gives the remote archive up unless nothing was sent.
  absl::Status Failed(absl::Status s);

  PushState state_;
  LoggerClient* client_;
  PushOptions options_;
  LogFunction log_;
  bool opened_ = false;
  bool done_ = false;
  int version_ = 3;
  std::vector<uint8_t> label_;  // the framed .meta label record
  uint64_t label_size_ = 0;
  std::unique_ptr<RecordTail> meta_, index_, data_;
  int32_t data_volume_ = -1;     // the volume data_ reads
  bool segment_pending_ = true;  // the next post starts a RemoteMap segment
  bool said_full_ = false;       // "spool full" logged for this gap
  // The remote archive began part-way through the local one: its first
  // post gets an index entry of its own (readers enter an archive by its
  // first index entry; the local ones for those records went elsewhere).
  bool start_entry_pending_ = false;
  // The last Step sent everything there was (the spool is not looked at).
  bool caught_up_ = false;
  std::vector<VolumeFile> listing_;  // the archive's volumes, for NextVolume
  absl::Time next_listing_ = absl::InfinitePast();
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_ARCHIVE_PUSH_H_

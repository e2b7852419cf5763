#include "archiver/record/recorder.h"

#include <algorithm>

#include <cstdint>
#include <utility>

#include "absl/time/clock.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {

using format::Timestamp;

Recorder::Recorder(RecorderOptions options, LogFunction log)
    : mapping_(options.mapping),
      files_({options.mmv_dir, options.files, options.mmv_dir_watch}, log),
      session_({options.archive_base, options.archive, options.host, options.label_hostname,
                options.mapping, options.volume_samples, options.resume, options.live},
               log),
      feed_(options.live, log),
      plan_(options.plan, log),
      metadata_(options.mapping.domain),
      results_(log) {}

RecorderStats Recorder::stats() const {
  RecorderStats s;
  // Held results that never reached an archive were counted as written:
  // they are dropped samples.
  const uint64_t lost = session_.unwritten();
  s.samples = samples_ - std::min(samples_, lost);
  s.results = results_written_ - std::min(results_written_, lost);
  s.values = values_;
  s.marks = session_.marks();
  s.archives = session_.archives_started();
  s.dropped = session_.dropped() + lost;
  s.retaken = retaken_;
  s.in_place = results_.in_place();
  return s;
}

absl::Status Recorder::Tick(absl::Time now, const std::vector<size_t>* group_ids) {
  feed_.Step(now, session_);
  // In an outage each tick tries to continue the archive; until then
  // samples are dropped.
  if (!session_.ContinueAfterOutage()) return absl::OkStatus();
  bool need_mark = false;
  Timestamp stamp = session_.Stamp(now, &need_mark);
  // Values are read in place only when the tick writes one result (no plan).
  const MmvFileSet::Live& live = files_.Scan(copy_values_, plan_.plan() == nullptr, &need_mark);
  if (std::optional<absl::Status> done = session_.Ensure(now, !live.empty())) return *done;
  if (session_.TakeCreated()) feed_.Start();
  need_mark = need_mark || session_.TakeGap();
  // A steady tick (the last snapshots again) has nothing to map.
  if (!files_.reused()) {
    if (std::optional<absl::Status> done = MapChanged(now, live, &need_mark, group_ids)) {
      return *done;
    }
  }
  plan_.Resolve(files_, live);
  if (std::optional<absl::Status> done = DescribeNew(now, live, stamp, group_ids)) return *done;
  if (need_mark && session_.has_result() && !session_.MarkGap(&stamp)) return absl::OkStatus();
  absl::Status s = WriteResults(now, live, stamp, group_ids);
  if (results_.TakeTorn() && !copy_values_) {
    // Nothing was written: the same tick again, every file copied (the
    // copies are checked as they are made, and retried by MmvSource).
    copy_values_ = true;
    ++retaken_;
    s = Tick(now, group_ids);
    copy_values_ = false;
  }
  return s;
}

absl::Status Recorder::Rotate(absl::Time now, const std::string& why) {
  feed_.Stop();  // closing writes what is held
  if (absl::Status s = session_.Rotate(now, why); !s.ok()) return s;
  if (session_.TakeCreated()) feed_.Start();
  files_.ForgetMappings();  // mapped again with fresh PMIDs
  return absl::OkStatus();
}

std::optional<absl::Status> Recorder::MapChanged(absl::Time now, const MmvFileSet::Live& live,
                                                 bool* need_mark,
                                                 const std::vector<size_t>* group_ids) {
  absl::Status s = files_.MapChanged(live, session_.pmids(),
                                     /*conflict_rotates=*/session_.has_result(), need_mark);
  if (s.ok()) return std::nullopt;
  // A name would change PMID: continue in a new archive.
  if (absl::Status r = Rotate(now, std::string(s.message())); !r.ok()) return r;
  return Tick(now, group_ids);
}

std::optional<absl::Status> Recorder::DescribeNew(absl::Time now, const MmvFileSet::Live& live,
                                                  Timestamp stamp,
                                                  const std::vector<size_t>* group_ids) {
  if (session_.writer_serial() != described_writer_) {
    // A writer resumed after a fault may have lost any part of the
    // metadata: every file is described again.
    metadata_.ForgetAll();
    described_writer_ = session_.writer_serial();
    described_ = {};
  }
  // Nothing mapped since every mapped file was described (under this plan
  // version): a steady tick looks nothing up.
  const std::pair<uint64_t, uint64_t> now_mapped{files_.mapping_serial(), plan_.version()};
  if (described_ == now_mapped) return std::nullopt;
  for (const auto& [f, snap] : live) {
    if (!f->mapped() || metadata_.Current(*f, plan_.version())) continue;
    absl::Status s =
        metadata_.Describe(*f, files_, plan_.plan(), plan_.version(), session_, stamp);
    if (absl::IsAlreadyExists(s) && session_.wrote_any()) {
      // A PMID would change meaning: continue in a new archive (whose fresh
      // archive cannot conflict, so this happens at most once per sample).
      if (absl::Status r = Rotate(now, std::string(s.message())); !r.ok()) return r;
      return Tick(now, group_ids);
    }
    if (absl::IsInvalidArgument(s)) {
      // This file's metadata cannot be put in an archive (nothing of the
      // record was written): the file is skipped, the others recorded.
      files_.Drop(*f, std::string(s.message()));
      continue;
    }
    if (!s.ok()) {
      session_.Drop(s);
      return absl::OkStatus();
    }
  }
  metadata_.KeepOnly(live);
  described_ = now_mapped;
  return std::nullopt;
}

absl::Status Recorder::WriteResults(absl::Time now, const MmvFileSet::Live& live,
                                    Timestamp stamp, const std::vector<size_t>* group_ids) {
  if (!session_.StartVolumeIfFull()) return absl::OkStatus();
  const int64_t now_usec = absl::ToUnixMicros(now);
  size_t values = 0;
  bool wrote = false;
  // The groups of this tick, in the plan's order; without a plan, one.
  plan_.Groups(group_ids, &groups_);
  // Without a plan, a steady tick's parts are the last tick's: the same
  // files, the same snapshots.
  const bool same_parts = parts_current_ && files_.reused() && plan_.plan() == nullptr;
  parts_current_ = false;
  for (const GroupSelection* g : groups_) {
    if (!same_parts) {
      parts_.clear();
      files_.Parts(live, g, plan_.version(), &parts_);
    }
    absl::StatusOr<bool> written = results_.Write(g == nullptr ? SIZE_MAX : g->id, parts_,
                                                  stamp, now_usec, session_, &values, same_parts);
    parts_current_ = plan_.plan() == nullptr;
    if (!written.ok()) {
      if (absl::IsFailedPrecondition(written.status()) ||
          absl::IsInvalidArgument(written.status())) {
        return written.status();  // a bug
      }
      session_.Drop(written.status());
      return absl::OkStatus();
    }
    if (!*written) {
      if (results_.torn()) return absl::OkStatus();  // nothing written; Tick retakes it
      continue;
    }
    wrote = true;
    ++results_written_;
    session_.Wrote(stamp);
    // One result per group, each after the last: pmlogger's groups are
    // fetched one after the other.
    stamp = format::ToTimestamp(format::ToAbslTime(stamp) + absl::Microseconds(1));
  }
  session_.OutageOver();
  if (!wrote) return absl::OkStatus();
  feed_.Wrote(now, session_);
  values_ += values;
  ++samples_;
  return absl::OkStatus();
}

absl::Status Recorder::Close() {
  feed_.Stop();  // Close writes what is held
  return session_.Close();
}

absl::Status Recorder::StartNewArchive(const std::string& base) {
  feed_.Stop();
  absl::Status s = session_.StartNewArchive(base);
  files_.ForgetMappings();  // metadata again into the new archive, same PMIDs
  return s;
}

}  // namespace mmvlog::archiver

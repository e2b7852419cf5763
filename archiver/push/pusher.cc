#include "archiver/push/pusher.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "archiver/store/archive_reader.h"

namespace mmvlog::archiver {
namespace {

void RemoveArchive(const std::string& base) {
  absl::StatusOr<std::vector<VolumeFile>> volumes = ListVolumes(base);
  if (volumes.ok()) {
    for (const VolumeFile& v : *volumes) (void)::unlink(v.path.c_str());
  }
  (void)::unlink((base + ".index").c_str());
  (void)::unlink((base + ".meta").c_str());
}

}  // namespace

Pusher::Pusher(PusherOptions options, LogFunction log)
    : options_(std::move(options)),
      log_(std::move(log)),
      http_(options_.endpoint, options_.http),
      client_(&http_, options_.client_id, options_.poll_timeout) {}

void Pusher::Enqueue(const std::string& base, PushState state) {
  state.archive = base;
  state.server = options_.endpoint.ToString();
  queue_.push_back(std::make_unique<ArchivePush>(std::move(state), &client_, options_.push, log_));
}

absl::Status Pusher::Resume() {
  if (options_.state_path.empty()) return absl::OkStatus();
  absl::StatusOr<PushState> s = LoadPushState(options_.state_path);
  if (absl::IsNotFound(s.status())) return absl::OkStatus();
  if (!s.ok()) return s.status();
  if (!ArchiveFileExists(s->archive, ".meta")) return absl::OkStatus();
  // A LOGID is only good with the server that gave it, and when the state
  // was saved with nothing in flight.
  if (!s->clean || s->server != options_.endpoint.ToString()) s->logid = 0;
  log_(LogLevel::kInfo,
       absl::StrCat("push: going on with ", s->archive, " from volume ", s->volume, " offset ",
                    s->data, " (", s->records, " records sent before",
                    s->logid != 0 ? absl::StrCat(", to remote archive ", s->logid) : "", ")"));
  const std::string base = s->archive;
  Enqueue(base, std::move(*s));
  return absl::OkStatus();
}

void Pusher::Follow(const std::string& base) {
  if (base.empty() || (!queue_.empty() && queue_.back()->state().archive == base)) return;
  Enqueue(base, PushState());
}

void Pusher::Add(const std::string& base) {
  // The archive Resume queued already goes on; it is not pushed twice.
  if (!queue_.empty() && queue_.back()->state().archive == base) return;
  Enqueue(base, PushState());
}

Pusher::Totals Pusher::totals() const {
  Totals t = done_totals_;
  for (const auto& a : queue_) {
    t.records += a->state().records;
    t.bytes += a->state().bytes;
    t.dropped_records += a->state().dropped_records;
    t.remote_archives += a->state().remote_archives;
  }
  return t;
}

std::string Pusher::Behind(absl::Time now) {
  if (queue_.empty()) return "nothing to send";
  ArchivePush& a = *queue_.front();
  absl::StatusOr<Backlog> b = a.CountBacklog();
  std::string out;
  if (b.ok()) {
    absl::StrAppend(&out, "behind by ", b->records, " records");
    if (b->oldest.has_value()) {
      absl::StrAppend(&out, " / ",
                      absl::FormatDuration(absl::Trunc(now - format::ToAbslTime(*b->oldest),
                                                       absl::Milliseconds(100))));
    }
  } else {
    absl::StrAppend(&out, "behind by ? records (", b.status().message(), ")");
  }
  absl::StrAppend(&out, ", spool ", a.BacklogBytes(), " bytes");
  if (options_.push.spool_limit > 0) absl::StrAppend(&out, " (limit ", options_.push.spool_limit, ")");
  if (queue_.size() > 1) absl::StrAppend(&out, ", ", queue_.size() - 1, " more archives");
  return out;
}

void Pusher::Failure(const absl::Status& s, absl::Time now) {
  ++failures_;
  const std::string what(s.message());
  if (!options_.keep_trying) {
    error_ = s;
    return;
  }
  // A damaged local archive will not mend: the rest of it is left.
  if (absl::IsDataLoss(s) || absl::IsFailedPrecondition(s)) {
    log_(LogLevel::kError, absl::StrCat("push: ", what, "; the rest of ",
                                        queue_.front()->state().archive, " is not pushed"));
    Finished(now);
    return;
  }
  const absl::Duration delay =
      std::min(options_.backoff_max,
               options_.backoff_min * (int64_t{1} << std::min(failures_ - 1, 20)));
  retry_at_ = now + delay;
  if (failing_since_ == absl::InfiniteFuture()) {
    failing_since_ = now;
    next_report_ = now + options_.report_every;
    const bool misconfigured =
        absl::IsPermissionDenied(s) || absl::IsInvalidArgument(s) || absl::IsUnauthenticated(s);
    log_(misconfigured ? LogLevel::kError : LogLevel::kWarning,
         absl::StrCat("push: ", what, "; keeping records in the spool, retrying (every ",
                      absl::FormatDuration(options_.backoff_max), " at most)"));
  } else if (now >= next_report_) {
    next_report_ = now + options_.report_every;
    log_(LogLevel::kWarning,
         absl::StrCat("push: not connected to ", options_.endpoint.ToString(), " for ",
                      absl::FormatDuration(absl::Trunc(now - failing_since_, absl::Seconds(1))),
                      " (", what, "): ", Behind(now)));
  }
  last_failure_ = what;
}

void Pusher::Progress(absl::Time now, const Catching& before) {
  failures_ = 0;
  retry_at_ = absl::InfinitePast();
  if (failing_since_ == absl::InfiniteFuture()) return;
  // What this step sent is what the push was behind by (it stops early
  // only when stopped, or at the end of an archive: a rough count then).
  const uint64_t sent = queue_.empty() || queue_.front()->state().archive != before.archive
                            ? 0
                            : queue_.front()->state().records - before.records;
  std::string was = absl::StrCat("was behind by ", sent, " records");
  if (before.oldest.has_value()) {
    absl::StrAppend(&was, " / ", absl::FormatDuration(absl::Trunc(
                                     now - format::ToAbslTime(*before.oldest), absl::Milliseconds(100))));
  }
  absl::StrAppend(&was, ", spool ", before.bytes, " bytes");
  log_(LogLevel::kInfo,
       absl::StrCat("push: connected again to ", options_.endpoint.ToString(), " after ",
                    absl::FormatDuration(absl::Trunc(now - failing_since_, absl::Seconds(1))),
                    "; ", was, ", now sent"));
  failing_since_ = absl::InfiniteFuture();
}

void Pusher::Finished(absl::Time now) {
  ArchivePush& a = *queue_.front();
  const PushState& s = a.state();
  log_(LogLevel::kInfo,
       absl::StrCat("push: ", s.archive, " pushed: ", s.records, " records, ", s.bytes,
                    " bytes in ", s.remote_archives, " remote archive",
                    s.remote_archives == 1 ? "" : "s",
                    s.dropped_records > 0 ? absl::StrCat(", ", s.dropped_records, " given up") : ""));
  done_totals_.records += s.records;
  done_totals_.bytes += s.bytes;
  done_totals_.dropped_records += s.dropped_records;
  done_totals_.remote_archives += s.remote_archives;
  ++done_totals_.archives;
  if (options_.remove_pushed) RemoveArchive(s.archive);
  queue_.pop_front();
  next_save_ = now;
}

absl::Time Pusher::Step(absl::Time now, bool now_or_never) {
  if (!error_.ok()) return absl::InfiniteFuture();
  if (now < retry_at_ && !now_or_never) {
    if (!queue_.empty()) {
      if (absl::Status s = queue_.front()->Trim(); !s.ok()) Failure(s, now);
    }
    if (failing_since_ != absl::InfiniteFuture() && now >= next_report_) {
      next_report_ = now + options_.report_every;
      log_(LogLevel::kWarning,
           absl::StrCat("push: not connected to ", options_.endpoint.ToString(), " for ",
                        absl::FormatDuration(absl::Trunc(now - failing_since_, absl::Seconds(1))),
                        " (", last_failure_, "): ", Behind(now)));
    }
    return std::min(retry_at_, next_report_);
  }
  bool retried_gone = false;
  while (!queue_.empty()) {
    ArchivePush& a = *queue_.front();
    const bool finished = queue_.size() > 1 || finished_all_;
    // How far behind, before catching up (for the log; cheap: no scan).
    Catching before;
    if (!connected()) {
      before.archive = a.state().archive;
      before.records = a.state().records;
      before.bytes = a.BacklogBytes();
      before.oldest = a.OldestBacklog();
    }
    if (absl::Status s = a.Step(finished); !s.ok()) {
      // pmproxy answered 410: it is there, but restarted or timed the
      // archive out; a new remote archive at once, not after a backoff.
      if (absl::IsNotFound(s) && !retried_gone) {
        retried_gone = true;
        log_(LogLevel::kInfo, absl::StrCat("push: ", s.message(), ": a new remote archive"));
        continue;
      }
      Failure(s, now);
      if (!error_.ok()) return absl::InfiniteFuture();
      if (retry_at_ > now) return std::min(retry_at_, next_report_);
      continue;  // that archive was given up
    }
    Progress(now, before);
    if (!a.done()) break;
    Finished(now);
  }
  if (!options_.state_path.empty() && now >= next_save_) {
    next_save_ = now + options_.save_every;
    (void)SaveState(false);
  }
  return done() ? absl::InfiniteFuture() : now + absl::Seconds(1);
}

absl::Status Pusher::SaveState(bool clean) {
  if (options_.state_path.empty()) return absl::OkStatus();
  if (queue_.empty()) {
    if (::unlink(options_.state_path.c_str()) != 0 && errno != ENOENT) {
      return absl::ErrnoToStatus(errno, absl::StrCat("remove ", options_.state_path));
    }
    return absl::OkStatus();
  }
  PushState s = queue_.front()->state();
  s.clean = clean;
  return SavePushState(options_.state_path, s);
}

}  // namespace mmvlog::archiver

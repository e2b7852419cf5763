#include "archiver/push/archive_push.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "archiver/store/archive_reader.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_label.h"
#include "format/archive/archive_result.h"

namespace mmvlog::archiver {
namespace {

// <base><ext> plain, else compressed under a suffix libpcp reads; "" when
// there is neither.
std::string FindFile(const std::string& base, absl::string_view ext) {
  struct stat st;
  const std::string path = absl::StrCat(base, ext);
  if (::stat(path.c_str(), &st) == 0) return path;
  for (const char* c : {".xz", ".lzma", ".bz2", ".bz", ".gz", ".z", ".Z", ".zst"}) {
    if (::stat((path + c).c_str(), &st) == 0) return path + c;
  }
  return "";
}

std::span<const uint8_t> Payload(std::span<const uint8_t> record) {
  return record.subspan(4, record.size() - 8);
}

// A record that, with a <mark> before it, would not fit one POST.
constexpr size_t kLargestRecord = LoggerClient::kMaxBody - 64;

}  // namespace

ArchivePush::ArchivePush(PushState state, LoggerClient* client, const PushOptions& options,
                         LogFunction log)
    : state_(std::move(state)), client_(client), options_(options), log_(std::move(log)) {
  options_.body_bytes = std::clamp<size_t>(options_.body_bytes, 1, kLargestRecord);
  // Over TLS bodies go in pieces (LoggerClient::kTlsPiece): batches of that
  // size keep records whole in a piece where they fit one.
  if (client_->http().endpoint().tls) {
    options_.body_bytes = std::min(options_.body_bytes, LoggerClient::kTlsPiece);
  }
}

absl::StatusOr<bool> ArchivePush::Open(bool finished) {
  if (opened_) return true;
  const std::string& base = state_.archive;
  const std::string path = FindFile(base, ".meta");
  if (path.empty()) {
    if (!finished) return false;  // created with the first sample
    return absl::FailedPreconditionError(
        absl::StrCat(base, ": no such archive (no ", base, ".meta)"));
  }
  absl::StatusOr<std::unique_ptr<RecordTail>> tail = RecordTail::Open(path, 0);
  if (!tail.ok()) return tail.status();
  absl::StatusOr<std::optional<std::span<const uint8_t>>> rec = (*tail)->Next();
  if (!rec.ok()) return rec.status();
  if (!rec->has_value()) {
    if (!finished) return false;
    return absl::DataLossError(absl::StrCat(path, ": no archive label"));
  }
  absl::StatusOr<format::LogLabel> label = format::DecodeLogLabel(Payload(**rec));
  if (!label.ok()) return absl::DataLossError(absl::StrCat(path, ": ", label.status().message()));
  version_ = label->version;
  label_.assign((*rec)->begin(), (*rec)->end());
  label_size_ = label_.size();
  meta_ = std::move(*tail);
  state_.meta = std::max(state_.meta, label_size_);
  state_.index = std::max(state_.index, label_size_);
  state_.data = std::max(state_.data, label_size_);
  if (absl::Status s = meta_->Seek(state_.meta); !s.ok()) return s;
  opened_ = true;
  return true;
}

absl::Status ArchivePush::NewRemote() {
  absl::StatusOr<uint32_t> id = client_->Label(label_);
  if (!id.ok()) return id.status();
  state_.logid = *id;
  ++state_.remote_archives;
  state_.bytes += label_size_;
  state_.meta = label_size_;
  meta_.reset();  // the whole .meta again, from its label on
  state_.map.Clear();
  state_.remote_data = label_size_;
  segment_pending_ = true;
  const bool from_start = state_.data == label_size_ && state_.volume == 0;
  start_entry_pending_ = !from_start;
  log_(LogLevel::kInfo,
       absl::StrCat("push: ", state_.archive, " -> ", client_->http().endpoint().ToString(),
                    " remote archive ", state_.logid,
                    from_start ? ""
                               : absl::StrCat(" (from volume ", state_.volume, " offset ",
                                              state_.data, ": what was not acknowledged)")));
  return absl::OkStatus();
}

void ArchivePush::ForgetRemote() { state_.logid = 0; }

absl::Status ArchivePush::Failed(absl::Status s) {
  // Read again from what pmproxy acknowledged.
  for (auto [tail, at] : {std::pair{&meta_, state_.meta}, std::pair{&index_, state_.index},
                          std::pair{&data_, state_.data}}) {
    if (*tail != nullptr && !(*tail)->Seek(at).ok()) tail->reset();
  }
  // Nothing reached pmproxy (no connection, or its certificate refused):
  // the remote archive goes on once it can be reached.
  if (!absl::IsUnavailable(s) && !absl::IsUnauthenticated(s)) ForgetRemote();
  return s;
}

std::optional<int32_t> ArchivePush::NextVolume(int32_t volume) {
  struct stat st;
  if (::stat(absl::StrCat(state_.archive, ".", volume + 1).c_str(), &st) == 0) return volume + 1;
  // Compressed, or numbers with a gap (pmlogextract, a deleted volume): the
  // directory's listing, made again at most once a second (a live archive
  // is asked after every sample, and its next volume is plain).
  const absl::Time now = absl::Now();
  if (now >= next_listing_) {
    next_listing_ = now + absl::Seconds(1);
    absl::StatusOr<std::vector<VolumeFile>> all = ListVolumes(state_.archive);
    if (all.ok()) listing_ = std::move(*all);
  }
  for (const VolumeFile& v : listing_) {
    if (v.number > volume && v.number <= INT32_MAX) return static_cast<int32_t>(v.number);
  }
  return std::nullopt;
}

absl::Status ArchivePush::OpenVolume(bool finished) {
  if (data_ != nullptr && data_volume_ == state_.volume) return data_->Seek(state_.data);
  data_.reset();
  const std::string path = FindFile(state_.archive, absl::StrCat(".", state_.volume));
  if (path.empty()) {
    std::optional<int32_t> next = NextVolume(state_.volume);
    if (!next.has_value()) return absl::OkStatus();  // none yet
    if (!finished) {
      // A live archive's volume that is gone: its records went with it.
      log_(LogLevel::kWarning, absl::StrCat("push: ", state_.archive, ".", state_.volume,
                                            " is gone; going on with volume ", *next));
    }
    SwitchVolume(*next);
    return OpenVolume(finished);
  }
  absl::StatusOr<std::unique_ptr<RecordTail>> t = RecordTail::Open(path, state_.data);
  if (!t.ok()) return absl::IsNotFound(t.status()) ? absl::OkStatus() : t.status();
  data_ = std::move(*t);
  data_volume_ = state_.volume;
  return absl::OkStatus();
}

void ArchivePush::SwitchVolume(int32_t next) {
  if (options_.remove_sent_volumes && data_ != nullptr) (void)::unlink(data_->path().c_str());
  data_.reset();
  data_volume_ = -1;
  state_.volume = next;
  state_.data = label_size_;
  state_.remote_data = label_size_;  // pmproxy labels each new volume itself
  segment_pending_ = true;
}

uint64_t ArchivePush::BacklogBytes() const {
  uint64_t bytes = 0;
  struct stat st;
  for (int32_t v = state_.volume;; ++v) {
    if (::stat(absl::StrCat(state_.archive, ".", v).c_str(), &st) != 0) break;
    const uint64_t from = v == state_.volume ? state_.data : label_size_;
    if (static_cast<uint64_t>(st.st_size) > from) bytes += st.st_size - from;
  }
  return bytes;
}

absl::Status ArchivePush::Trim() {
  if (!opened_ || options_.spool_limit == 0) return absl::OkStatus();
  uint64_t backlog = BacklogBytes();
  if (backlog <= options_.spool_limit) return absl::OkStatus();
  if (!said_full_) {
    said_full_ = true;
    log_(LogLevel::kWarning,
         absl::StrCat("push: spool full (", backlog, " bytes not acknowledged, limit ",
                      options_.spool_limit, "): giving up the oldest records until ",
                      client_->http().endpoint().ToString(), " takes them again"));
  }
  while (backlog > options_.spool_limit) {
    if (absl::Status s = OpenVolume(false); !s.ok()) return s;
    if (data_ == nullptr) break;
    const uint64_t at = data_->offset();
    absl::StatusOr<std::optional<std::span<const uint8_t>>> rec = data_->Next();
    if (!rec.ok()) return rec.status();
    if (!rec->has_value()) {
      std::optional<int32_t> next = NextVolume(state_.volume);
      if (!next.has_value()) break;
      SwitchVolume(*next);
      backlog = BacklogBytes();
      continue;
    }
    const std::span<const uint8_t> r = **rec;
    GiveUp(r, at);
    backlog -= std::min<uint64_t>(backlog, r.size());
  }
  return absl::OkStatus();
}

void ArchivePush::GiveUp(std::span<const uint8_t> record, uint64_t at) {
  if (!segment_pending_) {
    state_.map.Drop(state_.volume, at);
    segment_pending_ = true;
  }
  if (!state_.gap) {
    absl::StatusOr<format::Timestamp> t =
        format::DecodeResultTimestamp(version_, Payload(record), at);
    state_.gap = true;
    state_.gap_from = t.ok() ? *t : format::Timestamp{};
    state_.gap_records = state_.gap_bytes = 0;
  }
  ++state_.gap_records;
  state_.gap_bytes += record.size();
  ++state_.dropped_records;
  state_.dropped_bytes += record.size();
  state_.data = data_->offset();
  data_->Release(state_.data);
}

absl::Status ArchivePush::CollectBatch(bool finished, Batch* batch, bool* volume_done) {
  *volume_done = false;
  if (absl::Status s = OpenVolume(finished); !s.ok()) return s;
  batch->first = batch->end = state_.data;
  if (data_ == nullptr) return absl::OkStatus();
  while (batch->body.size() < options_.body_bytes) {
    const uint64_t at = data_->offset();
    absl::StatusOr<std::optional<std::span<const uint8_t>>> rec = data_->Next();
    if (!rec.ok()) {
      // Damage: what comes before it is sent first; the next call fails.
      if (batch->records == 0) return rec.status();
      (void)data_->Seek(at);
      break;
    }
    if (!rec->has_value()) {
      // Looked for before the last read: a volume after this one means
      // this one was complete before that read.
      const bool next = NextVolume(state_.volume).has_value();
      rec = data_->Next();
      if (!rec.ok()) return rec.status();
      if (!rec->has_value()) {
        *volume_done = next || finished;
        batch->all_there = true;
        break;
      }
    }
    const std::span<const uint8_t> r = **rec;
    if (r.size() > kLargestRecord) {
      if (batch->records > 0) {
        // Post what comes before it first; the mark goes with what follows.
        (void)data_->Seek(at);
        break;
      }
      log_(LogLevel::kError, absl::StrCat("push: ", data_->path(), ": record at offset ", at,
                                          " is ", r.size(), " bytes, over pmproxy's limit: left "
                                          "out, a <mark> stands for it"));
      GiveUp(r, at);
      batch->first = batch->end = state_.data;
      continue;
    }
    if (batch->records > 0 && batch->body.size() + r.size() > kLargestRecord) {
      (void)data_->Seek(at);
      break;
    }
    batch->body.insert(batch->body.end(), r.begin(), r.end());
    batch->end = data_->offset();
    ++batch->records;
  }
  return absl::OkStatus();
}

absl::Status ArchivePush::SendMeta() {
  if (meta_ == nullptr) {
    absl::StatusOr<std::unique_ptr<RecordTail>> t =
        RecordTail::Open(FindFile(state_.archive, ".meta"), state_.meta);
    if (!t.ok()) return t.status();
    meta_ = std::move(*t);
  }
  for (;;) {
    std::vector<uint8_t> body;
    uint64_t end = state_.meta;
    while (body.size() < options_.body_bytes) {
      absl::StatusOr<std::optional<std::span<const uint8_t>>> rec = meta_->Next();
      if (!rec.ok()) return rec.status();
      if (!rec->has_value()) break;
      if (!body.empty() && body.size() + (*rec)->size() > kLargestRecord) {
        (void)meta_->Seek(end);
        break;
      }
      body.insert(body.end(), (*rec)->begin(), (*rec)->end());
      end = meta_->offset();
    }
    if (body.empty()) return absl::OkStatus();
    if (absl::Status s = client_->Meta(state_.logid, body); !s.ok()) return Failed(s);
    state_.meta = end;
    state_.bytes += body.size();
    meta_->Release(end);
  }
}

absl::Status ArchivePush::SendBatch(Batch& batch) {
  std::vector<uint8_t> body;
  if (state_.gap) {
    format::Result mark;
    mark.timestamp = state_.gap_from;
    format::EncodeResult(version_, mark, &body);
  }
  const uint64_t mark_size = body.size();
  body.insert(body.end(), batch.body.begin(), batch.body.end());
  if (absl::Status s = client_->Volume(state_.volume, state_.logid, body); !s.ok()) {
    return Failed(s);
  }
  if (segment_pending_ || mark_size > 0) {
    state_.map.Map(state_.volume, batch.first, state_.remote_data + mark_size);
    segment_pending_ = false;
  }
  const uint64_t first_remote = state_.remote_data;
  state_.remote_data += body.size();
  state_.data = batch.end;
  state_.records += batch.records;
  state_.bytes += body.size();
  data_->Release(batch.end);
  if (state_.gap) {
    log_(LogLevel::kWarning,
         absl::StrCat("push: gave up ", state_.gap_records, " records (", state_.gap_bytes,
                      " bytes) from ", absl::FormatTime(format::ToAbslTime(state_.gap_from)),
                      " on, while pmproxy could not take them; a <mark> stands at the gap in "
                      "remote archive ", state_.logid));
    state_.gap = false;
    state_.gap_records = state_.gap_bytes = 0;
    said_full_ = false;
  }
  if (std::exchange(start_entry_pending_, false)) {
    // At the first record (or the mark before it), with no metadata before
    // it: true of any archive (pmlogcheck wants the .meta offset past the
    // label, and not decreasing after).
    format::IndexEntry e;
    absl::StatusOr<format::Timestamp> t =
        format::DecodeResultTimestamp(version_, std::span<const uint8_t>(body).subspan(4), first_remote);
    if (!t.ok()) return t.status();
    e.timestamp = *t;
    e.volume = state_.volume;
    e.meta_offset = label_size_;
    e.data_offset = first_remote;
    std::vector<uint8_t> entry;
    if (absl::Status s = format::EncodeIndexEntry(version_, e, &entry); !s.ok()) return s;
    if (absl::Status s = client_->Index(state_.logid, entry); !s.ok()) return Failed(s);
    state_.bytes += entry.size();
  }
  return absl::OkStatus();
}

absl::Status ArchivePush::SendIndex(bool data_exhausted, bool* all) {
  *all = false;
  if (index_ == nullptr) {
    const std::string path = FindFile(state_.archive, ".index");
    if (path.empty()) {  // an archive may have no index (PCP reads it without)
      *all = true;
      return absl::OkStatus();
    }
    absl::StatusOr<std::unique_ptr<RecordTail>> t =
        RecordTail::Open(path, state_.index, format::IndexEntrySize(version_));
    if (!t.ok()) return t.status();
    index_ = std::move(*t);
  }
  std::vector<uint8_t> body;
  uint64_t end = state_.index;
  for (;;) {
    absl::StatusOr<std::optional<std::span<const uint8_t>>> rec = index_->Next();
    if (!rec.ok()) return rec.status();
    if (!rec->has_value()) {
      *all = true;
      break;
    }
    absl::StatusOr<format::IndexEntry> e = format::DecodeIndexEntry(version_, **rec);
    if (!e.ok()) {
      return absl::DataLossError(
          absl::StrCat(index_->path(), ": entry at offset ", end, ": ", e.status().message()));
    }
    const bool ready = e->meta_offset <= state_.meta &&
                       (data_exhausted || e->volume < state_.volume ||
                        (e->volume == state_.volume && e->data_offset < state_.data));
    if (!ready) {
      (void)index_->Seek(end);
      break;
    }
    if (std::optional<format::IndexEntry> remote = state_.map.Translate(*e)) {
      if (absl::Status s = format::EncodeIndexEntry(version_, *remote, &body); !s.ok()) return s;
    }
    end = index_->offset();
  }
  if (end == state_.index) return absl::OkStatus();
  if (!body.empty()) {
    if (absl::Status s = client_->Index(state_.logid, body); !s.ok()) return Failed(s);
    state_.bytes += body.size();
  }
  state_.index = end;
  index_->Release(end);
  return absl::OkStatus();
}

absl::Status ArchivePush::Step(bool finished) {
  absl::StatusOr<bool> open = Open(finished);
  if (!open.ok()) return open.status();
  if (!*open) return absl::OkStatus();
  // Caught up last time: the backlog is this sample's, not worth a look.
  if (!caught_up_) {
    if (absl::Status s = Trim(); !s.ok()) return s;
  }
  caught_up_ = false;
  if (state_.logid == 0) {
    if (absl::Status s = NewRemote(); !s.ok()) return s;
  }
  bool exhausted = false;
  for (;;) {
    Batch batch;
    bool volume_done = false;
    if (absl::Status s = CollectBatch(finished, &batch, &volume_done); !s.ok()) return s;
    // The batch's records were all written before .meta is read here, so
    // their metadata is in what is sent now.
    if (absl::Status s = SendMeta(); !s.ok()) return s;
    if (batch.records == 0) {
      if (!volume_done) break;
      std::optional<int32_t> next = NextVolume(state_.volume);
      if (!next.has_value()) {
        exhausted = true;
        break;
      }
      SwitchVolume(*next);
      continue;
    }
    if (absl::Status s = SendBatch(batch); !s.ok()) return s;
    bool all = false;
    if (absl::Status s = SendIndex(false, &all); !s.ok()) return s;
    if (options_.stop && options_.stop()) return absl::OkStatus();
    // Caught up with what there was: the next records come with the next
    // Step (a live archive's after the next sample).
    if (batch.all_there && !volume_done && !finished) break;
  }
  bool all = false;
  if (absl::Status s = SendIndex(exhausted, &all); !s.ok()) return s;
  done_ = finished && exhausted && all;
  caught_up_ = true;
  return absl::OkStatus();
}

std::optional<format::Timestamp> ArchivePush::OldestBacklog() {
  if (!opened_) return std::nullopt;
  const std::string path = FindFile(state_.archive, absl::StrCat(".", state_.volume));
  if (path.empty()) return std::nullopt;
  absl::StatusOr<std::unique_ptr<RecordTail>> t = RecordTail::Open(path, state_.data);
  if (!t.ok()) return std::nullopt;
  absl::StatusOr<std::optional<std::span<const uint8_t>>> rec = (*t)->Next();
  if (!rec.ok() || !rec->has_value()) return std::nullopt;
  absl::StatusOr<format::Timestamp> ts =
      format::DecodeResultTimestamp(version_, Payload(**rec), state_.data);
  if (!ts.ok()) return std::nullopt;
  return *ts;
}

absl::StatusOr<Backlog> ArchivePush::CountBacklog() {
  Backlog b;
  if (!opened_) return b;
  int32_t v = state_.volume;
  uint64_t from = state_.data;
  for (;;) {
    const std::string path = FindFile(state_.archive, absl::StrCat(".", v));
    if (!path.empty()) {
      absl::StatusOr<std::unique_ptr<RecordTail>> t = RecordTail::Open(path, from);
      if (!t.ok()) return t.status();
      for (;;) {
        const uint64_t at = (*t)->offset();
        absl::StatusOr<std::optional<std::span<const uint8_t>>> rec = (*t)->Next();
        if (!rec.ok()) return rec.status();
        if (!rec->has_value()) break;
        if (!b.oldest.has_value()) {
          absl::StatusOr<format::Timestamp> ts =
              format::DecodeResultTimestamp(version_, Payload(**rec), at);
          if (ts.ok()) b.oldest = *ts;
        }
        ++b.records;
        b.bytes += (*rec)->size();
        (*t)->Release((*t)->offset());
      }
    }
    std::optional<int32_t> next = NextVolume(v);
    if (!next.has_value()) break;
    v = *next;
    from = label_size_;
  }
  return b;
}

}  // namespace mmvlog::archiver

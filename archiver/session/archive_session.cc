#include "archiver/session/archive_session.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "archiver/session/prologue.h"
#include "archiver/store/archive_reader.h"
#include "archiver/store/rotation_policy.h"
#include "format/archive/archive_format.h"

namespace mmvlog::archiver {

using format::Timestamp;

ArchiveSession::~ArchiveSession() {
  if (writer_ != nullptr) (void)writer_->Close();
}

uint64_t ArchiveSession::bytes_written() const {
  return closed_archive_bytes_ + (writer_ ? writer_->total_bytes() : 0);
}

bool ArchiveSession::ContinueAfterOutage() {
  // The writer closed after a write error: each tick tries to continue the
  // archive (space freed); until then samples are dropped.
  if (phase_ != Phase::kOutage || writer_ != nullptr || archives_.empty()) return true;
  if (TryResume()) return true;
  ++dropped_;
  return false;
}

Timestamp ArchiveSession::Stamp(absl::Time now, bool* need_mark) {
  Timestamp stamp = format::ToTimestamp(now);
  if (!have_result_ || last_stamp_ < stamp) {
    clock_behind_ = false;
    return stamp;
  }
  // The wall clock stepped back: keep the archive in time order (each
  // sample 1 us after the last until the clock catches up) and tell rate
  // tools once that there is a discontinuity. Within a millisecond it is
  // only the groups of the last tick, stamped a microsecond apart.
  const absl::Time last = format::ToAbslTime(last_stamp_);
  if (!clock_behind_ && now < last - absl::Milliseconds(1)) {
    log_(LogLevel::kWarning, "wall clock stepped backwards; marking the gap");
    *need_mark = true;
    clock_behind_ = true;
  }
  return format::ToTimestamp(last + absl::Microseconds(1));
}

std::optional<absl::Status> ArchiveSession::Ensure(absl::Time now, bool have_files) {
  if (writer_ != nullptr) return std::nullopt;
  // The archive is created with the first sample that has a file to
  // record: an archive without any metric is one PCP cannot open.
  if (!have_files) return absl::OkStatus();
  absl::Status s = OpenArchive(now);
  if (s.ok()) {
    if (phase_ == Phase::kOutage) phase_ = Phase::kResuming;
    return std::nullopt;
  }
  // A full disk (ENOSPC, EDQUOT, EFBIG), a device error (EIO) or a
  // transient one is waited out; a missing directory, a permission or an
  // existing archive is a mistake to report, not to wait for.
  if (absl::IsNotFound(s) || absl::IsPermissionDenied(s) || absl::IsAlreadyExists(s) ||
      absl::IsInvalidArgument(s) || absl::IsFailedPrecondition(s)) {
    return s;
  }
  // As for a write error: report once, drop the sample, try again next time.
  if (phase_ == Phase::kRecording) {
    log_(LogLevel::kError, absl::StrCat(s.message(), "; samples are dropped until the archive "
                                        "can be written"));
  }
  phase_ = Phase::kOutage;
  ++dropped_;
  return absl::OkStatus();
}

absl::Status ArchiveSession::OpenArchive(absl::Time now) {
  std::string base = options_.archive_base;
  if (!archives_.empty() && !next_base_explicit_) {
    // "<base>-2", "-3", ...: the first that does not exist yet (a resumed
    // recorder may find earlier ones).
    struct stat st;
    for (size_t n = archives_.size() + 1;; ++n) {
      base = absl::StrCat(options_.archive_base, "-", n);
      if (::stat((base + ".meta").c_str(), &st) != 0) break;
    }
  }
  const bool keep_pmids = next_base_explicit_ && mapper_ != nullptr;
  current_base_ = base;
  ArchiveOptions opts = options_.archive;
  opts.hostname =
      options_.label_hostname.empty() ? options_.host.hostname : options_.label_hostname;
  opts.timezone = options_.host.timezone;
  opts.zoneinfo = options_.host.zoneinfo;
  // The archive starts with the prologue, a microsecond before the first
  // sample (6.0.3's pmlogger writes it one fetch before; 7.x's at its first
  // fetch, stamped with it): the context labels, stamped at the first
  // sample, are then not in force at the archive's start, which gives
  // `pmseries --load` (6.0.3 and 7.2) pmlogger's source and series
  // (tests/pcp/series_identity_test).
  const Timestamp start = format::ToTimestamp(now - absl::Microseconds(1));
  struct stat st;
  if (archives_.empty() && options_.resume && ::stat((base + ".meta").c_str(), &st) == 0) {
    absl::StatusOr<std::unique_ptr<ArchiveWriter>> w = ArchiveWriter::Resume(base, opts);
    if (!w.ok()) return w.status();
    writer_ = std::move(*w);
    ++writer_serial_;
    next_base_explicit_ = false;
    mapper_ = std::make_unique<MmvMapper>(options_.mapping);
    absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(base);
    if (r.ok()) mapper_->Seed((*r)->meta().descs);
    archives_.push_back(base);
    ++archives_started_;
    have_result_ = writer_->has_last();
    last_stamp_ = writer_->last_stamp();
    gap_ = have_result_;
    resumed_archive_ = true;
    prologue_volume_ = -1;
    log_(LogLevel::kInfo, absl::StrCat("continuing archive ", base, " in volume ",
                                       writer_->volume()));
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<ArchiveWriter>> w = ArchiveWriter::Create(base, opts, start);
  if (!w.ok()) return w.status();
  writer_ = std::move(*w);
  ++writer_serial_;
  next_base_explicit_ = false;
  resumed_archive_ = false;
  if (!keep_pmids) mapper_ = std::make_unique<MmvMapper>(options_.mapping);
  archives_.push_back(base);
  ++archives_started_;
  have_result_ = false;
  context_labelled_ = false;
  if (options_.hold_new_archive) {
    writer_->HoldRecords();
    prologue_held_ = true;
  }
  const Timestamp first_sample = format::ToTimestamp(now);
  if (absl::Status s = WriteLogue(start, &first_sample); !s.ok()) return s;
  prologue_volume_ = writer_->volume();
  created_ = true;
  log_(LogLevel::kInfo, absl::StrCat("recording to archive ", base));
  return absl::OkStatus();
}

absl::Status ArchiveSession::WriteLogue(Timestamp when, const Timestamp* labels_at) {
  char cwd[4096];
  std::string path = current_base_;
  if (!path.starts_with("/") && ::getcwd(cwd, sizeof(cwd)) != nullptr) {
    path = absl::StrCat(cwd, "/", path);
  }
  Prologue p = MakePrologue(when, static_cast<int32_t>(::getpid()), path);
  if (labels_at != nullptr) {
    // A new archive's .meta opens with the context labels ahead of every
    // descriptor: pmproxy 7, streaming a pushed archive, names a metric's
    // series when it reads its descriptor, from the context labels read by
    // then (a descriptor before them got no series). They are stamped at
    // the first sample, as pmlogger stamps them, so the prologue's instance
    // domain (stamped at the prologue) comes first: metadata stays in time
    // order, as pmlogcheck 7 wants.
    if (absl::Status s = writer_->AddInDom(p.indom); !s.ok()) return s;
    if (absl::Status s = LabelContext(*labels_at); !s.ok()) return s;
  }
  // pmlogger's order: the first descriptor, the instance domain, the rest.
  for (size_t i = 0; i < p.descs.size(); ++i) {
    if (absl::Status s = writer_->AddDesc(p.descs[i]); !s.ok()) return s;
    if (i > 0) continue;
    if (absl::Status s = writer_->AddInDom(p.indom); !s.ok()) return s;
  }
  return writer_->AppendResult(p.result);
}

absl::Status ArchiveSession::LabelContext(Timestamp when) {
  if (context_labelled_) return absl::OkStatus();
  // The context and domain labels pmcd would supply, stamped at the first
  // sample as pmlogger stamps them (pmseries --load takes those in force
  // at the archive's start: none, for pmlogger's archives and ours).
  // userid and groupid are the recorder's, OPTIONAL as in PCP.
  const std::string context = options_.host.ContextLabels(::getuid(), ::getgid());
  for (const auto& [type, ident, json] :
       std::vector<std::tuple<uint32_t, uint32_t, std::string>>{
           {format::kLabelContext, static_cast<uint32_t>(format::kInNull), context},
           {format::kLabelDomain, options_.mapping.domain, "{\"agent\":\"mmv\"}"}}) {
    absl::StatusOr<format::LabelSet> set =
        format::MakeLabelSet(format::kInNull, json, static_cast<uint8_t>(type));
    if (!set.ok()) return set.status();
    for (format::LabelEntry& e : set->labels) {
      const std::string name = set->json.substr(e.name_offset, e.name_length);
      if (name == "userid" || name == "groupid") e.flags |= format::kLabelOptional;
    }
    format::LabelRecord r;
    r.timestamp = when;
    r.type = type;
    r.ident = ident;
    r.sets.push_back(std::move(*set));
    if (absl::Status s = writer_->AddLabels(r); !s.ok()) return s;
  }
  context_labelled_ = true;
  return absl::OkStatus();
}

bool ArchiveSession::MarkGap(Timestamp* stamp) {
  Timestamp mark = last_stamp_;
  mark.nsec += 1'000'000;  // pmlogger's convention: last record + 1 ms
  if (mark.nsec >= 1'000'000'000) {
    mark.nsec -= 1'000'000'000;
    ++mark.sec;
  }
  if (*stamp < mark) mark = *stamp;
  if (absl::Status s = writer_->AppendMark(mark); !s.ok()) {
    Drop(s);
    gap_ = true;
    return false;
  }
  ++marks_;
  last_stamp_ = mark;
  // The result after a mark comes strictly after it.
  if (!(mark < *stamp)) {
    *stamp = format::ToTimestamp(format::ToAbslTime(mark) + absl::Microseconds(1));
  }
  return true;
}

bool ArchiveSession::StartVolumeIfFull() {
  // -v counts samples: not the prologue.
  const uint64_t in_volume =
      writer_->results_in_volume() - (writer_->volume() == prologue_volume_ ? 1 : 0);
  RotationPolicy policy;
  policy.volume_samples = options_.volume_samples;
  RotationState state;
  state.volume_results = in_volume;
  if (DecideRotation(policy, state) != Rotation::kNewVolume) return true;
  if (absl::Status s = writer_->NewVolume(); !s.ok()) {
    Drop(s);
    return false;
  }
  return true;
}

void ArchiveSession::Wrote(Timestamp stamp) {
  last_stamp_ = stamp;
  have_result_ = true;
}

void ArchiveSession::Broken(const absl::Status& why) {
  // Once per outage: a resume that fails again at its first write (a disk
  // still full) is the same outage.
  if (phase_ == Phase::kRecording) {
    log_(LogLevel::kError, absl::StrCat(why.message(), "; samples are dropped until the archive "
                                        "can be written again"));
  }
  phase_ = Phase::kOutage;
  closed_archive_bytes_ += writer_->total_bytes();
  (void)writer_->Close();
  CountUnwritten();
  writer_.reset();
}

void ArchiveSession::CountUnwritten() {
  // Held results that never reached the archive were counted as written;
  // a prologue among them is no sample.
  const uint64_t lost = writer_->unwritten_results();
  unwritten_ += lost - (prologue_held_ && lost > 0 ? 1 : 0);
  prologue_held_ = false;
}

void ArchiveSession::Drop(const absl::Status& why) {
  Broken(why);
  ++dropped_;
}

void ArchiveSession::ReleaseRecords() {
  if (absl::Status s = writer_->ReleaseRecords(); !s.ok()) Broken(s);
  prologue_held_ = false;  // written, or counted by Broken
}

bool ArchiveSession::TryResume() {
  ArchiveOptions opts = options_.archive;
  absl::StatusOr<std::unique_ptr<ArchiveWriter>> w = ArchiveWriter::Resume(archives_.back(), opts);
  if (!w.ok()) return false;
  writer_ = std::move(*w);
  ++writer_serial_;
  // The failed writer may have lost any part of the metadata: it is all
  // described again (the resumed writer skips what the archive holds; the
  // Recorder sees the new writer_serial()), the context labels too.
  context_labelled_ = false;
  closed_archive_bytes_ -= std::min(closed_archive_bytes_, writer_->total_bytes());
  phase_ = Phase::kResuming;
  gap_ = true;
  return true;
}

void ArchiveSession::OutageOver() {
  if (phase_ == Phase::kRecording) return;
  phase_ = Phase::kRecording;
  log_(LogLevel::kInfo, absl::StrCat("archive ", archives_.back(), " writable again; continuing in volume ",
                                     writer_->volume(), " after ", dropped_, " dropped samples"));
}

absl::Status ArchiveSession::Rotate(absl::Time now, const std::string& why) {
  log_(LogLevel::kWarning, absl::StrCat(why, "; one archive cannot hold both, so "
                                        "recording continues in a new archive"));
  if (absl::Status s = Close(); !s.ok()) return s;
  mapper_.reset();  // the conflict is over a PMID: fresh ones
  return OpenArchive(now);
}

absl::Status ArchiveSession::NewVolume() {
  if (writer_ == nullptr || phase_ == Phase::kOutage) return absl::OkStatus();
  absl::Status s = writer_->NewVolume();
  // What was held went to the finished volume (or was lost with it, which
  // the writer counts and the caller's Broken takes).
  if (s.ok()) prologue_held_ = false;
  return s;
}

absl::Status ArchiveSession::Close() {
  if (writer_ == nullptr) return absl::OkStatus();
  if (!have_result_ && !resumed_archive_) {
    // Files came and went without a single result (or every metric was
    // filtered out): PCP cannot open such an archive, so leave none.
    (void)writer_->Close();
    for (const char* ext : {".meta", ".index"}) ::unlink((current_base_ + ext).c_str());
    for (int v = 0; v <= writer_->volume(); ++v) ::unlink(absl::StrCat(current_base_, ".", v).c_str());
    writer_->TakeFinishedVolumes();
    writer_.reset();
    log_(LogLevel::kInfo, absl::StrCat("nothing recorded in ", current_base_, "; removed it"));
    return absl::OkStatus();
  }
  // The epilogue, a millisecond after the last record (pmlogger's run_done),
  // after what is held: it is no sample to count as lost.
  absl::Status s = writer_->holding_records() ? writer_->ReleaseRecords() : absl::OkStatus();
  if (have_result_ && s.ok()) {
    s = WriteLogue(format::ToTimestamp(format::ToAbslTime(writer_->last_stamp()) +
                                       absl::Milliseconds(1)));
  }
  absl::Status closed = writer_->Close();
  if (s.ok()) s = closed;
  CountUnwritten();
  closed_archive_bytes_ += writer_->total_bytes();  // with the final index entry
  for (std::string& v : writer_->TakeFinishedVolumes()) finished_volumes_.push_back(std::move(v));
  writer_.reset();
  return s;
}

absl::Status ArchiveSession::StartNewArchive(const std::string& base) {
  absl::Status s = Close();
  options_.archive_base = base;
  next_base_explicit_ = true;
  have_result_ = false;
  return s;
}

std::vector<std::string> ArchiveSession::TakeFinishedVolumes() {
  if (writer_ != nullptr) {
    for (std::string& v : writer_->TakeFinishedVolumes()) finished_volumes_.push_back(std::move(v));
  }
  return std::exchange(finished_volumes_, {});
}

}  // namespace mmvlog::archiver

#include "archiver/replay/replay.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "archiver/replay/derived_columns.h"
#include "archiver/replay/instance_life.h"
#include "archiver/replay/interpolator.h"
#include "archiver/replay/record_rows.h"
#include "archiver/replay/sample_read_ahead.h"
#include "archiver/replay/sample_stream.h"

namespace mmvlog::archiver {
namespace {

// The volumes' bytes on disk, up to `enough`.
uint64_t VolumeBytes(const ArchiveSet& set, uint64_t enough) {
  uint64_t n = 0;
  for (const ArchiveEntry& a : set.archives()) {
    if (a.catalog == nullptr) continue;
    for (const std::string& path : a.catalog->volume_paths) {
      struct stat st;
      if (::stat(path.c_str(), &st) == 0) n += static_cast<uint64_t>(st.st_size);
      if (n >= enough) return n;
    }
  }
  return n;
}

double EpochSeconds(absl::Time t) { return absl::ToDoubleSeconds(t - absl::UnixEpoch()); }

// The grid as pmval or pmrep lays it (replay.h).
GridSpec PlanGrid(const ReplayPlan& plan, const format::TimeWindow& window) {
  GridSpec g;
  // pmval passes the origin through a timeval (pmTimeStateMode): whole
  // microseconds, truncated; pmrep keeps its nanoseconds.
  g.origin = plan.pmval_rows ? absl::FromUnixMicros(absl::ToUnixMicros(window.origin)) : window.origin;
  // Both tools step in whole microseconds (a timeval / timespec from usec).
  g.step = absl::Trunc(*plan.interval, absl::Microseconds(1));
  const bool finish = !plan.window.end.empty();
  if (window.end < window.start) {
    g.end = absl::InfinitePast();  // an empty window: no grid time
    return g;
  }
  if (plan.pmval_rows) {
    if (finish) g.end = window.end;
    return g;
  }
  // pmrep reads until libpcp's end of log, 1 ms past the last record.
  g.end_slack = absl::Milliseconds(1);
  g.max_points = plan.samples;
  if (finish && window.end > window.origin) {
    if (plan.samples > 0) {
      // pmrep -T with -s: the interval spreads the samples over the window,
      // as pmconfig.py works it out: the window's seconds between two
      // timevals as doubles, divided, set as an interval's text (whole
      // nanoseconds, truncated) and taken back as a timeval (microseconds).
      const int64_t n = std::max<int64_t>(2, plan.samples);
      auto timeval = [](absl::Time t) { return static_cast<double>(absl::ToUnixMicros(t)) / 1e6; };
      const double seconds = (timeval(window.end) - timeval(window.origin)) / static_cast<double>(n - 1);
      const double whole = std::trunc(seconds);
      const int64_t ns = static_cast<int64_t>((seconds - whole) * 1e9);
      g.step = absl::Seconds(static_cast<int64_t>(whole)) + absl::Microseconds(ns / 1000);
      g.max_points = n;
    } else {
      g.max_points = std::max<int64_t>(1, static_cast<int64_t>(
          (EpochSeconds(window.end) - EpochSeconds(window.origin)) / absl::ToDoubleSeconds(g.step) + 1));
    }
  } else if (finish) {
    g.max_points = 1;
  }
  return g;
}

bool NeedsEnd(const format::TimeWindowSpec& w) {
  auto from_end = [](const std::string& s) { return !s.empty() && s[0] == '-'; };
  return from_end(w.start) || from_end(w.end) || from_end(w.origin) || !w.align.empty() ||
         !w.end.empty();
}

// The stream's samples, read on this thread or ahead on the second core
// (SampleReadAhead): one face for Run, which reads either the same way.
class SampleSource {
 public:
  SampleSource(SampleStream& stream, std::unique_ptr<SampleReadAhead> ahead)
      : stream_(stream), ahead_(std::move(ahead)) {}

  const Sample* Next() { return ahead_ ? ahead_->Next() : stream_.Next(); }
  // As the stream's, when it gave the sample taken last.
  const std::vector<std::string>& warnings() const {
    return ahead_ ? ahead_->warnings() : stream_.warnings();
  }
  uint64_t restarts() const { return ahead_ ? ahead_->restarts() : stream_.restarts(); }
  // Sets `look` to read on after the sample taken last.
  void ResumeLookAhead(SampleStream* look) const {
    if (ahead_) {
      look->ResumeAt(ahead_->resume_point());
    } else {
      look->ResumeFrom(stream_);
    }
  }
  // No more is read: the stream's problems (each logged), damage and
  // archives read up to the sample taken last.
  void End(const LogFunction& log, std::vector<std::string>* damaged,
           std::vector<std::string>* archives) {
    if (ahead_) ahead_->Stop();
    for (const std::string& p : ahead_ ? ahead_->problems() : stream_.problems()) {
      log(LogLevel::kWarning, p);
    }
    *damaged = ahead_ ? ahead_->damaged() : stream_.damaged();
    *archives = ahead_ ? ahead_->read_archives() : stream_.read_archives();
  }

 private:
  SampleStream& stream_;
  std::unique_ptr<SampleReadAhead> ahead_;
};

}  // namespace

absl::StatusOr<Replay> Replay::Open(const std::vector<std::string>& names, const Selection& selection,
                                    const std::vector<format::DerivedDefinition>& derived,
                                    const DeriveRules& rules) {
  absl::StatusOr<ArchiveSet> archives = ArchiveSet::Open(names);
  if (!archives.ok()) return archives.status();
  std::unique_ptr<DerivedColumns> d;
  std::vector<std::string> unbound;
  if (!derived.empty()) {
    absl::StatusOr<std::unique_ptr<DerivedColumns>> p =
        DerivedColumns::Prepare(derived, *archives, selection, rules);
    if (!p.ok()) return p.status();
    unbound = (*p)->unbound();
    if (!(*p)->empty()) d = *std::move(p);
  }
  absl::StatusOr<ColumnSet> columns =
      ColumnSet::Build(*archives, d != nullptr ? d->operands() : selection);
  if (!columns.ok()) return columns.status();
  if (d != nullptr) d->Bind(*columns);
  Replay replay(std::move(*archives), std::move(*columns), std::move(d));
  replay.unbound_derived_ = std::move(unbound);
  return replay;
}

// One piece: the stream's loop (records in, rows out) and its few states
// (grid or records, follow, seek and restart, the look-ahead) read together.
absl::Status Replay::Run(const ReplayPlan& plan, const std::vector<Output*>& outputs,
                         const LogFunction& log, ReplayReport* report) {
  for (const std::string& p : archives_.problems()) log(LogLevel::kWarning, p);
  const absl::Time log_start = format::ToAbslTime(archives_.start());
  absl::Time log_end = absl::InfiniteFuture();
  const format::TimeWindowSpec& spec = plan.window;
  const bool windowed = !spec.start.empty() || !spec.end.empty() || !spec.origin.empty() ||
                        !spec.align.empty();
  if (NeedsEnd(spec) || plan.wants_end) {
    std::optional<format::Timestamp> end = archives_.ReadEnd();
    log_end = end ? format::ToAbslTime(*end) : log_start;
  }
  format::TimeWindow window;
  window.start = log_start;
  window.end = log_end;
  window.origin = log_start;
  if (windowed) {
    format::TimeWindowSpec resolve = spec;
    resolve.allow_empty = true;  // as pmval and pmrep: nothing to show
    absl::StatusOr<format::TimeWindow> w = format::ResolveTimeWindow(resolve, log_start, log_end, plan.zone);
    if (!w.ok()) return w.status();
    window = *w;
    report->window_warning = window.warning;
  }
  const bool grid = plan.interval.has_value();
  if (grid && *plan.interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("-t: the interval must be positive");
  }
  // Rows at the records are shown within the window asked for.
  const absl::Time from = !spec.start.empty() || !spec.align.empty() ? window.start : absl::InfinitePast();
  const absl::Time to = !spec.end.empty() ? window.end : absl::InfiniteFuture();

  ReplayHeader header;
  header.columns = &columns();
  for (const ArchiveEntry& a : archives_.archives()) header.archives.push_back(a.base);
  header.host = archives_.archives().front().label.hostname;
  header.zone = plan.zone;
  header.raw = plan.raw;
  header.grid = grid;
  header.from = from;
  header.to = to;
  header.origin = window.origin;
  header.finish = window.end;
  header.last_record = log_end;
  GridSpec grid_spec;
  if (grid) {
    grid_spec = PlanGrid(plan, window);
    grid_spec.prior_values = plan.prior_values;
    grid_spec.lifetimes = DiscreteLifetimes(columns_, archives_);
    if (grid_spec.step <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError("-t: the interval must be at least a microsecond");
    }
    header.step = grid_spec.step;
  }
  for (Output* o : outputs) o->Begin(header);
  if (plan.headers_only) {
    absl::Status status;
    for (Output* o : outputs) {
      if (absl::Status s = o->End(ReplayEnd{}); !s.ok() && status.ok()) status = s;
    }
    return status;
  }

  SampleStream stream(archives_.archives(), columns_);
  if (plan.follow) stream.Follow();
  const bool keep_records =
      std::any_of(outputs.begin(), outputs.end(), [](Output* o) { return o->WantsRecords(); });
  if (keep_records) stream.KeepRecords();
  const absl::Time seek = grid ? std::min(window.start, window.origin) : from;
  if (!plan.follow && seek > log_start && seek != absl::InfinitePast()) {
    stream.SeekBefore(format::ToTimestamp(seek));
  }
  // The stream is read on the second core, ahead of the rows (not by a
  // follower, which waits on the files), when there is enough to read for
  // a thread to pay for itself. On a grid it keeps where each sample
  // left the stream: a look ahead for a sparse column resumes from there.
  std::unique_ptr<SampleReadAhead> read_ahead;
  if (!plan.follow && !keep_records &&
      VolumeBytes(archives_, plan.read_ahead_from) >= plan.read_ahead_from) {
    read_ahead = std::make_unique<SampleReadAhead>(stream, columns_.size(),
                                                   SampleReadAhead::kMostBytes, grid);
  }
  SampleSource samples(stream, std::move(read_ahead));
  if (derived_ != nullptr) derived_->RateWrapsBackwards(plan.rate_wraps_backwards);
  std::unique_ptr<Interpolator> interp;
  std::unique_ptr<RecordRows> records;
  // With derived metrics, the operands not shown get no number or rate worked out.
  const std::vector<uint8_t> shown_operands =
      derived_ != nullptr ? derived_->ShownOperands(columns_.size()) : std::vector<uint8_t>();
  auto start_over = [&] {
    if (grid) {
      interp = std::make_unique<Interpolator>(columns_, archives_.start(), grid_spec, plan.raw,
                                              derived_ != nullptr ? &shown_operands : nullptr);
    } else {
      records = std::make_unique<RecordRows>(columns_, plan.raw,
                                             derived_ != nullptr ? &shown_operands : nullptr,
                                             plan.strict_singular);
    }
  };
  start_over();
  std::vector<uint8_t> active(outputs.size(), 1);
  size_t active_count = outputs.size();
  bool given = false;
  auto give = [&](const Row& operand_row) {
    if (plan.delay && grid && given && plan.sleep_until &&
        !plan.sleep_until(absl::Now() + grid_spec.step)) {
      active_count = 0;  // a signal: stop as a follower stops
      return;
    }
    given = true;
    const Row& row =
        derived_ != nullptr ? derived_->Project(columns_, operand_row, plan.raw) : operand_row;
    const bool empty = !row.grid && !row.mark && row.ValueCount() == 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (empty && !outputs[i]->WantsEmptyRows()) continue;
      if (active[i] && !outputs[i]->TakeRow(row)) {
        active[i] = 0;
        --active_count;
      }
    }
  };
  auto drain = [&] {
    while (const Row* row = interp->NextRow()) give(*row);
  };
  uint64_t restarts = 0;
  size_t warned = 0;
  for (;;) {
    if (active_count == 0 || (grid && interp->done())) break;
    const Sample* s = samples.Next();
    const std::vector<std::string>& warnings = samples.warnings();
    for (; warned < warnings.size(); ++warned) log(LogLevel::kWarning, warnings[warned]);
    const uint64_t now_restarts = samples.restarts();
    if (now_restarts != restarts) {
      restarts = now_restarts;
      start_over();
    }
    if (s == nullptr) {
      if (!plan.follow) break;
      if (grid) {
        interp->NothingMoreNow();
        drain();
      }
      for (Output* o : outputs) o->Flush();
      if (!plan.sleep_until || !plan.sleep_until(absl::Now() + absl::Seconds(1))) break;
      continue;
    }
    const absl::Time when = format::ToAbslTime(s->time);
    if (!grid && when > to) break;
    if (when >= from && when <= to) {
      for (Output* o : outputs) o->Record(*s);
    }
    if (grid) {
      interp->Add(*s);
      drain();
      if (!plan.follow && interp->WantsLookAhead()) {
        // A sparse column holds rows back: find its next sample ahead.
        SampleStream ahead(archives_.archives(), columns_);
        samples.ResumeLookAhead(&ahead);
        bool resolved = false;
        while (const Sample* a = ahead.Next()) {
          if ((resolved = interp->AddAhead(*a))) break;
        }
        if (!resolved) interp->EndAhead();
        drain();
      }
    } else if (when >= from) {
      // Rates start inside the window, as pmrep -u and pmval -U start
      // them: the window's first record has none.
      if (const Row* row = records->Take(*s)) give(*row);
    }
  }
  if (grid) {
    interp->Finish();
    drain();
  }
  ReplayEnd end;
  samples.End(log, &report->damaged, &end.archives);
  end.host = stream.host().empty() ? header.host : stream.host();
  absl::Status status;
  for (Output* o : outputs) {
    if (absl::Status s = o->End(end); !s.ok() && status.ok()) status = s;
  }
  return status;
}

}  // namespace mmvlog::archiver

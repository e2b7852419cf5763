// Interpolator: the samples of a SampleStream resampled on a grid, origin,
// origin + step, ..., with the values PCP's archive interpolation gives
// (libpcp interp.c, __pmLogFetchInterp) and so pmval -t and pmrep -t show.
// Per grid time g and column, with P the latest sample or <mark> at or
// before g and N the earliest at or after g:
//   - no value when P is none or a <mark> (before the first value, after a
//     gap), whatever the semantics;
//   - DISCRETE: P's value, or N's when N is a value nearer to g (PCP 6.3.2
//     and later; 6.0.3 always gave P's: GridSpec::prior_values);
//   - INSTANT: needs N to be a value too; the nearer of P and N, P on a tie
//     (6.3.2 and later; 6.0.3 gave P's: GridSpec::prior_values);
//   - COUNTER: needs N to be a value; P's or N's value when at g, else the
//     line between them, computed as libpcp computes it (in double, then
//     (type)(0.5 + x): a C cast truncates towards zero), a counter that
//     went down included; none for a non-numeric type; and none when a
//     <mark> came since the previous grid time and that time had a value of
//     the metric (interp.c's seen_mark: no rate across the gap);
//   - strings, aggregates and events: P's value, under their semantics'
//     rules of availability.
// Counters are then shown (unless raw) as rates between consecutive grid
// times, (v_k - v_k-1) / (g_k - g_k-1), as pmval and pmrep compute them:
// none at the first grid time or where either value is missing, and a
// counter that went down is a kNegativeRate.
//
// Where PCP's own answer is a bug it is not copied (tests/pcp/
// interpolation_test.py says so case by case): U64 counters above 2^63
// (held signed in interp.c), a string shown at an exact sample time from
// the sample before (its cached bounds), 7.2's discrete value from a stale
// later sample after an instance's last one, timestamps printed with a
// nanosecond field of exactly 1e9.
//
// Memory: per column its samples from the one at or before the oldest grid
// time not yet given on; a row is given as soon as every column's N is
// known (usually the first sample after g), so with every column in every
// record that is one or two samples a column.
#ifndef MMVLOG_ARCHIVER_REPLAY_INTERPOLATOR_H_
#define MMVLOG_ARCHIVER_REPLAY_INTERPOLATOR_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "archiver/replay/columns.h"
#include "archiver/replay/instance_life.h"
#include "archiver/replay/row.h"
#include "archiver/replay/sample_stream.h"
#include "archiver/replay/shown_numbers.h"

namespace mmvlog::archiver {

struct GridSpec {
  absl::Time origin;      // the first grid time
  absl::Duration step;    // > 0
  // No grid time after `end`. InfiniteFuture: up to the last record's time
  // plus end_slack, once the data has ended (libpcp gives values up to 1 ms
  // past an archive's end: pmrep reads that far, pmval stops at the end).
  absl::Time end = absl::InfiniteFuture();
  absl::Duration end_slack = absl::ZeroDuration();
  int64_t max_points = 0;  // 0: no limit
  // PCP before 6.3.2's rule for DISCRETE and INSTANT values: always P's
  // (an INSTANT still needs N), not the nearer of P and N.
  bool prior_values = false;
  // Per column, when a DISCRETE instance lives (instance_life.h): no value
  // outside it. Empty: always.
  std::vector<InstanceLife> lifetimes;
};

class Interpolator {
 public:
  // `base` is the time libpcp measures from (the first archive's label
  // time). Keeps a reference to `columns`. Where `shown` is given, only
  // the columns it marks (nonzero) get a number or rate worked out, as in
  // RecordRows. REQUIRES: grid.step > 0.
  Interpolator(const ColumnSet& columns, format::Timestamp base, const GridSpec& grid, bool raw,
               const std::vector<uint8_t>* shown = nullptr);

  // Adds the next sample (in time order).
  void Add(const Sample& s);
  // No sample follows.
  void Finish();
  // The next grid row whose values are all known, or nullptr (more samples
  // needed, or the grid is done). Valid until the next call.
  const Row* NextRow();
  // Every grid time has been given.
  bool done() const { return done_; }

  // Bounded memory when a column is sparse. A grid row waits for every
  // column's next sample; a column sampled rarely (or never again) keeps
  // the others' samples piling up. Past a budget, the caller reads ahead
  // (a second SampleStream from where the first is, SampleStream::
  // ResumeFrom) and gives those samples here until AddAhead says no column
  // waits, or calls EndAhead at the end. Samples seen ahead are not kept
  // twice when the main stream brings them.
  bool WantsLookAhead() const;
  bool AddAhead(const Sample& s);
  void EndAhead();
  // Following a recording still being written: nothing more has been
  // written yet. Rows waiting on a column's next sample are given as PCP's
  // tools would show them now (that column without one).
  void NothingMoreNow();

 private:
  // A column's sample: trivially copied (a string's text is in `texts_`,
  // freed when the sample is dropped).
  struct Event {
    int64_t ns = 0;
    double t = 0;  // Rel(ns), worked out once
    uint64_t bits = 0;
    uint32_t text = 0;  // kString: its slot in texts_
    ValueKind kind = kNoValue;
  };
  // A column's samples in time order, the first possibly before the grid
  // time: a ring, grown to the most it held (a vector per column cost a
  // third of a wide replay's time in moving what was dropped; a deque's
  // blocks per column more, in allocation).
  struct History {
    std::unique_ptr<Event[]> ring;
    uint32_t head = 0, count = 0, mask = 0;  // the ring holds mask + 1 (none: no ring)
    int64_t last_ns = INT64_MIN;             // of the last sample
    size_t size() const { return count; }
    const Event& operator[](size_t i) const { return ring[(head + i) & mask]; }
    Event& Push() {
      if (ring == nullptr || count > mask) Grow();
      return ring[(head + count++) & mask];
    }
    void Grow();
  };
  // How a column's value at a grid time is found (interp.c's rules).
  enum Rule : uint8_t { kRuleDiscrete, kRuleInstant, kRuleCounter, kRuleNoValue };
  void Keep(size_t column, int64_t ns, double t, ValueKind kind, uint64_t bits,
            const std::string* text);
  // Dense samples (a value for every column, in the columns' order: the
  // usual record of a recording) are kept whole, as frames, until the
  // first that is not: then every frame becomes its columns' samples
  // (Materialize) and the columns are kept apart from then on. A row
  // from frames reads each column's P and N side by side, with their
  // times and the rules' choices worked out once.
  struct Frame {
    int64_t ns = 0;
    double t = 0;
    std::vector<uint8_t> kinds;  // per column
    std::vector<uint64_t> bits;  // kString: index in `strings`
    std::vector<std::string> strings;
  };
  // Columns side by side of one metric (so of one rule and type), with
  // what Fill needs of them (a column's own record is far from the next
  // and reaches its descriptor through its metric): a row is filled a
  // run at a time.
  struct Run {
    uint32_t begin = 0, end = 0;
    uint32_t metric = 0;
    int32_t type = 0;
    Rule rule = kRuleInstant;
    bool strings = false;  // of a type that is no number: always P's
  };
  bool AddDense(const Sample& s, int64_t ns, double t);
  void Materialize();
  void FillDense(int64_t g, double t, bool have_pmark, int64_t pmark, int64_t nmark,
                 bool mark_since);
  // Drops a column's first `count` samples.
  void Drop(History& h, size_t count);
  bool Ready(int64_t g) const;
  bool Waiting(size_t c, int64_t g) const;
  int64_t NextGridNs() const;
  void Fill(int64_t g);
  void Rates();
  // Seconds since `base` as libpcp computes them (__pmTimestampSub: the
  // seconds' difference plus the nanoseconds' / 1e9 in long double), so
  // that its ties and roundings are ours.
  double Rel(int64_t ns) const {
    int64_t s = ns / 1000000000, n = ns % 1000000000;
    if (n < 0) s -= 1, n += 1000000000;
    return static_cast<double>(static_cast<long double>(s - base_sec_) +
                               static_cast<long double>(n - base_nsec_) / 1000000000.0L);
  }

  const ColumnSet& columns_;
  const int64_t base_sec_, base_nsec_;
  GridSpec grid_;
  const bool raw_;
  std::vector<History> hist_;
  bool dense_ = true;  // every sample so far was dense: kept in frames_
  std::deque<Frame> frames_;
  std::vector<Frame> spare_frames_;
  std::vector<Run> runs_;
  std::vector<std::string> texts_;   // strings of kept samples, by slot
  std::vector<uint32_t> free_texts_;
  std::vector<uint32_t> numbers_;    // the columns ShownNumbers marks
  // No column waits for its next sample at a grid time up to this one
  // (Waiting): Ready looks at every column only past it. A lower bound:
  // Add lowers it to the sample's time, which may end a column's wait
  // given by NothingMoreNow or EndAhead.
  mutable int64_t wait_floor_ = INT64_MIN;
  std::deque<int64_t> marks_;  // from the last one at or before the grid time
  int64_t last_mark_ns_ = INT64_MIN;
  int64_t last_record_ns_ = INT64_MIN;
  // Every record at or before this time has been added: a record at g may
  // be followed by another at g (pmlogger writes several records with one
  // timestamp), so a row at g waits for a later record, the end, or
  // NothingMoreNow.
  int64_t settled_ns_ = INT64_MIN;
  bool finished_ = false;
  bool done_ = false;
  int64_t k_ = 0;         // index of the next grid time
  int64_t prev_g_ = 0;    // the grid time given last (k_ > 0)
  std::vector<uint8_t> metric_had_;  // per metric: a value at the previous grid time
  std::vector<uint8_t> metric_has_;
  ShownNumbers shown_;
  std::vector<uint8_t> prev_kind_;   // per column: the value at the previous grid time
  std::vector<uint64_t> prev_bits_;
  Row row_;
  // Look ahead: samples kept in all; per column, the time up to which its
  // samples were seen ahead (INT64_MIN: none) and whether none follows.
  static constexpr int64_t kKeptBudget = int64_t{1} << 18;
  int64_t kept_ = 0;
  std::vector<int64_t> ahead_until_;
  // Per column: no sample follows its last one up to this time (INT64_MAX:
  // none at all); INT64_MIN: not known.
  std::vector<int64_t> no_more_until_;
  int64_t ahead_mark_until_ = INT64_MIN;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_INTERPOLATOR_H_

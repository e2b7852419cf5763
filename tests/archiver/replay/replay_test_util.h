// Set-up shared by the replay tests: small archives written with the real
// ArchiveWriter as the interpolation experiments (interp-spec.md, the spec
// of PCP's interpolation, section 7) wrote theirs with LOGIMPORT (metrics
// 245.0.N, the label start at the first record, 2023-11-14 22:00:00 UTC,
// host "host"), the pipeline run over them (SampleStream -> Interpolator or
// RecordRows), and cells as text so that a column of a table test reads as
// PCP's output does.
#ifndef MMVLOG_TESTS_ARCHIVER_REPLAY_REPLAY_TEST_UTIL_H_
#define MMVLOG_TESTS_ARCHIVER_REPLAY_REPLAY_TEST_UTIL_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "archiver/replay/archive_set.h"
#include "archiver/replay/columns.h"
#include "archiver/replay/interpolator.h"
#include "archiver/replay/output.h"
#include "archiver/replay/record_rows.h"
#include "archiver/replay/row.h"
#include "archiver/replay/sample_stream.h"
#include "archiver/replay/selection.h"
#include "archiver/store/archive_writer.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_meta.h"
#include "format/archive/archive_result.h"
#include "format/archive/archive_types.h"
#include "format/pm_units.h"
#include "tests/archiver/archive_test_util.h"

namespace mmvlog::testing {

// 2023-11-14 22:00:00 UTC: t = 0 of the spec's archives.
inline constexpr int64_t kT0 = 1699999200;

inline int64_t NsAfter(double t) { return static_cast<int64_t>(std::llround(t * 1e9)); }

inline format::Timestamp At(double t) {
  return format::ToTimestamp(absl::FromUnixSeconds(kT0) + absl::Nanoseconds(NsAfter(t)));
}

inline absl::Time TimeAt(double t) { return absl::FromUnixSeconds(kT0) + absl::Nanoseconds(NsAfter(t)); }

struct TestMetric {
  std::string name;
  int32_t type = format::kType32;
  int32_t sem = format::kSemInstant;
  std::string units = "count";  // "count", "none", "ms", "bytes"
  std::vector<std::pair<int32_t, std::string>> instances;  // none: a singular metric
  std::string oneline, help;

  TestMetric(std::string n, int32_t t, int32_t s, std::string u = "count",
             std::vector<std::pair<int32_t, std::string>> insts = {}, std::string one = "",
             std::string long_help = "")
      : name(std::move(n)), type(t), sem(s), units(std::move(u)), instances(std::move(insts)),
        oneline(std::move(one)), help(std::move(long_help)) {}
};

// A value, converted to the metric's type when written.
struct Val {
  enum Kind { kI, kU, kD, kS } kind;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string s;
  Val(int v) : kind(kI), i(v) {}
  Val(long v) : kind(kI), i(v) {}
  Val(long long v) : kind(kI), i(v) {}
  Val(unsigned v) : kind(kU), u(v) {}
  Val(unsigned long v) : kind(kU), u(v) {}
  Val(unsigned long long v) : kind(kU), u(v) {}
  Val(double v) : kind(kD), d(v) {}
  Val(const char* v) : kind(kS), s(v) {}
  Val(std::string v) : kind(kS), s(std::move(v)) {}
};

// One value of a record: metric, instance id (-1: singular) and value.
struct Cell {
  std::string metric;
  int32_t inst;
  Val v;
  Cell(std::string m, Val value) : metric(std::move(m)), inst(-1), v(std::move(value)) {}
  Cell(std::string m, int32_t i, Val value) : metric(std::move(m)), inst(i), v(std::move(value)) {}
};

inline uint32_t UnitsWord(const std::string& u) {
  format::PmUnits p;
  if (u == "count") p.dim_count = 1;
  if (u == "ms") p.dim_time = 1, p.scale_time = format::kTimeMsec;
  if (u == "bytes") p.dim_space = 1;
  return format::UnitsToWord(p);
}

// An archive to write: metrics (PMIDs 245.0.1, 245.0.2, ... in order; an
// instance domain 245.N per metric with instances), then records and
// <mark>s in time order.
class TestArchive {
 public:
  explicit TestArchive(std::vector<TestMetric> metrics) : metrics_(std::move(metrics)) {}

  static uint32_t PmidOf(size_t n) { return format::PmidBuild(245, 0, static_cast<uint32_t>(n + 1)); }

  TestArchive& Record(double t, std::vector<Cell> cells) {
    records_.push_back({t, false, std::move(cells)});
    return *this;
  }
  TestArchive& Mark(double t) {
    records_.push_back({t, true, {}});
    return *this;
  }

  // The label's start (t = 0 unless set): pmlogger's prologue comes before
  // the first sample.
  TestArchive& LabelAt(double t) {
    label_ = t;
    return *this;
  }
  TestArchive& Version(int v) {
    version_ = v;
    return *this;
  }
  // An index entry before (about) every record when 1.
  TestArchive& IndexEvery(uint64_t bytes) {
    index_bytes_ = bytes;
    return *this;
  }

  size_t MetricIndex(const std::string& name) const {
    for (size_t n = 0; n < metrics_.size(); ++n) {
      if (metrics_[n].name == name) return n;
    }
    ADD_FAILURE() << "no metric " << name;
    return 0;
  }

  archiver::ArchiveOptions Options() const {
    archiver::ArchiveOptions o = TestArchiveOptions(version_);
    o.index_interval_bytes = index_bytes_;
    return o;
  }

  // Adds the metadata to `w`.
  void AddMetadata(archiver::ArchiveWriter* w) const {
    for (size_t n = 0; n < metrics_.size(); ++n) {
      const TestMetric& m = metrics_[n];
      format::Desc d;
      d.pmid = PmidOf(n);
      d.type = m.type;
      d.sem = m.sem;
      d.units = UnitsWord(m.units);
      d.indom = m.instances.empty() ? format::kIndomNull : format::InDomBuild(245, static_cast<uint32_t>(n + 1));
      d.names = {m.name};
      EXPECT_TRUE(w->AddDesc(d).ok());
      if (!m.oneline.empty()) {
        EXPECT_TRUE(w->AddHelpText({format::kTextOneLine | format::kTextPmid, d.pmid, m.oneline}).ok());
      }
      if (!m.help.empty()) {
        EXPECT_TRUE(w->AddHelpText({format::kTextHelp | format::kTextPmid, d.pmid, m.help}).ok());
      }
      if (!m.instances.empty()) {
        format::InDom in;
        in.indom = d.indom;
        in.timestamp = At(label_);
        for (const auto& [id, name] : m.instances) in.instances.push_back({id, name, false});
        EXPECT_TRUE(w->AddInDom(in).ok());
      }
    }
  }

  format::Result ResultOf(double t, const std::vector<Cell>& cells) const {
    format::Result r;
    r.timestamp = At(t);
    for (const Cell& c : cells) {
      const size_t n = MetricIndex(c.metric);
      const int32_t type = metrics_[n].type;
      format::ValueSet* set = nullptr;
      for (format::ValueSet& s : r.sets) {
        if (s.pmid == PmidOf(n)) set = &s;
      }
      if (set == nullptr) {
        r.sets.emplace_back();
        set = &r.sets.back();
        set->pmid = PmidOf(n);
        set->type = type;
      }
      format::ResultValue v;
      v.inst = c.inst < 0 ? format::kInNull : c.inst;
      const Val& x = c.v;
      switch (type) {
        case format::kType32:
        case format::kType64: v.i64 = x.kind == Val::kU ? static_cast<int64_t>(x.u) : x.i; break;
        case format::kTypeU32:
        case format::kTypeU64: v.u64 = x.kind == Val::kI ? static_cast<uint64_t>(x.i) : x.u; break;
        case format::kTypeFloat:
        case format::kTypeDouble:
          v.f64 = x.kind == Val::kD ? x.d : x.kind == Val::kI ? static_cast<double>(x.i) : static_cast<double>(x.u);
          break;
        default: v.bytes = x.s; break;
      }
      set->values.push_back(std::move(v));
    }
    return r;
  }

  // Appends the records to `w`.
  void AddRecords(archiver::ArchiveWriter* w) const {
    for (const Rec& r : records_) {
      if (r.mark) {
        EXPECT_TRUE(w->AppendMark(At(r.t)).ok());
      } else {
        const absl::Status s = w->AppendResult(ResultOf(r.t, r.cells));
        EXPECT_TRUE(s.ok()) << s;
      }
    }
  }

  // Writes <tmp>/<name>_N.*; returns the base name.
  std::string Write(const std::string& name) const {
    const std::string base = TempBase(name);
    absl::StatusOr<std::unique_ptr<archiver::ArchiveWriter>> w =
        archiver::ArchiveWriter::Create(base, Options(), At(label_));
    EXPECT_TRUE(w.ok()) << w.status();
    if (!w.ok()) return base;
    AddMetadata(w->get());
    AddRecords(w->get());
    EXPECT_TRUE((*w)->Close().ok());
    return base;
  }

 private:
  struct Rec {
    double t;
    bool mark;
    std::vector<Cell> cells;
  };
  std::vector<TestMetric> metrics_;
  std::vector<Rec> records_;
  double label_ = 0;
  int version_ = 3;
  uint64_t index_bytes_ = 100'000;
};

// Damages record `n` (0: the first after the label) of <base>.0: its
// trailing length no longer matches its header. False when there is no
// such record.
inline bool DamageRecord(const std::string& base, size_t n) {
  const std::string vol = base + ".0";
  std::string bytes;
  {
    std::ifstream in(vol, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  size_t at = 0;
  bool label = true;
  for (;;) {
    if (at + 4 > bytes.size()) return false;
    const uint32_t len = (uint32_t{static_cast<uint8_t>(bytes[at])} << 24) |
                         (uint32_t{static_cast<uint8_t>(bytes[at + 1])} << 16) |
                         (uint32_t{static_cast<uint8_t>(bytes[at + 2])} << 8) |
                         uint32_t{static_cast<uint8_t>(bytes[at + 3])};
    if (len < 8 || at + len > bytes.size()) return false;
    if (!label && n-- == 0) {
      bytes[at + len - 1] = static_cast<char>(bytes[at + len - 1] ^ 0x40);
      break;
    }
    label = false;
    at += len;
  }
  std::ofstream out(vol, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

// Archives opened for replay: the set and its columns.
struct Opened {
  archiver::ArchiveSet set;
  archiver::ColumnSet columns;

  // The column labelled `label` ("metric" or "metric[instance]").
  size_t Col(absl::string_view label) const {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns.Label(c) == label) return c;
    }
    ADD_FAILURE() << "no column " << label;
    return 0;
  }
};

inline std::unique_ptr<Opened> OpenArchives(const std::vector<std::string>& bases,
                                            const archiver::Selection& selection = {}) {
  absl::StatusOr<archiver::ArchiveSet> set = archiver::ArchiveSet::Open(bases);
  EXPECT_TRUE(set.ok()) << set.status();
  if (!set.ok()) return nullptr;
  auto o = std::make_unique<Opened>();
  o->set = std::move(*set);
  absl::StatusOr<archiver::ColumnSet> columns = archiver::ColumnSet::Build(o->set, selection);
  EXPECT_TRUE(columns.ok()) << columns.status();
  if (!columns.ok()) return nullptr;
  o->columns = std::move(*columns);
  return o;
}

// A sample as text, every field: what two ways of reading compare.
inline std::string SampleText(const archiver::Sample& s) {
  using archiver::kString;
  std::string out = absl::StrCat(s.time.sec, ".", s.time.nsec, s.mark ? " mark" : "",
                                 s.virtual_mark ? " join" : "", s.chosen ? " chosen" : "",
                                 s.listed ? " listed" : "", s.unnamed ? " unnamed" : "",
                                 s.off_null ? " off_null" : "", " |");
  for (const archiver::SampleValue& v : s.values) {
    absl::StrAppend(&out, " ", v.column, ":", static_cast<int>(v.kind), v.off_null ? "!" : "", "=",
                    v.kind == kString ? s.strings[v.bits] : absl::StrCat(v.bits));
  }
  absl::StrAppend(&out, " |");
  for (const archiver::UnnamedValue& u : s.unnamed_values) {
    absl::StrAppend(&out, " ", u.metric, "[", u.inst, "]:", static_cast<int>(u.kind), "@", u.before,
                    "=", u.kind == kString ? s.strings[u.bits] : absl::StrCat(u.bits));
  }
  absl::StrAppend(&out, " |");
  for (const archiver::SampleSet& set : s.sets) absl::StrAppend(&out, " ", set.pmid, "/", set.numval);
  return out;
}

// Every sample of a whole read, copied.
inline std::vector<archiver::Sample> AllSamples(const Opened& o) {
  archiver::SampleStream s(o.set.archives(), o.columns);
  std::vector<archiver::Sample> out;
  while (const archiver::Sample* x = s.Next()) out.push_back(*x);
  return out;
}

// Gives `f` every sample as the stream has it, its record decoded whole
// (SampleStream::KeepRecords, as the dump asks).
template <typename F>
void ForEachSample(const Opened& o, F f) {
  archiver::SampleStream s(o.set.archives(), o.columns);
  s.KeepRecords();
  while (const archiver::Sample* x = s.Next()) f(*x);
}

// A -t grid from `origin` (seconds after t = 0) every `step` seconds, as
// pmrep reads it: up to 1 ms past the last record.
inline archiver::GridSpec Grid(double origin, double step) {
  archiver::GridSpec g;
  g.origin = TimeAt(origin);
  g.step = absl::Nanoseconds(NsAfter(step));
  g.end_slack = absl::Milliseconds(1);
  return g;
}

// The rows of `grid` over the whole recording, copied.
inline std::vector<archiver::Row> GridRows(const Opened& o, const archiver::GridSpec& grid, bool raw,
                                           const std::vector<uint8_t>* shown = nullptr) {
  archiver::SampleStream s(o.set.archives(), o.columns);
  archiver::Interpolator in(o.columns, o.set.start(), grid, raw, shown);
  std::vector<archiver::Row> rows;
  while (const archiver::Sample* x = s.Next()) {
    in.Add(*x);
    while (const archiver::Row* r = in.NextRow()) rows.push_back(*r);
  }
  in.Finish();
  while (const archiver::Row* r = in.NextRow()) rows.push_back(*r);
  return rows;
}

// The rows at the records, copied.
inline std::vector<archiver::Row> RecordRowsOf(const Opened& o, bool raw,
                                               const std::vector<uint8_t>* shown = nullptr) {
  archiver::SampleStream s(o.set.archives(), o.columns);
  archiver::RecordRows rr(o.columns, raw, shown);
  std::vector<archiver::Row> rows;
  while (const archiver::Sample* x = s.Next()) {
    if (const archiver::Row* r = rr.Take(*x)) rows.push_back(*r);
  }
  return rows;
}

// A cell's value: "-" for none, integers in full, doubles with 3 decimals
// (pmrep's precision), strings as they are.
inline std::string ValueText(const archiver::Row& r, size_t c) {
  const uint64_t b = r.bits[c];
  switch (r.kind(c)) {
    case archiver::kNoValue: return "-";
    case archiver::kInt: return absl::StrCat(static_cast<int64_t>(b));
    case archiver::kUint: return absl::StrCat(b);
    case archiver::kDouble: return absl::StrFormat("%.3f", std::bit_cast<double>(b));
    case archiver::kString: return std::string(r.text(c));
  }
  return "?";
}

// What a cell shows as a number: "-" none, "!" a counter that went down,
// else with 3 decimals as pmrep prints it.
inline std::string ShownText(const archiver::Row& r, size_t c) {
  switch (r.shown[c]) {
    case archiver::kNoNumber: return "-";
    case archiver::kNegativeRate: return "!";
    default: return absl::StrFormat("%.3f", r.numbers[c]);
  }
}

inline std::vector<std::string> Values(const std::vector<archiver::Row>& rows, size_t c) {
  std::vector<std::string> out;
  for (const archiver::Row& r : rows) out.push_back(ValueText(r, c));
  return out;
}

inline std::vector<std::string> Shown(const std::vector<archiver::Row>& rows, size_t c) {
  std::vector<std::string> out;
  for (const archiver::Row& r : rows) out.push_back(ShownText(r, c));
  return out;
}

// Seconds after t = 0 of each row, with millisecond precision.
inline std::vector<std::string> Times(const std::vector<archiver::Row>& rows) {
  std::vector<std::string> out;
  for (const archiver::Row& r : rows) {
    out.push_back(absl::StrFormat("%.3f", absl::ToDoubleSeconds(format::ToAbslTime(r.time) - TimeAt(0))));
  }
  return out;
}

// What an output writes, in memory (open_memstream).
class CapturedFile {
 public:
  CapturedFile() : f_(::open_memstream(&buf_, &len_)) {}
  ~CapturedFile() {
    std::fclose(f_);
    std::free(buf_);
  }
  CapturedFile(const CapturedFile&) = delete;
  CapturedFile& operator=(const CapturedFile&) = delete;
  std::FILE* file() { return f_; }
  std::string text() {
    std::fflush(f_);
    return std::string(buf_, len_);
  }

 private:
  char* buf_ = nullptr;
  size_t len_ = 0;
  std::FILE* f_;
};

// An output's header for `o`, in UTC.
inline archiver::ReplayHeader HeaderFor(const Opened& o, bool raw, std::optional<absl::Duration> step) {
  archiver::ReplayHeader h;
  h.columns = &o.columns;
  for (const archiver::ArchiveEntry& a : o.set.archives()) h.archives.push_back(a.base);
  h.host = "host";
  h.zone = absl::UTCTimeZone();
  h.raw = raw;
  h.grid = step.has_value();
  if (step) h.step = *step;
  return h;
}

// Gives `rows` to `out` (Begin, TakeRow until it wants no more, End) and
// returns what it wrote to `f`.
inline std::string Feed(archiver::Output& out, CapturedFile& f, const Opened& o,
                        const std::vector<archiver::Row>& rows, bool raw,
                        std::optional<absl::Duration> step) {
  out.Begin(HeaderFor(o, raw, step));
  for (const archiver::Row& r : rows) {
    if (!out.TakeRow(r)) break;
  }
  archiver::ReplayEnd end;
  for (const archiver::ArchiveEntry& a : o.set.archives()) end.archives.push_back(a.base);
  end.host = "host";
  const absl::Status s = out.End(end);
  EXPECT_TRUE(s.ok()) << s;
  return f.text();
}

}  // namespace mmvlog::testing

#endif  // MMVLOG_TESTS_ARCHIVER_REPLAY_REPLAY_TEST_UTIL_H_

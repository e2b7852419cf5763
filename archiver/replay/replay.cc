#include "archiver/replay/replay.h"

#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "archiver/store/archive_reader.h"
#include "archiver/store/posix_file.h"
#include "format/archive_format.h"
#include "format/archive_result.h"
#include "format/json.h"
#include "format/pm_desc_text.h"
#include "format/pm_units.h"
#include "format/result_decode.h"

namespace mmvlog::archiver {
namespace {

std::vector<std::string> ExpandNames(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    struct stat st;
    if (::stat(n.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      std::vector<std::string> found;
      if (DIR* d = ::opendir(n.c_str())) {
        while (struct dirent* e = ::readdir(d)) {
          const std::string base = MetaFileBase(e->d_name);
          if (!base.empty()) found.push_back(absl::StrCat(n, "/", base));
        }
        ::closedir(d);
      }
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(n);
    }
  }
  return out;
}

bool Selected(const std::vector<std::string>& globs, const std::string& name,
              bool logger_records) {
  if (globs.empty()) return logger_records || !IsLoggerMetric(name);
  for (const std::string& g : globs) {
    if (::fnmatch(g.c_str(), name.c_str(), 0) == 0) return true;
    // A plain metric name also selects its subtree, as PCP tools do.
    if (absl::StartsWith(name, g + ".")) return true;
  }
  return false;
}

}  // namespace

bool IsLoggerMetric(absl::string_view name) {
  return absl::StartsWith(name, "pmcd.pmlogger.") || name == "pmcd.pid" || name == "pmcd.seqnum";
}

double StoredValue::AsDouble() const {
  switch (kind) {
    case kInt: return static_cast<double>(i);
    case kUint: return static_cast<double>(u);
    case kDouble: return d;
    case kNone:
    case kString: return 0;
  }
  return 0;
}

std::string StoredValue::Text() const {
  switch (kind) {
    case kInt: return absl::StrCat(i);
    case kUint: return absl::StrCat(u);
    case kDouble: return format::JsonNumber(d);
    case kString: return std::string(s);
    case kNone: return "";
  }
  return "";
}

StoredValue Timeline::Value(size_t row, size_t column) const {
  StoredValue v;
  v.kind = Kind(row, column);
  if (v.kind == StoredValue::kNone) return v;
  const uint64_t b = bits[rows[row].first + column];
  switch (v.kind) {
    case StoredValue::kInt: v.i = static_cast<int64_t>(b); break;
    case StoredValue::kUint: v.u = b; break;
    case StoredValue::kDouble: v.d = std::bit_cast<double>(b); break;
    case StoredValue::kString: v.s = strings[b]; break;
    case StoredValue::kNone: break;
  }
  return v;
}

size_t Timeline::ValueCount(size_t row) const {
  const Row& r = rows[row];
  return r.width - static_cast<size_t>(std::count(kinds.begin() + r.first,
                                                  kinds.begin() + r.first + r.width,
                                                  uint8_t{StoredValue::kNone}));
}

void Timeline::AddRow(format::Timestamp time, bool mark) {
  Row r;
  r.time = time;
  r.mark = mark;
  r.first = kinds.size();
  r.width = columns.size();
  kinds.resize(kinds.size() + r.width, StoredValue::kNone);
  bits.resize(kinds.size());
  rows.push_back(r);
}

size_t Timeline::AddColumn(Column column) {
  columns.push_back(std::move(column));
  if (!rows.empty()) {
    // Cells of the last row are the last cells: it can grow in place.
    ++rows.back().width;
    kinds.push_back(StoredValue::kNone);
    bits.push_back(0);
  }
  return columns.size() - 1;
}

void Timeline::Set(size_t row, size_t column, const StoredValue& v) {
  switch (v.kind) {
    case StoredValue::kInt: SetBits(row, column, v.kind, static_cast<uint64_t>(v.i)); break;
    case StoredValue::kUint: SetBits(row, column, v.kind, v.u); break;
    case StoredValue::kDouble: SetBits(row, column, v.kind, std::bit_cast<uint64_t>(v.d)); break;
    case StoredValue::kString:
      strings.push_back(std::string(v.s));  // v.s may point into `strings`
      SetBits(row, column, v.kind, strings.size() - 1);
      break;
    case StoredValue::kNone: break;
  }
}

namespace {

StoredValue::Kind KindOfType(int32_t type) {
  switch (type) {
    case format::kType32:
    case format::kType64: return StoredValue::kInt;
    case format::kTypeU32:
    case format::kTypeU64: return StoredValue::kUint;
    case format::kTypeFloat:
    case format::kTypeDouble: return StoredValue::kDouble;
    default: return StoredValue::kString;
  }
}

// The columns of one PMID across archives: by instance, plus the instances
// of the last set seen in order, which a result of the same shape as the
// previous one (the usual case) matches value by value without a look-up.
struct PmidColumns {
  absl::flat_hash_map<int32_t, size_t> of_inst;
  std::vector<int32_t> last_inst;
  std::vector<size_t> last_column;
};

// What one archive's metadata says about a PMID, found once per archive.
struct ArchivePmid {
  const format::Desc* desc = nullptr;  // nullptr: not in this archive's .meta
  bool selected = false;
  bool registered = false;  // in Timeline::descs (once it had values)
  size_t desc_index = 0;    // once registered: its index in Timeline::descs
  std::string name;
  StoredValue::Kind kind = StoredValue::kString;
  size_t columns = 0;  // index in the PmidColumns of the timeline
};

// Reads archive `r` to its end (or its damage) onto the end of `t`.
class ArchiveLoader {
 public:
  ArchiveLoader(Timeline* t, const std::vector<std::string>& globs, bool logger_records,
                absl::flat_hash_map<uint32_t, size_t>* columns_of_pmid,
                std::vector<PmidColumns>* pmid_columns)
      : t_(*t),
        globs_(globs),
        logger_records_(logger_records),
        columns_of_pmid_(*columns_of_pmid),
        pmid_columns_(*pmid_columns) {}

  // Stops Load before a row would go beyond `rows` rows in all.
  void StopAfter(size_t rows) { max_rows_ = rows; }

  // Errors: the first damage (results before it are kept).
  absl::Status Load(ArchiveReader& r) {
    meta_ = &r.meta();
    AddParamNames(*meta_);
    // A value takes at least 8 bytes of a volume (an INSITU pmValue): room
    // for that many cells (up to 32M, 288 MB) saves regrowing the timeline.
    // Only address space is reserved; pages are touched as cells are filled.
    uint64_t bytes = 0;
    for (const std::string& v : r.volumes()) {
      absl::StatusOr<struct stat> st = StatPath(v);
      if (st.ok() && !absl::EndsWith(v, ".zst")) bytes += static_cast<uint64_t>(st->st_size);
    }
    t_.ReserveCells(t_.kinds.size() + std::min<uint64_t>(bytes / format::kValueSize, 1 << 25));
    // Archives are separate recordings: a gap between them is a mark.
    bool gap = !t_.rows.empty();
    for (;;) {
      absl::StatusOr<bool> more = r.NextInto(&result_);
      if (!more.ok()) return more.status();
      if (!*more) return absl::OkStatus();
      if (!result_.is_mark() && std::none_of(result_.sets.begin(), result_.sets.end(),
                                             [&](const format::DecodedValueSet& set) {
                                               const ArchivePmid& p = Pmid(set.pmid);
                                               return p.desc != nullptr && p.selected;
                                             })) {
        continue;  // nothing chosen in it (a prologue): no row, as pmrep
      }
      if (t_.rows.size() >= max_rows_) return absl::OkStatus();
      if (gap) {
        t_.AddRow(t_.rows.back().time, true);
        gap = false;
      }
      t_.AddRow(result_.timestamp, result_.is_mark());
      indom_at_.clear();
      values_ = 0;
      for (const format::DecodedValueSet& set : result_.sets) values_ += set.values.size();
      const size_t row = t_.rows.size() - 1;
      for (const format::DecodedValueSet& set : result_.sets) {
        ArchivePmid& p = Pmid(set.pmid);
        if (p.desc == nullptr || set.numval <= 0 || !p.selected) continue;
        if (!p.registered) Register(p, set.pmid);
        AddValues(p, set, row);
      }
    }
  }

 private:
  void AddParamNames(const ArchiveMetadata& meta) {
    const bool events = std::any_of(meta.descs.begin(), meta.descs.end(), [](const format::Desc& d) {
      return d.type == format::kTypeEvent || d.type == format::kTypeHighresEvent;
    });
    if (!events) return;
    for (const format::Desc& d : meta.descs) {
      if (!d.names.empty()) t_.param_names.try_emplace(d.pmid, d.names[0]);
    }
  }

  ArchivePmid& Pmid(uint32_t pmid) {
    auto [it, added] = pmids_.try_emplace(pmid);
    ArchivePmid& p = it->second;
    if (!added) return p;
    p.desc = meta_->Desc(pmid);
    if (p.desc == nullptr) return p;
    p.name = p.desc->names.empty() ? format::PmidString(pmid) : p.desc->names[0];
    p.selected = Selected(globs_, p.name, logger_records_);
    p.kind = KindOfType(p.desc->type);
    auto [c, new_pmid] = columns_of_pmid_.try_emplace(pmid, pmid_columns_.size());
    if (new_pmid) pmid_columns_.emplace_back();
    p.columns = c->second;
    return p;
  }

  void Register(ArchivePmid& p, uint32_t pmid) {
    p.registered = true;
    auto [it, added] = t_.desc_of_pmid.try_emplace(pmid, t_.descs.size());
    if (added) t_.descs.push_back(*p.desc);
    p.desc_index = it->second;
    auto& [oneline, text] = t_.help[pmid];
    if (oneline.empty()) {
      if (const std::string* h = meta_->Text(format::kTextOneLine | format::kTextPmid, pmid)) oneline = *h;
    }
    if (text.empty()) {
      if (const std::string* h = meta_->Text(format::kTextHelp | format::kTextPmid, pmid)) text = *h;
    }
  }

  void AddValues(const ArchivePmid& p, const format::DecodedValueSet& set, size_t row) {
    PmidColumns& pc = pmid_columns_[p.columns];
    const int32_t type = p.desc->type;
    set_size_ = set.values.size();
    // The column of the k-th value, `inst`.
    auto column_of = [&](size_t k, int32_t inst) {
      if (k < pc.last_inst.size() && pc.last_inst[k] == inst) return pc.last_column[k];
      const size_t column = Column(p, set.pmid, inst, pc);
      if (k >= pc.last_inst.size()) {
        pc.last_inst.resize(k + 1);
        pc.last_column.resize(k + 1);
      }
      pc.last_inst[k] = inst;
      pc.last_column[k] = column;
      return column;
    };
    if (format::IsFixedNumericType(type)) {
      for (size_t k = 0; k < set.values.size(); ++k) {
        const format::DecodedValue& v = set.values[k];
        format::FixedValue f;
        if (!format::FixedValueFromDecoded(v, set.valfmt, type, &f)) continue;
        t_.SetBits(row, column_of(k, v.inst), p.kind, f.u64);
      }
      return;
    }
    for (size_t k = 0; k < set.values.size(); ++k) {
      const format::DecodedValue& v = set.values[k];
      absl::StatusOr<format::ResultValue> rv = format::ValueFromDecoded(v, set.valfmt, type);
      if (!rv.ok()) continue;
      t_.strings.push_back(std::move(rv->bytes));
      t_.SetBits(row, column_of(k, v.inst), StoredValue::kString, t_.strings.size() - 1);
    }
  }

  // The column of (pmid, inst), added if new.
  size_t Column(const ArchivePmid& p, uint32_t pmid, int32_t inst, PmidColumns& pc) {
    if (pc.of_inst.empty()) pc.of_inst.reserve(2 * set_size_);
    auto [it, added] = pc.of_inst.try_emplace(inst, 0);
    if (!added) return it->second;
    // Room for the whole result's values as columns: one growth, not many.
    if (t_.columns.size() == t_.columns.capacity()) t_.columns.reserve(t_.columns.size() + values_);
    archiver::Column c;
    c.pmid = pmid;
    c.inst = inst;
    c.metric = p.name;
    c.desc = p.desc_index;
    if (p.desc->indom != format::kIndomNull) {
      // Instance domains as of this result's time, looked up once per result.
      auto [at, first] = indom_at_.try_emplace(p.desc->indom, nullptr);
      if (first) at->second = meta_->InDomAt(p.desc->indom, result_.timestamp);
      const format::InDom* indom = at->second;
      const std::string* name = indom != nullptr ? InstanceName(indom, inst) : nullptr;
      c.instance = name != nullptr ? *name : absl::StrCat(inst);
    }
    it->second = t_.AddColumn(std::move(c));
    return it->second;
  }

  // The name of `inst` in `indom` (the last one when listed twice).
  const std::string* InstanceName(const format::InDom* indom, int32_t inst) {
    auto [it, added] = names_.try_emplace(indom);
    if (added) {
      for (const format::InDomInstance& i : indom->instances) it->second[i.inst] = &i.name;
    }
    auto name = it->second.find(inst);
    return name == it->second.end() ? nullptr : name->second;
  }

  Timeline& t_;
  const std::vector<std::string>& globs_;
  const bool logger_records_;
  absl::flat_hash_map<uint32_t, size_t>& columns_of_pmid_;
  std::vector<PmidColumns>& pmid_columns_;
  const ArchiveMetadata* meta_ = nullptr;
  absl::flat_hash_map<uint32_t, ArchivePmid> pmids_;
  absl::flat_hash_map<const format::InDom*, absl::flat_hash_map<int32_t, const std::string*>> names_;
  format::DecodedResult result_;  // reused from record to record
  size_t max_rows_ = SIZE_MAX;
  size_t set_size_ = 0;            // values in the set being added
  size_t values_ = 0;              // values in the result being added
  absl::flat_hash_map<uint32_t, const format::InDom*> indom_at_;  // this result's
};

}  // namespace

namespace {

struct Opened {
  std::unique_ptr<ArchiveReader> reader;
  std::string name;
};

// Opens every archive `names` holds, in order of their start; the ones that
// cannot be opened are in `problems`.
std::vector<Opened> OpenArchives(const std::vector<std::string>& names,
                                 std::vector<std::string>* problems) {
  std::vector<Opened> opened;
  for (const std::string& n : ExpandNames(names)) {
    absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(n);
    if (!r.ok()) {
      problems->push_back(absl::StrCat(n, ": skipped: ", r.status().message()));
      continue;
    }
    opened.push_back({std::move(*r), n});
  }
  std::stable_sort(opened.begin(), opened.end(), [](const Opened& a, const Opened& b) {
    return a.reader->label().start < b.reader->label().start;
  });
  return opened;
}

// Loads the opened archives, in order, into one timeline (at most
// `max_rows` rows).
absl::StatusOr<Timeline> LoadArchives(std::vector<Opened>& opened, std::vector<std::string> problems,
                                      const std::vector<std::string>& globs, bool logger_records,
                                      size_t max_rows = SIZE_MAX) {
  Timeline t;
  t.problems = std::move(problems);
  absl::flat_hash_map<uint32_t, size_t> columns_of_pmid;
  std::vector<PmidColumns> pmid_columns;
  for (Opened& o : opened) {
    ArchiveReader& r = *o.reader;
    if (t.host.empty()) t.host = r.label().hostname;
    if (t.rows.size() >= max_rows) break;
    ArchiveLoader loader(&t, globs, logger_records, &columns_of_pmid, &pmid_columns);
    loader.StopAfter(max_rows);
    const absl::Status failed = loader.Load(r);
    for (const std::string& w : r.warnings()) t.problems.push_back(w);
    if (!failed.ok()) {
      t.damaged.push_back(absl::StrCat(o.name, ": damaged, read up to the damage: ", failed.message()));
    }
    t.archives.push_back(r.base());
  }
  if (opened.empty()) {
    return absl::NotFoundError(t.problems.empty() ? "no archives given"
                                                  : absl::StrCat("no readable archive: ", t.problems[0]));
  }
  return t;
}

// The last index entry of `r` earlier than `t`, if any.
std::optional<format::IndexEntry> EntryBefore(const ArchiveReader& r, format::Timestamp t) {
  std::optional<format::IndexEntry> best;
  for (const format::IndexEntry& e : r.index()) {
    if (e.timestamp < t) best = e;
  }
  return best;
}

// Every (metric, instance) a chosen metric can have a column for: its
// instances in every instance domain observation of every archive.
std::set<std::pair<uint32_t, int32_t>> PossibleColumns(const std::vector<Opened>& opened,
                                                       const std::vector<std::string>& globs,
                                                       bool logger_records) {
  std::set<std::pair<uint32_t, int32_t>> out;
  for (const Opened& o : opened) {
    const ArchiveMetadata& meta = o.reader->meta();
    for (const format::Desc& d : meta.descs) {
      const std::string name = d.names.empty() ? format::PmidString(d.pmid) : d.names[0];
      if (!Selected(globs, name, logger_records)) continue;
      if (d.indom == format::kIndomNull) {
        out.insert({d.pmid, -1});
        continue;
      }
      auto it = meta.indoms.find(d.indom);
      if (it == meta.indoms.end()) continue;
      for (const format::InDom& obs : it->second) {
        for (const format::InDomInstance& i : obs.instances) out.insert({d.pmid, i.inst});
      }
    }
  }
  return out;
}

bool SameColumns(const Timeline& a, const Timeline& b) {
  if (a.columns.size() != b.columns.size()) return false;
  for (size_t c = 0; c < a.columns.size(); ++c) {
    const Column &x = a.columns[c], &y = b.columns[c];
    if (x.pmid != y.pmid || x.inst != y.inst || x.instance != y.instance || x.metric != y.metric) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<Timeline> ReadTimeline(const std::vector<std::string>& names,
                                      const std::vector<std::string>& globs,
                                      bool logger_records) {
  std::vector<std::string> problems;
  std::vector<Opened> opened = OpenArchives(names, &problems);
  return LoadArchives(opened, std::move(problems), globs, logger_records);
}

std::optional<TimelineEnds> ReadTimelineEnds(const std::vector<std::string>& names,
                                             const std::vector<std::string>& globs,
                                             bool logger_records) {
  std::vector<std::string> problems;
  std::vector<Opened> opened = OpenArchives(names, &problems);
  absl::StatusOr<Timeline> head = LoadArchives(opened, problems, globs, logger_records, 1);
  if (!head.ok() || head->rows.empty() || !head->damaged.empty()) return std::nullopt;
  TimelineEnds ends;
  ends.first = head->rows.front().time;
  // The last row: read the newest archive from its last index entries on,
  // going back (1, 2, 4, ... entries) until a row turns up (a reader each
  // time: the ones above only name the archives and their indexes now).
  for (size_t a = opened.size(); a-- > 0;) {
    const size_t entries = opened[a].reader->index().size();
    for (size_t back = 1;; back *= 2) {
      std::vector<std::string> none;
      std::vector<Opened> one = OpenArchives({opened[a].reader->base()}, &none);
      if (one.size() != 1) return std::nullopt;
      if (back <= entries) one[0].reader->StartAt(one[0].reader->index()[entries - back]);
      absl::StatusOr<Timeline> tail = LoadArchives(one, {}, globs, logger_records);
      if (!tail.ok() || !tail->damaged.empty()) return std::nullopt;
      if (!tail->rows.empty()) {
        ends.last = tail->rows.back().time;
        return ends;
      }
      if (back > entries) break;  // the whole archive has no row
    }
  }
  return std::nullopt;
}

absl::StatusOr<Timeline> ReadTimelineFrom(const std::vector<std::string>& names,
                                          const std::vector<std::string>& globs, bool logger_records,
                                          format::Timestamp from) {
  std::vector<std::string> problems;
  std::vector<Opened> opened = OpenArchives(names, &problems);
  // The columns of a whole read, in order, are the first row's when that
  // row holds every column the metadata allows (no later one can add any).
  absl::StatusOr<Timeline> head = LoadArchives(opened, problems, globs, logger_records, 1);
  if (!head.ok()) return head.status();
  std::set<std::pair<uint32_t, int32_t>> first_row;
  for (const Column& c : head->columns) first_row.insert({c.pmid, c.inst});
  bool seek = !head->rows.empty() && first_row == PossibleColumns(opened, globs, logger_records);
  if (seek) {
    opened = OpenArchives(names, &problems);
    seek = false;
    for (Opened& o : opened) {
      if (std::optional<format::IndexEntry> e = EntryBefore(*o.reader, from)) {
        o.reader->StartAt(*e);
        seek = true;
      }
    }
  }
  if (seek) {
    absl::StatusOr<Timeline> t = LoadArchives(opened, std::move(problems), globs, logger_records);
    if (!t.ok()) return t;
    // Every column needs a value at or before `from` for what follows to be
    // as a whole read gives it (rates, values carried onto a grid).
    bool complete = SameColumns(*head, *t);
    for (size_t c = 0; complete && c < t->columns.size(); ++c) {
      bool before = false;
      for (size_t r = 0; r < t->rows.size() && !(from < t->rows[r].time); ++r) before |= t->Has(r, c);
      complete = before;
    }
    if (complete) return t;
  }
  return ReadTimeline(names, globs, logger_records);
}

namespace {

// The rate of a counter between its values `a` (earlier) and `b`, `dt`
// seconds apart; nullopt at a reset.
std::optional<double> Rate(const StoredValue& a, const StoredValue& b, double dt) {
  double delta;
  if (a.kind == StoredValue::kUint && b.kind == StoredValue::kUint) {
    if (b.u < a.u) return std::nullopt;  // reset
    delta = static_cast<double>(b.u - a.u);  // exact even above 2^53
  } else if (a.kind == StoredValue::kInt && b.kind == StoredValue::kInt) {
    if (b.i < a.i) return std::nullopt;
    delta = static_cast<double>(b.i - a.i);
  } else {
    // Mixed kinds: an interpolated (double) value against a stored one.
    if (b.AsDouble() < a.AsDouble()) return std::nullopt;
    delta = b.AsDouble() - a.AsDouble();
  }
  return delta / dt;
}

double SecondsBetween(const Timeline& t, size_t from, size_t to) {
  return absl::ToDoubleSeconds(format::ToAbslTime(t.rows[to].time) -
                               format::ToAbslTime(t.rows[from].time));
}

// The previous row of `row` with a value of `column`, with no <mark> in
// between; nullopt if none.
std::optional<size_t> PreviousSample(const Timeline& t, size_t row, size_t column) {
  for (size_t r = row; r-- > 0;) {
    if (t.rows[r].mark) return std::nullopt;
    if (t.Has(r, column)) return r;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> NumericValue(const Timeline& t, size_t row, size_t column, bool raw) {
  const StoredValue::Kind kind = t.Kind(row, column);
  if (kind == StoredValue::kNone || kind == StoredValue::kString) return std::nullopt;
  const StoredValue b = t.Value(row, column);
  if (raw || t.ColumnDesc(column).sem != format::kSemCounter) return b.AsDouble();
  const std::optional<size_t> prev = PreviousSample(t, row, column);
  if (!prev) return std::nullopt;
  const double dt = SecondsBetween(t, *prev, row);
  if (dt <= 0) return std::nullopt;
  return Rate(t.Value(*prev, column), b, dt);
}

RowNumbers::RowNumbers(const Timeline& t, bool raw) : t_(t), rate_(t.columns.size()) {
  if (raw) return;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    rate_[c] = t.ColumnDesc(c).sem == format::kSemCounter;
  }
}

const std::vector<std::optional<double>>& RowNumbers::Of(size_t row) {
  values_.assign(t_.columns.size(), std::nullopt);
  const Row& r = t_.rows[row];
  const Row* before = row > 0 && !t_.rows[row - 1].mark ? &t_.rows[row - 1] : nullptr;
  const uint8_t* kinds = t_.kinds.data();
  const uint64_t* bits = t_.bits.data();
  // The time back to the previous row holding a column is the same for
  // most columns: computed once per distinct row.
  size_t dt_row = row;
  double dt = 0;
  for (size_t c = 0; c < r.width; ++c) {
    const uint8_t kind = kinds[r.first + c];
    if (kind == StoredValue::kNone || kind == StoredValue::kString) continue;
    const uint64_t b = bits[r.first + c];
    if (!rate_[c]) {
      values_[c] = kind == StoredValue::kInt    ? static_cast<double>(static_cast<int64_t>(b))
                   : kind == StoredValue::kUint ? static_cast<double>(b)
                                                : std::bit_cast<double>(b);
      continue;
    }
    std::optional<size_t> prev;
    if (before != nullptr && c < before->width && kinds[before->first + c] != StoredValue::kNone) {
      prev = row - 1;
    } else {
      prev = PreviousSample(t_, row, c);
      if (!prev) continue;
    }
    if (*prev != dt_row) {
      dt_row = *prev;
      dt = SecondsBetween(t_, *prev, row);
    }
    if (dt <= 0) continue;
    const size_t a_cell = t_.rows[*prev].first + c;
    if (kind == StoredValue::kUint && kinds[a_cell] == StoredValue::kUint) {
      // Rate() for two unsigned values, without building StoredValues.
      const uint64_t a = bits[a_cell];
      if (b >= a) values_[c] = static_cast<double>(b - a) / dt;
      continue;
    }
    values_[c] = Rate(t_.Value(*prev, c), t_.Value(row, c), dt);
  }
  return values_;
}

namespace {

// What `t` says about its archives and metrics, without columns or rows.
Timeline HeaderOf(const Timeline& t) {
  Timeline out;
  out.host = t.host;
  out.archives = t.archives;
  out.problems = t.problems;
  out.damaged = t.damaged;
  out.descs = t.descs;
  out.desc_of_pmid = t.desc_of_pmid;
  out.help = t.help;
  out.param_names = t.param_names;
  return out;
}

// True when the instance's external name, or its first word, is in `names`.
bool InstanceNamed(const std::string& instance, const std::vector<std::string>& names) {
  const std::string first_word = instance.substr(0, instance.find(' '));
  return std::find(names.begin(), names.end(), instance) != names.end() ||
         std::find(names.begin(), names.end(), first_word) != names.end();
}

}  // namespace

Timeline KeepInstances(const Timeline& t, const std::vector<std::string>& names,
                       std::vector<std::string>* unmatched) {
  std::vector<size_t> keep;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c].instance.empty() || InstanceNamed(t.columns[c].instance, names)) {
      keep.push_back(c);
    }
  }
  for (const std::string& n : names) {
    const bool found = std::any_of(keep.begin(), keep.end(), [&](size_t c) {
      return !t.columns[c].instance.empty() && InstanceNamed(t.columns[c].instance, {n});
    });
    if (!found) unmatched->push_back(n);
  }
  Timeline out = HeaderOf(t);
  for (size_t c : keep) out.AddColumn(t.columns[c]);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    out.AddRow(t.rows[r].time, t.rows[r].mark);
    for (size_t k = 0; k < keep.size(); ++k) {
      const StoredValue v = t.Value(r, keep[k]);
      if (v.has_value()) out.Set(out.rows.size() - 1, k, v);
    }
  }
  return out;
}

Timeline Interpolate(const Timeline& t, absl::Time start, absl::Time end, absl::Duration step) {
  Timeline out = HeaderOf(t);
  out.columns = t.columns;
  auto when = [&](size_t r) { return format::ToAbslTime(t.rows[r].time); };
  size_t next = 0;  // first row strictly after the grid time
  absl::Time prev_grid = absl::InfinitePast();
  for (absl::Time g = start; g <= end; g += step) {
    while (next < t.rows.size() && when(next) <= g) ++next;
    // A mark since the previous grid time breaks continuity.
    bool mark_before = false;
    for (size_t r = next; r-- > 0 && when(r) > prev_grid;) mark_before |= t.rows[r].mark;
    if (mark_before && !out.rows.empty()) out.AddRow(format::ToTimestamp(g), true);
    prev_grid = g;
    out.AddRow(format::ToTimestamp(g), false);
    const size_t row = out.rows.size() - 1;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      // The samples of this column either side of g, with no mark between.
      std::optional<size_t> before, after;
      for (size_t r = next; r-- > 0;) {
        if (t.rows[r].mark) break;
        if (t.Has(r, c)) {
          before = r;
          break;
        }
      }
      for (size_t r = next; r < t.rows.size(); ++r) {
        if (t.rows[r].mark) break;
        if (t.Has(r, c)) {
          after = r;
          break;
        }
      }
      if (!before) continue;
      const StoredValue a = t.Value(*before, c);
      const format::Desc& desc = t.ColumnDesc(c);
      // As pmval -t shows (PCP 6.0.3): instant and discrete values, and
      // strings, hold the last value at or before the grid time; only
      // counters are interpolated linearly.
      const bool step_value = a.kind == StoredValue::kString || desc.sem != format::kSemCounter;
      if (when(*before) == g) {
        out.Set(row, c, a);
        continue;
      }
      // PCP shows nothing unless a sample follows before any <mark>.
      if (!after) continue;
      if (step_value) {
        out.Set(row, c, a);
        continue;
      }
      const StoredValue b = t.Value(*after, c);
      if (b.AsDouble() < a.AsDouble()) continue;  // reset
      const double f = absl::FDivDuration(g - when(*before), when(*after) - when(*before));
      StoredValue v;
      v.kind = a.kind == b.kind ? a.kind : StoredValue::kDouble;
      // Integer counters stay integers, rounded to the nearest, as PCP's
      // interpolation does (pmval -t -r shows 4000000001 where the line
      // gives 4000000000.999998); long double keeps 64-bit values exact.
      if (v.kind == StoredValue::kUint) {
        const long double x = static_cast<long double>(a.u) +
                              static_cast<long double>(b.u - a.u) * f;
        v.u = static_cast<uint64_t>(std::roundl(x));
      } else if (v.kind == StoredValue::kInt) {
        const long double x = static_cast<long double>(a.i) +
                              static_cast<long double>(b.i - a.i) * f;
        v.i = static_cast<int64_t>(std::roundl(x));
      } else {
        v.d = a.AsDouble() + (b.AsDouble() - a.AsDouble()) * f;
      }
      out.Set(row, c, v);
    }
  }
  return out;
}

std::string DisplayUnits(const Timeline& t, size_t column, bool raw) {
  const format::Desc* desc = &t.ColumnDesc(column);
  std::string u = format::UnitsToString(format::UnitsFromWord(desc->units));
  if (!raw && desc->sem == format::kSemCounter) {
    // Converting to a rate divides by time.
    format::PmUnits units = format::UnitsFromWord(desc->units);
    if (units.dim_time == 1) return "time utilisation";
    units.dim_time -= 1;
    if (units.dim_time == -1) units.scale_time = format::kTimeSec;
    u = format::UnitsToString(units);
  }
  return u;
}

}  // namespace mmvlog::archiver

#include "archiver/replay.h"

#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "archiver/archive_reader.h"
#include "format/archive_format.h"
#include "format/archive_result.h"
#include "format/json.h"
#include "format/pm_desc_text.h"
#include "format/pm_units.h"

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
          absl::string_view f = e->d_name;
          if (absl::EndsWith(f, ".meta")) {
            found.push_back(absl::StrCat(n, "/", f.substr(0, f.size() - 5)));
          }
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

bool Selected(const std::vector<std::string>& globs, const std::string& name) {
  if (globs.empty()) return true;
  for (const std::string& g : globs) {
    if (::fnmatch(g.c_str(), name.c_str(), 0) == 0) return true;
    // A plain metric name also selects its subtree, as PCP tools do.
    if (absl::StartsWith(name, g + ".")) return true;
  }
  return false;
}

}  // namespace

double StoredValue::AsDouble() const {
  switch (kind) {
    case kInt: return static_cast<double>(i);
    case kUint: return static_cast<double>(u);
    case kDouble: return d;
    case kString: return 0;
  }
  return 0;
}

std::string StoredValue::Text() const {
  switch (kind) {
    case kInt: return absl::StrCat(i);
    case kUint: return absl::StrCat(u);
    case kDouble: return format::JsonNumber(d);
    case kString: return s;
  }
  return "";
}

absl::StatusOr<Timeline> ReadTimeline(const std::vector<std::string>& names,
                                      const std::vector<std::string>& globs) {
  Timeline t;
  struct Opened {
    std::unique_ptr<ArchiveReader> reader;
    std::string name;
  };
  std::vector<Opened> opened;
  for (const std::string& n : ExpandNames(names)) {
    absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(n);
    if (!r.ok()) {
      t.problems.push_back(absl::StrCat(n, ": skipped: ", r.status().message()));
      continue;
    }
    opened.push_back({std::move(*r), n});
  }
  std::sort(opened.begin(), opened.end(), [](const Opened& a, const Opened& b) {
    return a.reader->label().start < b.reader->label().start;
  });
  std::map<std::pair<uint32_t, int32_t>, size_t> column_of;
  for (Opened& o : opened) {
    ArchiveReader& r = *o.reader;
    const ArchiveMetadata& meta = r.meta();
    if (t.host.empty()) t.host = r.label().hostname;
    std::vector<Row> rows;
    absl::Status failed;
    for (;;) {
      absl::StatusOr<std::optional<format::DecodedResult>> next = r.Next();
      if (!next.ok()) {
        failed = next.status();
        break;
      }
      if (!next->has_value()) break;
      const format::DecodedResult& res = **next;
      Row row;
      row.time = res.timestamp;
      row.mark = res.is_mark();
      for (const format::DecodedValueSet& set : res.sets) {
        const format::Desc* desc = meta.Desc(set.pmid);
        if (desc == nullptr || set.numval <= 0) continue;
        const std::string name = desc->names.empty() ? format::PmidString(set.pmid) : desc->names[0];
        if (!Selected(globs, name)) continue;
        if (!t.desc_of_pmid.contains(set.pmid)) {
          t.desc_of_pmid[set.pmid] = t.descs.size();
          t.descs.push_back(*desc);
        }
        for (const format::DecodedValue& v : set.values) {
          absl::StatusOr<format::ResultValue> rv = format::ValueFromDecoded(v, set.valfmt, desc->type);
          if (!rv.ok()) continue;
          auto key = std::make_pair(set.pmid, v.inst);
          auto it = column_of.find(key);
          if (it == column_of.end()) {
            Column c;
            c.pmid = set.pmid;
            c.inst = v.inst;
            c.metric = name;
            if (desc->indom != format::kIndomNull) {
              const format::InDom* indom = meta.InDomAt(desc->indom, res.timestamp);
              c.instance = absl::StrCat(v.inst);
              if (indom != nullptr) {
                for (const auto& i : indom->instances) {
                  if (i.inst == v.inst) c.instance = i.name;
                }
              }
            }
            it = column_of.emplace(key, t.columns.size()).first;
            t.columns.push_back(c);
          }
          StoredValue sv;
          switch (desc->type) {
            case format::kType32:
            case format::kType64: sv.kind = StoredValue::kInt; sv.i = rv->i64; break;
            case format::kTypeU32:
            case format::kTypeU64: sv.kind = StoredValue::kUint; sv.u = rv->u64; break;
            case format::kTypeFloat:
            case format::kTypeDouble: sv.kind = StoredValue::kDouble; sv.d = rv->f64; break;
            default: sv.kind = StoredValue::kString; sv.s = rv->bytes; break;
          }
          row.values[it->second] = std::move(sv);
        }
      }
      rows.push_back(std::move(row));
    }
    for (const std::string& w : r.warnings()) t.problems.push_back(w);
    if (!failed.ok()) {
      t.problems.push_back(absl::StrCat(o.name, ": damaged, read up to the damage: ", failed.message()));
    }
    // Archives are separate recordings: a gap between them is a mark.
    if (!t.rows.empty() && !rows.empty()) {
      Row gap;
      gap.time = t.rows.back().time;
      gap.mark = true;
      t.rows.push_back(gap);
    }
    for (Row& row : rows) t.rows.push_back(std::move(row));
    t.archives.push_back(r.base());
  }
  if (opened.empty()) {
    return absl::NotFoundError(t.problems.empty() ? "no archives given"
                                                  : absl::StrCat("no readable archive: ", t.problems[0]));
  }
  return t;
}

std::optional<double> NumericValue(const Timeline& t, size_t row, size_t column, bool raw) {
  auto it = t.rows[row].values.find(column);
  if (it == t.rows[row].values.end() || it->second.kind == StoredValue::kString) return std::nullopt;
  const format::Desc* desc = t.Desc(t.columns[column].pmid);
  if (raw || desc == nullptr || desc->sem != format::kSemCounter) return it->second.AsDouble();
  // The previous sample of this column, with no <mark> in between.
  for (size_t r = row; r-- > 0;) {
    if (t.rows[r].mark) return std::nullopt;
    auto prev = t.rows[r].values.find(column);
    if (prev == t.rows[r].values.end()) continue;
    const double dt = absl::ToDoubleSeconds(format::ToAbslTime(t.rows[row].time) -
                                            format::ToAbslTime(t.rows[r].time));
    if (dt <= 0) return std::nullopt;
    const StoredValue& a = prev->second;
    const StoredValue& b = it->second;
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
  return std::nullopt;
}

Timeline Interpolate(const Timeline& t, absl::Time start, absl::Time end, absl::Duration step) {
  Timeline out;
  out.host = t.host;
  out.archives = t.archives;
  out.problems = t.problems;
  out.descs = t.descs;
  out.desc_of_pmid = t.desc_of_pmid;
  out.columns = t.columns;
  auto when = [&](size_t r) { return format::ToAbslTime(t.rows[r].time); };
  size_t next = 0;  // first row strictly after the grid time
  absl::Time prev_grid = absl::InfinitePast();
  for (absl::Time g = start; g <= end; g += step) {
    while (next < t.rows.size() && when(next) <= g) ++next;
    // A mark since the previous grid time breaks continuity.
    bool mark_before = false;
    for (size_t r = next; r-- > 0 && when(r) > prev_grid;) mark_before |= t.rows[r].mark;
    if (mark_before && !out.rows.empty()) {
      Row m;
      m.time = format::ToTimestamp(g);
      m.mark = true;
      out.rows.push_back(m);
    }
    prev_grid = g;
    Row row;
    row.time = format::ToTimestamp(g);
    for (size_t c = 0; c < t.columns.size(); ++c) {
      // The samples of this column either side of g, with no mark between.
      std::optional<size_t> before, after;
      for (size_t r = next; r-- > 0;) {
        if (t.rows[r].mark) break;
        if (t.rows[r].values.contains(c)) {
          before = r;
          break;
        }
      }
      for (size_t r = next; r < t.rows.size(); ++r) {
        if (t.rows[r].mark) break;
        if (t.rows[r].values.contains(c)) {
          after = r;
          break;
        }
      }
      if (!before) continue;
      const StoredValue& a = t.rows[*before].values.at(c);
      const format::Desc* desc = t.Desc(t.columns[c].pmid);
      // As pmval -t shows (PCP 6.0.3): instant and discrete values, and
      // strings, hold the last value at or before the grid time; only
      // counters are interpolated linearly.
      const bool step_value = a.kind == StoredValue::kString || desc == nullptr ||
                              desc->sem != format::kSemCounter;
      if (when(*before) == g) {
        row.values[c] = a;
        continue;
      }
      // PCP shows nothing unless a sample follows before any <mark>.
      if (!after) continue;
      if (step_value) {
        row.values[c] = a;
        continue;
      }
      const StoredValue& b = t.rows[*after].values.at(c);
      if (desc->sem == format::kSemCounter && b.AsDouble() < a.AsDouble()) continue;  // reset
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
      row.values[c] = v;
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

std::string DisplayUnits(const Timeline& t, size_t column, bool raw) {
  const format::Desc* desc = t.Desc(t.columns[column].pmid);
  if (desc == nullptr) return "";
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

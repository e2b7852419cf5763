#include "archiver/replay/output/text_output.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "format/archive/archive_format.h"
#include "format/pm_units.h"
#include "format/utf8.h"

namespace mmvlog::archiver {
namespace {

// pmval's column widths (pmval.c howide).
int TypeWidth(int32_t type) {
  switch (type) {
    case format::kType32:
    case format::kTypeU32: return 11;
    case format::kTypeFloat: return 13;
    default: return 21;
  }
}

std::string RightAligned(absl::string_view s, int width) {
  return s.size() >= static_cast<size_t>(width)
             ? std::string(s)
             : absl::StrCat(std::string(width - s.size(), ' '), s);
}

}  // namespace

std::string TextOutput::RealText(double v, int w, bool counter) {
  if (v < 0 && counter) return RightAligned("!", w);
  if (v == 0) return absl::StrFormat("%*.0f.0   ", w - 5, v);
  if (std::fabs(v) < 0.1 || v > 9999 || v < 0) return absl::StrFormat("%*.3E", w, v);
  if (v <= 0.9999) return absl::StrFormat("%*.4f", w, v);
  if (v <= 9.999) return absl::StrFormat("%*.3f ", w - 1, v);
  if (v <= 99.99) return absl::StrFormat("%*.2f  ", w - 2, v);
  if (v <= 999.9) return absl::StrFormat("%*.1f   ", w - 3, v);
  return absl::StrFormat("%*.0f.    ", w - 5, v);
}

void TextOutput::Begin(const ReplayHeader& header) {
  Output::Begin(header);
  const ColumnSet& columns = *header.columns;
  const size_t metrics = columns.metrics().size();
  rate_.assign(metrics, 0);
  divisor_.assign(metrics, 1);
  loop_.assign(metrics, Loop{});
  prev_kind_.assign(columns.size(), kNoValue);
  prev_bits_.assign(columns.size(), 0);
  for (size_t m = 0; m < metrics; ++m) {
    const format::Desc& d = columns.metrics()[m].desc;
    rate_[m] = !header.raw && d.sem == format::kSemCounter;
    const format::PmUnits u = format::UnitsFromWord(d.units);
    if (rate_[m] && u.dim_time == 1 && u.dim_space == 0 && u.dim_count == 0) {
      const int s = u.scale_time;  // PM_TIME_NSEC 0 .. PM_TIME_HOUR 5
      divisor_[m] = s <= 3 ? std::pow(1000.0, 3 - s) : std::pow(60.0, 3 - s);
    }
  }
  width_.clear();
  // As pmval: the value right after the time; with several columns each
  // is followed by a blank.
  std::string labels = std::string(12, ' ');
  for (size_t c = 0; c < columns.size(); ++c) {
    const std::string label = format::ValidUtf8(columns.Label(c));
    width_.push_back(std::max<int>(TypeWidth(columns.desc(c).type), static_cast<int>(label.size())));
    absl::StrAppend(&labels, RightAligned(label, width_.back()), columns.size() > 1 ? " " : "");
  }
  std::string& o = text_.buffer();
  absl::StrAppend(&o, "archive:   ", absl::StrJoin(header.archives, ","), "\n");
  if (header.grid) {
    absl::StrAppendFormat(&o, "interval:  %1.2f sec\n", absl::ToDoubleSeconds(header.step));
  }
  absl::StrAppend(&o, "\n", labels, "\n");
}

TextOutput::Print TextOutput::Step(size_t m, Fetch f, bool* starts) {
  Loop& l = loop_[m];
  *starts = !l.second;
  // getvals' own output for a fetch without values.
  auto failed = [&l](Fetch f) {
    if (f == kGotMark) {
      l.reporting = false;
      return kSuspended;
    }
    return f == kGotNoValues ? kNoValues : kNothing;  // an error goes to stderr
  };
  if (!l.have_prev) {
    // The first fetch of an iteration, waiting for a value.
    if (f != kGotValues) {
      l.no_values = true;
      return failed(f);
    }
    l.have_prev = true;
    if (!rate_[m]) {
      l.reporting = true;
      return kValues;
    }
    const bool say = l.no_values || l.reporting;
    l.no_values = false;
    l.second = true;  // the rate's second value is fetched in this iteration
    return say ? kNoValues : kNothing;
  }
  l.second = false;
  if (f != kGotValues) {
    l.have_prev = false;
    return failed(f);
  }
  l.reporting = true;
  return kValues;
}

void TextOutput::AppendCells(const Row& row, size_t m, double real_now,
                             std::vector<std::string>* cells) {
  const ColumnSet& columns = *header_.columns;
  for (size_t c : columns.metrics()[m].columns) {
    const int w = width_[c];
    const ValueKind kind = row.kind(c);
    std::string& cell = (*cells)[c];
    if (kind == kNoValue) {
      cell = RightAligned("?", w);
    } else if (kind == kString) {
      cell = RightAligned(absl::StrCat("\"", format::ValidUtf8(row.text(c)), "\""), w);
    } else if (rate_[m]) {
      // pmval's printrate: the difference of the two values as doubles over
      // the seconds between the two fetches as pmtimespecToReal gives them
      // (an exact rate can print 30.02 where pmval prints 30.01).
      const ValueKind pk = static_cast<ValueKind>(prev_kind_[c]);
      if (pk == kNoValue) {
        cell = RightAligned("?", w);
      } else {
        const double v = NumberOf(kind, row.bits[c]) - NumberOf(pk, prev_bits_[c]);
        cell = RealText(v / (divisor_[m] * (real_now - loop_[m].prev_real)), w, true);
      }
    } else if (kind == kDouble) {
      // As pmval's printreal: a negative counter (even raw) is "!".
      cell = RealText(std::bit_cast<double>(row.bits[c]), w,
                      columns.desc(c).sem == format::kSemCounter);
    } else if (kind == kInt) {
      cell = absl::StrFormat("%*d", w, static_cast<int64_t>(row.bits[c]));
    } else {
      cell = absl::StrFormat("%*u", w, row.bits[c]);
    }
  }
}

bool TextOutput::TakeRow(const Row& row) {
  if (!text_.ok()) return false;  // a failed write: Finish() says so
  if (max_ < 0) return false;  // pmval -s 0: the header, no row
  const ColumnSet& columns = *header_.columns;
  const size_t metrics = loop_.size();
  // Each metric's fetch at this row: at the records, only the metrics the
  // record holds (pmval -U skips the others); on a grid, every metric.
  std::vector<uint8_t> fetch(metrics, row.grid ? kGotNoValues : kNone);
  if (row.mark) {
    std::fill(fetch.begin(), fetch.end(), kGotMark);
  } else {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (row.has(c)) fetch[columns.columns()[c].metric] = kGotValues;
    }
    for (size_t m = 0; m < row.empty_sets.size() && m < metrics; ++m) {
      if (fetch[m] == kNone && row.empty_sets[m] != kNotEmpty &&
          row.empty_sets[m] != kUnnamedValues) {
        fetch[m] = row.empty_sets[m] == kEmptySet ? kGotNoValues : kGotError;
      }
    }
  }
  // -s: pmval's loop checks its count before each iteration.
  if (metrics > 0 && fetch[0] != kNone && !loop_[0].second && max_ > 0 && iterations_ >= max_) {
    return false;
  }
  const double real_now = static_cast<double>(
      row.time.sec + static_cast<long double>(row.time.nsec) / 1000000000.0L);
  std::vector<std::string> cells;
  bool values = false, no_values = false, suspended = false;
  for (size_t m = 0; m < metrics; ++m) {
    if (fetch[m] == kNone) continue;
    bool starts = false;
    const Print p = Step(m, static_cast<Fetch>(fetch[m]), &starts);
    if (m == 0 && starts) ++iterations_;
    if (p == kValues) {
      if (cells.empty()) cells.resize(columns.size());
      AppendCells(row, m, real_now, &cells);
      values = true;
    }
    no_values |= p == kNoValues;
    suspended |= p == kSuspended;
    if (fetch[m] == kGotValues) {
      // This value is the previous one of the next fetch (pmval's rslt2).
      for (size_t c : columns.metrics()[m].columns) {
        prev_kind_[c] = row.kind(c) == kString ? kNoValue : row.kind(c);
        prev_bits_[c] = row.bits[c];
      }
      loop_[m].prev_real = real_now;
    }
  }
  std::string& o = text_.buffer();
  const std::string time = absl::FormatTime("%H:%M:%E3S", format::ToAbslTime(row.time), header_.zone);
  if (suspended) {
    absl::StrAppend(&o, time, "  Archive logging suspended\n");
  } else if (values) {
    o += time;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) o.push_back(' ');
      o += cells[c].empty() ? RightAligned("?", width_[c]) : cells[c];
    }
    if (columns.size() > 1) o.push_back(' ');
    o.push_back('\n');
  } else if (no_values) {
    absl::StrAppend(&o, time, "  No values available\n");
  }
  text_.MaybeFlush();
  // The count is checked again before the next iteration; an iteration
  // still waiting for its second fetch goes on.
  return max_ == 0 || iterations_ < max_ || (metrics > 0 && loop_[0].second);
}

absl::Status TextOutput::End(const ReplayEnd& /*end*/) {
  return text_.Finish();
}

}  // namespace mmvlog::archiver

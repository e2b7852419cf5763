#include "archiver/replay/output/text_output.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "format/archive/archive_format.h"
#include "format/pm_units.h"

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
  had_.assign(metrics, 0);
  has_.assign(metrics, 0);
  seen_.assign(metrics, 0);
  rec_kind_.assign(columns.size(), kNoValue);
  rec_bits_.assign(columns.size(), 0);
  rec_real_.assign(columns.size(), 0);
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
    if (rate_[m] && first_rate_ < 0) first_rate_ = static_cast<int>(m);
  }
  width_.clear();
  // As pmval: the value right after the time; with several columns each
  // is followed by a blank.
  std::string labels = std::string(12, ' ');
  for (size_t c = 0; c < columns.size(); ++c) {
    const std::string label = columns.Label(c);
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

bool TextOutput::TakeRow(const Row& row) {
  if (max_ < 0) return false;  // pmval -s 0: the header, no row
  if (row.mark) {
    // pmval -U at a <mark> (pmval.c getvals): a line of its own, one of
    // -s's iterations, and every rate starts again.
    std::fill(seen_.begin(), seen_.end(), 0);
    std::fill(rec_kind_.begin(), rec_kind_.end(), kNoValue);
    if (max_ > 0 && iterations_ >= max_) return false;
    std::string& o = text_.buffer();
    o += absl::FormatTime("%H:%M:%E3S", format::ToAbslTime(row.time), header_.zone);
    o += "  Archive logging suspended\n";
    ++iterations_;
    return max_ == 0 || iterations_ < max_;
  }
  if (max_ > 0 && iterations_ >= max_) return false;
  const ColumnSet& columns = *header_.columns;
  std::fill(has_.begin(), has_.end(), 0);
  for (size_t c = 0; c < columns.size(); ++c) has_[columns.columns()[c].metric] |= row.has(c);
  // Which metrics pmval prints a line of at this time.
  std::vector<uint8_t> prints(has_.size());
  bool any = false;
  for (size_t m = 0; m < has_.size(); ++m) {
    prints[m] = has_[m] && (!rate_[m] || (row.grid ? had_[m] : seen_[m]));
    any |= prints[m];
  }
  if (!row.grid) {
    for (size_t m = 0; m < has_.size(); ++m) seen_[m] |= has_[m];
  }
  // -s: pmval's iterations. A rate metric waiting for its first value takes
  // that grid time and the next in one iteration.
  bool iteration_ends = true;
  if (row.grid && first_rate_ >= 0) {
    const bool has = has_[first_rate_];
    if (need_prev_ && has && !pending_pair_) {
      pending_pair_ = true;
      iteration_ends = false;
      need_prev_ = false;
    } else {
      pending_pair_ = false;
      need_prev_ = !has;
    }
  }
  had_.swap(has_);
  // pmval's rate (printrate): the difference of the two values as doubles
  // over the time between the grid times as pmtimespecToReal gives them.
  const double real_now = static_cast<double>(
      row.time.sec + static_cast<long double>(row.time.nsec) / 1000000000.0L);
  const double real_prev = static_cast<double>(
      prev_time_.sec + static_cast<long double>(prev_time_.nsec) / 1000000000.0L);
  if (any) {
    any_row_ = true;
    std::string& o = text_.buffer();
    o += absl::FormatTime("%H:%M:%E3S", format::ToAbslTime(row.time), header_.zone);
    for (size_t c = 0; c < columns.size(); ++c) {
      const size_t m = columns.columns()[c].metric;
      const int w = width_[c];
      if (c > 0) o.push_back(' ');
      const ValueKind kind = row.kind(c);
      if (!prints[m] || kind == kNoValue) {
        o += RightAligned("?", w);
      } else if (kind == kString) {
        o += RightAligned(absl::StrCat("\"", row.text(c), "\""), w);
      } else if (rate_[m] && row.grid) {
        const ValueKind pk = static_cast<ValueKind>(prev_kind_[c]);
        if (pk == kNoValue) {
          o += RightAligned("?", w);
        } else {
          const double v = NumberOf(kind, row.bits[c]) - NumberOf(pk, prev_bits_[c]);
          o += RealText(v / (divisor_[m] * (real_now - real_prev)), w, true);
        }
      } else if (rate_[m]) {
        const ValueKind pk = static_cast<ValueKind>(rec_kind_[c]);
        if (row.shown[c] == kNegativeRate) {
          o += RightAligned("!", w);
        } else if (row.shown[c] == kNumber && pk != kNoValue) {
          // pmval -U's printrate: the difference over the seconds between
          // the two records as doubles (an exact rate can print 30.02
          // where pmval prints 30.01).
          const double v = NumberOf(kind, row.bits[c]) - NumberOf(pk, rec_bits_[c]);
          o += RealText(v / (divisor_[m] * (real_now - rec_real_[c])), w, true);
        } else if (row.shown[c] == kNumber) {
          o += RealText(row.numbers[c] / divisor_[m], w, true);
        } else {
          o += RightAligned("?", w);
        }
      } else if (kind == kDouble) {
        // As pmval's printreal: a negative counter (even raw) is "!".
        o += RealText(std::bit_cast<double>(row.bits[c]), w,
                      columns.desc(c).sem == format::kSemCounter);
      } else if (kind == kInt) {
        o += absl::StrFormat("%*d", w, static_cast<int64_t>(row.bits[c]));
      } else {
        o += absl::StrFormat("%*u", w, row.bits[c]);
      }
    }
    if (columns.size() > 1) o.push_back(' ');
    o.push_back('\n');
    text_.MaybeFlush();
  }
  if (!row.grid) {
    for (size_t c = 0; c < columns.size(); ++c) {
      const ValueKind k = row.kind(c);
      if (k == kNoValue || k == kString) continue;
      rec_kind_[c] = k;
      rec_bits_[c] = row.bits[c];
      rec_real_[c] = real_now;
    }
  }
  if (row.grid) {
    for (size_t c = 0; c < columns.size(); ++c) {
      prev_kind_[c] = row.kind(c) == kString ? kNoValue : row.kind(c);
      prev_bits_[c] = row.bits[c];
    }
    prev_time_ = row.time;
  }
  // At the records (pmval -U), -s counts the lines printed.
  if (!row.grid) iteration_ends = any;
  if (iteration_ends) ++iterations_;
  return max_ == 0 || iterations_ < max_;
}

absl::Status TextOutput::End(const ReplayEnd& /*end*/) {
  text_.Flush();
  return absl::OkStatus();
}

}  // namespace mmvlog::archiver

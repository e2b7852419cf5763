#include "archiver/replay/output/pmrep_rank_output.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace mmvlog::archiver {
namespace {

// Python's "{:<W}" and "{:>W}": padded, never cut.
std::string Left(const std::string& s, size_t w) {
  return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
}
std::string RightPad(const std::string& s, size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}

}  // namespace

void PmrepRankOutput::Begin(const ReplayHeader& header) {
  Output::Begin(header);
  cells_.SetContextStep(header.grid ? absl::ToInt64Nanoseconds(header.step) : 0);
  best_.assign(cells_.columns().empty() ? 0 : cells_.columns().back().metric + 1, {});
  if (run_) text_.buffer() += PmrepExtendedHeader(PmrepRunOf(*run_, header, cells_), false);
}

bool PmrepRankOutput::TakeRow(const Row& row) {
  if (row.mark) return true;
  if (max_rows_ > 0 && rows_ >= max_rows_) return false;
  ++rows_;
  const std::vector<PmrepCell>& cells = cells_.Take(*header_.columns, row);
  // pmrep's results of the row: the values ranked (PmrepCells), in the
  // fetchgroup's order, then sorted by value as pmconfig.py's rank() does.
  PmrepPresentColumns(cells_.columns(), *header_.columns, cells, &present_);
  const bool highest = rank_ > 0;
  const std::vector<PmrepColumn>& columns = cells_.columns();
  auto better = [&](const Ranked& a, const Ranked& b) {
    return highest ? PmrepValueBefore(columns[b.column], b.cell, columns[a.column], a.cell)
                   : PmrepValueBefore(columns[a.column], a.cell, columns[b.column], b.cell);
  };
  size_t k = 0;
  for (size_t m = 0; m < best_.size(); ++m) {
    std::vector<Ranked> now;
    for (; k < present_.size() && columns[present_[k]].metric == m; ++k) {
      const size_t i = present_[k];
      if (cells[i].kind != PmrepCell::kNumber) continue;  // strings are not ranked
      now.push_back({i, cells_.InstanceName(*header_.columns, i), cells[i]});
    }
    std::stable_sort(now.begin(), now.end(), better);
    // This row's before those kept (pmrep sorts the two lists joined),
    // each instance once, the best |rank| (one of a metric without).
    std::vector<Ranked> joined = std::move(now);
    joined.insert(joined.end(), best_[m].begin(), best_[m].end());
    std::stable_sort(joined.begin(), joined.end(), better);
    const size_t most =
        !joined.empty() && columns[joined[0].column].instance.empty()
            ? 1
            : static_cast<size_t>(std::llabs(rank_));
    std::vector<Ranked>& kept = best_[m];
    kept.clear();
    for (Ranked& r : joined) {
      if (kept.size() >= most) break;
      const int32_t inst = header_.columns->columns()[columns[r.column].column].inst;
      if (std::any_of(kept.begin(), kept.end(), [&](const Ranked& x) {
            return header_.columns->columns()[columns[x.column].column].inst == inst;
          })) {
        continue;
      }
      kept.push_back(std::move(r));
    }
  }
  return max_rows_ == 0 || rows_ < max_rows_;
}

absl::Status PmrepRankOutput::End(const ReplayEnd& /*end*/) {
  const std::vector<PmrepColumn>& columns = cells_.columns();
  // Each value as pmrep prints it here: floats with the precision, or the
  // width when that is smaller.
  auto text = [&](const Ranked& r) {
    PmrepColumn col = columns[r.column];
    col.precision = col.width > col.precision ? col.precision : col.width;
    return PmrepNumberText(col, r.cell);
  };
  size_t m_len = 3, i_len = 3, u_len = 3, v_len = 3;
  for (const std::vector<Ranked>& kept : best_) {
    for (const Ranked& r : kept) {
      const std::string name = absl::StrReplaceAll(r.name, {{"\n", " "}});
      i_len = std::max(i_len, name.size());
      v_len = std::max(v_len, text(r).size());
    }
    if (!kept.empty()) {
      const PmrepColumn& c = columns[kept[0].column];
      m_len = std::max(m_len, c.metric_name.size());
      u_len = std::max(u_len, c.unit_label.size());
    }
  }
  std::string& out = text_.buffer();
  for (const std::vector<Ranked>& kept : best_) {
    std::string alt;
    for (const Ranked& r : kept) {
      const PmrepColumn& c = columns[r.column];
      const std::string name = absl::StrReplaceAll(r.name, {{"\n", " "}});
      if (alt_) {
        alt = alt.empty() ? absl::StrCat(c.metric_name, name.empty() ? ",," : ",,\"'", name,
                                         name.empty() ? "" : "'\"")
                          : absl::StrCat(alt.substr(0, alt.size() - 1), ",'", name, "'\"");
        continue;
      }
      absl::StrAppend(&out, Left(c.metric_name, m_len + 1), Left(delimiter_, 2),
                      Left(name, i_len + 1), Left(delimiter_, 2), RightPad(c.unit_label, u_len),
                      " ", delimiter_, RightPad(text(r), v_len + 1), "\n");
    }
    if (!alt.empty()) absl::StrAppend(&out, alt, "\n");
  }
  return text_.Finish();
}

}  // namespace mmvlog::archiver

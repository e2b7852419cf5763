#include "archiver/replay/shown_numbers.h"

#include "archiver/replay/display_units.h"

namespace mmvlog::archiver {

ShownNumbers::ShownNumbers(const ColumnSet& columns, bool raw, const std::vector<uint8_t>* shown)
    : number(columns.size()), rate(columns.size()), multiplier(columns.size(), 1) {
  for (size_t c = 0; c < columns.size(); ++c) {
    number[c] = shown == nullptr || (c < shown->size() && (*shown)[c] != 0);
    rate[c] = !raw && columns.desc(c).sem == format::kSemCounter && number[c];
    multiplier[c] = RateMultiplier(columns.desc(c));
  }
}

}  // namespace mmvlog::archiver

// mmvlog's side of tests/pcp:label_json_oracle_test: label sets built as
// pcp_labels_tool builds them with libpcp's __pmAddLabels, here with
// format::MakeLabelSet (one per payload, laid out as written, as pmdammv's
// first __pmAddLabels keeps it; a refused payload is left out, as pmdammv
// leaves it) and format::MergeLabelSets. Same input and output:
//   input   FLAGS<TAB>JSON[<TAB>JSON...]
//   output  "refused", or JSON<TAB>name,namelen,flags,value,valuelen;...
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_split.h"
#include "format/archive/archive_format.h"
#include "format/archive/label_json.h"
#include "format/archive/label_merge.h"

int main() {
  using mmvlog::format::LabelSet;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    const uint8_t flags = static_cast<uint8_t>(std::stoi(fields[0]));
    std::vector<LabelSet> sets;
    for (size_t i = 1; i < fields.size(); ++i) {
      absl::StatusOr<LabelSet> set =
          mmvlog::format::MakeLabelSet(mmvlog::format::kInNull, fields[i], flags,
                                       mmvlog::format::LabelOrder::kAsWritten);
      if (set.ok()) sets.push_back(std::move(*set));
    }
    absl::StatusOr<LabelSet> merged =
        sets.empty() ? absl::InvalidArgumentError("every payload refused")
                     : mmvlog::format::MergeLabelSets(mmvlog::format::kInNull, sets);
    if (!merged.ok()) {
      std::printf("refused\n");
      continue;
    }
    std::printf("%s\t", merged->json.c_str());
    for (size_t i = 0; i < merged->labels.size(); ++i) {
      const auto& l = merged->labels[i];
      std::printf("%s%u,%u,%u,%u,%u", i ? ";" : "", l.name_offset, l.name_length, l.flags,
                  l.value_offset, l.value_length);
    }
    std::printf("\n");
  }
  return 0;
}

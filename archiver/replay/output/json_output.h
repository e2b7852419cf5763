// replay -o json: one JSON object a line per row: {"time": the time as
// text, "timestamp": seconds.nanoseconds since the epoch, "values": {label:
// value}} with numbers as CSV shows them (counters as rates, null where no
// rate can be given; raw: exact), strings as JSON strings, aggregates and
// event arrays decoded (decoded_value.h); cells without a value are left
// out. A <mark> is {"time":..., "timestamp":..., "mark":true}.
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_JSON_OUTPUT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_JSON_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "archiver/replay/output.h"

namespace mmvlog::archiver {

class JsonOutput : public Output {
 public:
  JsonOutput(std::FILE* to, int64_t max_rows) : text_(to), max_rows_(max_rows) {}

  void Begin(const ReplayHeader& header) override;
  bool TakeRow(const Row& row) override;
  absl::Status End(const ReplayEnd& end) override;
  void Flush() override { text_.Flush(); }

 private:
  OutputText text_;
  int64_t max_rows_;
  int64_t rows_ = 0;
  std::vector<std::string> keys_;  // per column: its label as a JSON string
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_JSON_OUTPUT_H_

// replay -o dump: every record in the window, as pmdumplog -a lists them:
// its time (nanoseconds) and value count, then one line per value: PMID,
// metric, instance (id and name) and value (aggregates and event arrays
// decoded as pmdumplog prints them); a <mark> as "<mark>". Records of no
// chosen metric (the prologue without -o dump's logger records) are left
// out.
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_DUMP_OUTPUT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_DUMP_OUTPUT_H_

#include <cstdio>

#include "archiver/replay/output.h"

namespace mmvlog::archiver {

class DumpOutput : public Output {
 public:
  explicit DumpOutput(std::FILE* to) : text_(to) {}

  void Record(const Sample& s) override;
  bool WantsRecords() const override { return true; }
  absl::Status End(const ReplayEnd& end) override;
  void Flush() override { text_.Flush(); }

 private:
  OutputText text_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_DUMP_OUTPUT_H_

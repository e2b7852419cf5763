// What every replay output is: told about the recording first, then given
// the records (for the dump) and the rows (everything else) one at a time,
// in time order, then ended. An output keeps what its format needs across
// rows (running statistics, a plot's down-sampled series), never the rows.
//
// Text goes through an OutputText: built in memory and written to its
// stream in large pieces (a row of 100k cells is over a megabyte).
#ifndef MMVLOG_ARCHIVER_REPLAY_OUTPUT_H_
#define MMVLOG_ARCHIVER_REPLAY_OUTPUT_H_

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "archiver/replay/columns.h"
#include "archiver/replay/row.h"
#include "archiver/replay/sample_stream.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {

struct ReplayHeader {
  const ColumnSet* columns = nullptr;
  std::vector<std::string> archives;  // as named, in time order
  std::string host;
  absl::TimeZone zone;
  bool raw = false;   // counters as stored, not as rates
  bool grid = false;  // rows on a -t grid
  absl::Duration step;
  // The window shown (rows outside it are not given): InfinitePast /
  // InfiniteFuture when open.
  absl::Time from = absl::InfinitePast(), to = absl::InfiniteFuture();
};

// How the reading went, for the outputs that report it (the summary).
struct ReplayEnd {
  std::vector<std::string> archives;  // read, in order
  std::string host;
};

class Output {
 public:
  virtual ~Output() = default;
  virtual void Begin(const ReplayHeader& header) { header_ = header; }
  // A record in the window (a <mark> too).
  virtual void Record(const Sample& /*s*/) {}
  // A row in the window. False once the output wants no more (its -s).
  virtual bool TakeRow(const Row& /*row*/) { return true; }
  // Whether rows of records whose chosen metrics' sets hold no value
  // (Row::empty_sets) are wanted: pmval's table shows them, pmrep's do not.
  virtual bool WantsEmptyRows() const { return false; }
  // Writes what is left. Errors: the output could not be written.
  virtual absl::Status End(const ReplayEnd& end) = 0;
  // Writes what is buffered (following a recording: rows as they come).
  virtual void Flush() {}

 protected:
  ReplayHeader header_;
};

// Text written to a stdio stream in large pieces.
class OutputText {
 public:
  explicit OutputText(std::FILE* to) : to_(to) {}
  ~OutputText() { Flush(); }
  std::string& buffer() { return text_; }
  void Append(absl::string_view s) { text_.append(s.data(), s.size()); }
  // Writes when a megabyte is buffered.
  void MaybeFlush() {
    if (text_.size() >= (size_t{1} << 20)) Flush();
  }
  void Flush() {
    if (!text_.empty()) std::fwrite(text_.data(), 1, text_.size(), to_);
    text_.clear();
    std::fflush(to_);
  }

 private:
  std::FILE* to_;
  std::string text_;
};

// "2026-11-24 10:05:00.250" (digits 3) or with nanoseconds (digits 9).
std::string TimeText(format::Timestamp t, absl::TimeZone zone, int digits = 3);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_H_

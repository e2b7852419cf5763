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
  // The window as pmrep reports it (-x): its origin (-S, -O, else the
  // archives' start) and end (-T, else the archives'), and the last
  // record's time. The ends are InfiniteFuture unless read
  // (ReplayPlan::wants_end).
  absl::Time origin = absl::InfinitePast(), finish = absl::InfiniteFuture(),
             last_record = absl::InfiniteFuture();
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
  // Whether Record needs Sample::record (every value of the record).
  virtual bool WantsRecords() const { return false; }
  // A row in the window. False once the output wants no more (its -s).
  virtual bool TakeRow(const Row& /*row*/) { return true; }
  // Whether rows at the records without values (records whose chosen
  // metrics' sets hold none: Row::empty_sets) are wanted: pmval's table
  // shows them, pmrep's outputs do not. Grid rows are always given.
  virtual bool WantsEmptyRows() const { return false; }
  // Writes what is left. Errors: the output could not be written.
  virtual absl::Status End(const ReplayEnd& end) = 0;
  // Writes what is buffered (following a recording: rows as they come).
  virtual void Flush() {}

 protected:
  ReplayHeader header_;
};

// Text written to a stdio stream in large pieces.
//
// Every write is checked: the first failure sticks (ok() turns false and
// nothing more is written), and Finish() reports it, naming the stream, so
// a full disk ends replay with an error rather than a silent loss.
class OutputText {
 public:
  // `name` says which stream it is in errors ("standard output").
  explicit OutputText(std::FILE* to, std::string name = "standard output")
      : to_(to), name_(std::move(name)) {}
  ~OutputText() { Flush(); }
  std::string& buffer() { return text_; }
  void Append(absl::string_view s) { text_.append(s.data(), s.size()); }
  // Writes when a megabyte is buffered.
  void MaybeFlush() {
    if (text_.size() >= (size_t{1} << 20)) Flush();
  }
  // Writes what is buffered and flushes the stream.
  void Flush();
  // False once a write failed.
  bool ok() const { return error_ == 0; }
  // Flush(), then the first error: Cancelled when the reader went away
  // (EPIPE: replay | head), else the errno's status naming the stream.
  absl::Status Finish();

 private:
  std::FILE* to_;
  std::string name_;
  std::string text_;
  int error_ = 0;  // errno of the first failed write
};

// The status of a write to `what` that failed with `err`: Cancelled for
// EPIPE (a reader that went away, which replay takes quietly, as pmrep).
absl::Status WriteError(int err, absl::string_view what);

// "2026-11-24 10:05:00.250" (digits 3) or with nanoseconds (digits 9).
std::string TimeText(format::Timestamp t, absl::TimeZone zone, int digits = 3);

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_OUTPUT_H_

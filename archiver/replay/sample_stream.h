// SampleStream: the records of an ArchiveSet, one at a time, in time order,
// as the values of a ColumnSet's columns. Memory follows the width of the
// recording (one record, its values), never its length.
//
// Between two archives it gives a <mark> 1 ms after the earlier one's last
// record, as libpcp reads one in a multi-archive context (logutil.c), so no
// value is interpolated or rated across the join. An archive that cannot
// be opened is named in problems() and skipped; damage met inside one (a
// bad record, a broken compressed stream) ends that archive, is named in
// damaged() with the file and offset, and the next archive is read.
//
// SeekBefore(from) enters each archive at its last index entry before
// `from`, so a late window costs what it holds. What a consumer derives at
// or after `from` is then as a whole read gives it provided every column
// has had a value, or a <mark> came, between the entry and `from`; the
// stream checks that when it first passes `from` and, if not, starts again
// from the beginning and counts it in restarts() (a consumer drops what it
// derived from the samples before).
//
// Follow(): at the end, instead of ending, the stream looks again (new
// records, volumes and archives of a recording still being written) each
// time Next() is called after it said there is nothing new.
#ifndef MMVLOG_ARCHIVER_REPLAY_SAMPLE_STREAM_H_
#define MMVLOG_ARCHIVER_REPLAY_SAMPLE_STREAM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "archiver/replay/archive_set.h"
#include "archiver/replay/columns.h"
#include "archiver/replay/value.h"
#include "archiver/store/archive_reader.h"
#include "format/archive/archive_result.h"

namespace mmvlog::archiver {

struct SampleValue {
  uint32_t column = 0;
  ValueKind kind = kNoValue;
  bool off_null = false;  // a singular metric's value stored under an instance
  uint64_t bits = 0;  // kString: the index of its bytes in Sample::strings
};

// A chosen metric's value of an instance that has no column (no indom
// record names it): pmrep shows none, but libpcp's derived metrics read it.
struct UnnamedValue {
  uint32_t metric = 0;   // in the ColumnSet
  int32_t inst = 0;
  ValueKind kind = kNoValue;
  uint32_t before = 0;  // the metric's values with a column before it in the record
  uint64_t bits = 0;    // kString: the index of its bytes in Sample::strings
};

// A set of a record: its metric and its count of values (< 0: PCP's error
// code, as in the record).
struct SampleSet {
  uint32_t pmid = 0;
  int32_t numval = 0;
};

struct Sample {
  format::Timestamp time;
  bool mark = false;          // a <mark> record, or the join of two archives
  bool virtual_mark = false;  // the join
  bool chosen = false;        // holds a value of a chosen column
  bool listed = false;        // holds a set of a chosen metric, values or not
  bool unnamed = false;       // a chosen metric's value without a column: unnamed_values
  bool off_null = false;      // a value with SampleValue::off_null
  std::vector<SampleValue> values;  // the chosen columns', in record order
  std::vector<UnnamedValue> unnamed_values;  // in record order
  std::vector<std::string> strings;
  // The record's sets, chosen or not, with or without values (none for
  // the join of two archives).
  std::vector<SampleSet> sets;
  // With SampleStream::KeepRecords, the record itself (nullptr for the join
  // of two archives), valid until the next sample: what the dump shows.
  const format::DecodedResult* record = nullptr;
};

class SampleStream {
 public:
  // Keeps references to both, which must outlive it.
  SampleStream(const std::vector<ArchiveEntry>& archives, const ColumnSet& columns);
  ~SampleStream();

  void SeekBefore(format::Timestamp from);
  // Reads on from where `other` is: the samples it has not given yet (a
  // look ahead, for an Interpolator waiting on a sparse column). Call
  // before the first Next.
  void ResumeFrom(const SampleStream& other);
  // Where a stream resuming after the sample given last starts:
  // ResumeFrom's state, apart, so that a read ahead can hand it over with
  // each sample it gives (the stream itself is ahead by then).
  struct ResumePoint {
    size_t next_archive = 0;
    std::vector<std::string> extra_bases;
    std::optional<format::Timestamp> last_time, pending_join;
    bool exhausted = false;
    std::string host;
    bool reading = false;  // an archive is open: the rest below
    bool follow = false;
    std::shared_ptr<const ArchiveCatalog> catalog;
    std::string reader_base;
    format::IndexEntry at;
  };
  void PointAfterLast(ResumePoint* point) const;
  // ResumeFrom a stream that was at `point`.
  void ResumeAt(const ResumePoint& point);
  // Keep looking for more at the end (see the class comment).
  void Follow() { follow_ = true; }
  // Give each record decoded whole in Sample::record (otherwise a record of
  // a layout seen lately is read without decoding it whole).
  void KeepRecords() { keep_records_ = true; }

  // The next sample, valid until the next call; nullptr at the end (with
  // Follow: nothing new now, ask again later).
  const Sample* Next();
  // Trades the sample Next gave last for `*other`, a sample buffer given
  // back, with `*values_of`, what the stream said of that buffer's values
  // when it traded it away (0 for a new buffer): a reader that keeps
  // samples takes them without a copy of their values.
  void TradeSample(Sample* other, uint64_t* values_of) {
    std::swap(sample_, *other);
    std::swap(values_of_, *values_of);
  }

  const std::string& host() const { return host_; }
  const std::vector<std::string>& problems() const { return problems_; }
  const std::vector<std::string>& damaged() const { return damaged_; }
  // Torn tails met (a recording that ended in a crash): warnings.
  const std::vector<std::string>& warnings() const { return warnings_; }
  uint64_t restarts() const { return restarts_; }
  // The names of the archives read so far, in order.
  const std::vector<std::string>& read_archives() const { return read_; }

 private:
  struct PmidInfo;
  struct Slot;
  struct Shape;
  bool OpenArchive(size_t i);
  void CloseArchive(bool at_end);
  // Reads the next record into record_ (its timestamp alone when one of
  // shapes_ has its layout: shaped_ then names it); false after the last.
  absl::StatusOr<bool> ReadRecord();
  void Decode(const format::DecodedResult& r, Shape* learn);
  void DecodeShaped(const Shape& shape);
  PmidInfo& Pmid(uint32_t pmid);
  bool CoveredAtFrom() const;
  void Restart();
  bool LookAgain();

  const std::vector<ArchiveEntry>& archives_;
  const ColumnSet& columns_;
  std::vector<std::string> extra_bases_;  // archives found while following
  std::string host_;
  std::vector<std::string> problems_, damaged_, warnings_, read_;
  // Records of the open archive skipped for a time before the last one
  // given (pmlogcheck's "timestamp went backwards"), and where the first
  // was: told in warnings_ when the archive closes.
  uint64_t backward_ = 0;
  std::string backward_first_;
  size_t next_archive_ = 0;
  std::unique_ptr<ArchiveReader> reader_;
  std::string reader_base_;
  absl::flat_hash_map<uint32_t, std::unique_ptr<PmidInfo>> pmids_;
  format::DecodedResult record_;
  // The frame record_ was read from, valid until the next read, and the
  // shape it had if one was known (record_ then holds its timestamp only).
  format::Frame frame_;
  const Shape* shaped_ = nullptr;
  // The layouts of the current archive's records seen last, and where their
  // chosen values lie, so a record of one of them is read without decoding.
  std::vector<std::unique_ptr<Shape>> shapes_;
  uint64_t reads_ = 0;
  uint64_t shape_ids_ = 0;
  uint64_t values_of_ = 0;  // the shape whose values sample_.values holds (0: none)
  Sample sample_;
  std::optional<format::Timestamp> last_time_;  // of the last record read
  std::optional<format::Timestamp> pending_join_;  // a join mark owed before the next record
  // Seeking: the window's start, and what was seen between entry and it.
  std::optional<format::Timestamp> seek_from_;
  bool checked_ = false;
  std::vector<uint8_t> covered_;
  bool mark_seen_ = false;
  uint64_t restarts_ = 0;
  // Following.
  bool follow_ = false;
  bool keep_records_ = false;
  std::optional<format::IndexEntry> resume_at_;  // of the last archive
  bool exhausted_ = false;
  bool held_ = false;  // record_ is read but not yet given (a join mark went first)
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_REPLAY_SAMPLE_STREAM_H_

// ArchiveReader reads volumes a few megabytes at a time. Every result, torn
// tail and damaged record must come out as reading the whole file at once
// gives them: checked against a RecordScanner + DecodeResult pass over the
// whole volume in memory, with records small and large (one larger than a
// read), uncompressed and compressed.
#include "archiver/store/archive_reader.h"

#include <unistd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "archiver/store/archive_writer.h"
#include "archiver/store/compress.h"
#include "archiver/file/posix_file.h"
#include "archiver/mmv/guarded_mapping.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_framing.h"
#include "format/archive/archive_result.h"
#include "format/endian.h"
#include "tests/archiver/archive_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::TempBase;
using ::mmvlog::testing::TestArchiveOptions;

using ::mmvlog::testing::IsOkAndHolds;
using ::mmvlog::testing::StatusIs;

constexpr uint32_t kIndom = format::InDomBuild(70, 5);

// One result of `values` U64 values (instances 0..values-1 of one metric)
// at second `sec`.
format::Result Sample(int64_t sec, int values) {
  format::Result r;
  r.timestamp = {sec, 250'000'000};
  format::ValueSet s;
  s.pmid = format::PmidBuild(70, 1, 1);
  s.type = format::kTypeU64;
  for (int i = 0; i < values; ++i) {
    format::ResultValue v;
    v.inst = i;
    v.u64 = static_cast<uint64_t>(sec) * 1'000'000 + static_cast<uint64_t>(i);
    s.values.push_back(v);
  }
  r.sets.push_back(s);
  return r;
}

// Writes an archive whose results hold these numbers of values (0: a mark);
// returns its base name. 230,000 values make a 4.6 MB record, larger than
// one read of the reader (4 MiB).
std::string WriteArchive(const std::string& name, const std::vector<int>& sizes) {
  const std::string base = TempBase(name);
  auto w = ArchiveWriter::Create(base, TestArchiveOptions(3), {1'700'000'000, 0});
  EXPECT_OK(w);
  if (!w.ok()) return base;
  format::Desc d;
  d.pmid = format::PmidBuild(70, 1, 1);
  d.type = format::kTypeU64;
  d.sem = format::kSemCounter;
  d.indom = kIndom;
  d.names = {"test.values"};
  EXPECT_OK((*w)->AddDesc(d));
  format::InDom in;
  in.indom = kIndom;
  in.timestamp = {1'700'000'000, 0};
  int most = 0;
  for (int n : sizes) most = std::max(most, n);
  for (int i = 0; i < most; ++i) in.instances.push_back({i, absl::StrCat("i", i)});
  EXPECT_OK((*w)->AddInDom(in));
  int64_t sec = 1'700'000'000;
  for (int n : sizes) {
    ++sec;
    if (n == 0) {
      EXPECT_OK((*w)->AppendMark({sec, 0}));
    } else {
      EXPECT_OK((*w)->AppendResult(Sample(sec, n)));
    }
  }
  EXPECT_OK((*w)->Close());
  return base;
}

// What one result holds, to compare: timestamp, and per set pmid and the
// (inst, value) pairs.
struct Seen {
  format::Timestamp time;
  std::vector<uint32_t> pmids;
  std::vector<std::pair<int32_t, uint64_t>> values;
  bool operator==(const Seen&) const = default;
};

Seen Summarize(const format::DecodedResult& r) {
  Seen s;
  s.time = r.timestamp;
  for (const format::DecodedValueSet& set : r.sets) {
    s.pmids.push_back(set.pmid);
    for (const format::DecodedValue& v : set.values) {
      absl::StatusOr<format::ResultValue> rv = format::ValueFromDecoded(v, set.valfmt, format::kTypeU64);
      s.values.push_back({v.inst, rv.ok() ? rv->u64 : 0});
    }
  }
  return s;
}

// The whole volume in memory, scanned and decoded: the reference.
struct Reference {
  std::vector<Seen> results;
  std::optional<std::string> torn;  // the warning for a torn tail
  absl::Status error;               // a damaged record
};

Reference ReadWhole(const std::string& volume) {
  Reference ref;
  absl::StatusOr<std::string> bytes = ReadWholeFile(volume);
  EXPECT_OK(bytes);
  if (!bytes.ok()) return ref;
  std::vector<uint8_t> data(bytes->begin(), bytes->end());
  format::RecordScanner scanner(data, 0);
  (void)scanner.Next();  // the label
  for (;;) {
    const uint64_t at = scanner.offset();
    absl::StatusOr<std::optional<format::Frame>> frame = scanner.Next();
    if (!frame.ok()) {
      if (absl::IsOutOfRange(frame.status())) {
        ref.torn = absl::StrCat(volume, ": ", frame.status().message(), ": data ends at offset ", at);
      } else {
        ref.error = frame.status();
      }
      return ref;
    }
    if (!frame->has_value()) return ref;
    absl::StatusOr<format::DecodedResult> r = format::DecodeResult(3, (*frame)->payload, (*frame)->offset);
    EXPECT_OK(r);
    if (!r.ok()) return ref;
    ref.results.push_back(Summarize(*r));
  }
}

// Everything the reader gives for `base`; its warnings and the error that
// stopped it in `warnings` and `error`.
std::vector<Seen> ReadStreamed(const std::string& base, std::vector<std::string>* warnings,
                               absl::Status* error) {
  std::vector<Seen> out;
  absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(base);
  EXPECT_OK(r);
  if (!r.ok()) return out;
  format::DecodedResult result;
  for (;;) {
    absl::StatusOr<bool> more = (*r)->NextInto(&result);
    if (!more.ok()) {
      *error = more.status();
      break;
    }
    if (!*more) break;
    out.push_back(Summarize(result));
  }
  *warnings = (*r)->warnings();
  return out;
}

const std::vector<int>& Sizes() {
  // Small records around large ones: records straddle the reads, and one
  // is larger than a read.
  static const std::vector<int>* sizes = new std::vector<int>{
      1, 5, 0, 100, 120'000, 3, 230'000, 7, 0, 90'000, 2, 1000, 1};
  return *sizes;
}

TEST(ArchiveReader, ReadsEveryResultAsAWholeFileScanDoes) {
  const std::string base = WriteArchive("whole", Sizes());
  const Reference ref = ReadWhole(base + ".0");
  ASSERT_EQ(ref.results.size(), Sizes().size());
  std::vector<std::string> warnings;
  absl::Status error;
  EXPECT_EQ(ReadStreamed(base, &warnings, &error), ref.results);
  EXPECT_OK(error);
  EXPECT_THAT(warnings, ::testing::IsEmpty());
  // Next() gives the same as NextInto().
  absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(base);
  ASSERT_OK(r);
  std::vector<Seen> seen;
  for (;;) {
    absl::StatusOr<std::optional<format::DecodedResult>> next = (*r)->Next();
    ASSERT_OK(next);
    if (!next->has_value()) break;
    seen.push_back(Summarize(**next));
  }
  EXPECT_EQ(seen, ref.results);
}

TEST(ArchiveReader, CompressedVolumesReadTheSame) {
  const std::string base = WriteArchive("zst", {1, 230'000, 2, 0, 5});
  const Reference ref = ReadWhole(base + ".0");
  ASSERT_OK(CompressFile(base + ".0", 1));
  std::vector<std::string> warnings;
  absl::Status error;
  EXPECT_EQ(ReadStreamed(base, &warnings, &error), ref.results);
  EXPECT_OK(error);
}

// A plain volume is read through a window of its mapping (4 MB, moved
// along it): records straddling the windows' ends, and one larger than the
// rest of a window, read as a whole-file scan reads them.
TEST(ArchiveReader, AVolumeLargerThanItsWindowReadsAsAWholeFileScanDoes) {
  std::vector<int> sizes;
  for (int i = 0; i < 2; ++i) {  // 14 MB: the window moves a few times
    for (int n : {230'000, 7, 120'000, 0, 1}) sizes.push_back(n);
  }
  const std::string base = WriteArchive("windows", sizes);
  const Reference ref = ReadWhole(base + ".0");
  ASSERT_EQ(ref.results.size(), sizes.size());
  std::vector<std::string> warnings;
  absl::Status error;
  EXPECT_EQ(ReadStreamed(base, &warnings, &error), ref.results);
  EXPECT_OK(error);
  EXPECT_THAT(warnings, ::testing::IsEmpty());
}

// With every entry of the SIGBUS handler's table taken (64 volumes read at
// once), a volume is read as a stream instead, alike.
TEST(ArchiveReader, AVolumeReadsAlikeWhenNoMoreCanBeMapped) {
  const std::string base = WriteArchive("unmapped", Sizes());
  const Reference ref = ReadWhole(base + ".0");
  absl::StatusOr<FileDescriptor> fd = OpenForRead(base + ".0");
  ASSERT_OK(fd);
  std::vector<GuardedMapping> taken;
  for (;;) {
    absl::StatusOr<GuardedMapping> m = GuardedMapping::MapPatched(fd->get(), 0, 4096, "taken");
    if (!m.ok()) break;
    taken.push_back(std::move(*m));
  }
  ASSERT_EQ(taken.size(), static_cast<size_t>(GuardedMapping::kMostPatched));
  std::vector<std::string> warnings;
  absl::Status error;
  EXPECT_EQ(ReadStreamed(base, &warnings, &error), ref.results);
  EXPECT_OK(error);
}

// A volume cut short while it is read in place: the records returned
// before are as written, the rest is DataLoss naming the volume and where
// reading was, and never a SIGBUS, whether the cut is found by the reader
// or by its caller reading a payload it was given.
TEST(ArchiveReader, AVolumeCutShortWhileReadIsDataLoss) {
  for (bool caller_reads : {false, true}) {
    SCOPED_TRACE(caller_reads);
    const std::string base = WriteArchive(caller_reads ? "cut_read" : "cut", Sizes());
    const Reference ref = ReadWhole(base + ".0");
    absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(base);
    ASSERT_OK(r);
    format::DecodedResult result;
    std::vector<Seen> seen;
    for (int i = 0; i < 4; ++i) {
      ASSERT_THAT((*r)->NextInto(&result), IsOkAndHolds(true));
      seen.push_back(Summarize(result));
    }
    absl::StatusOr<std::optional<format::Frame>> frame = (*r)->NextFrame();  // 120,000 values
    ASSERT_OK(frame);
    ASSERT_TRUE(frame->has_value());
    const uint64_t cut = (*frame)->offset + 1000;
    ASSERT_EQ(::truncate((base + ".0").c_str(), static_cast<off_t>(cut)), 0);
    absl::Status error;
    if (caller_reads) {
      // The payload past the cut reads as zeros; decoding it is DataLoss.
      uint64_t sum = 0;
      for (uint8_t b : (*frame)->payload) sum += b;
      EXPECT_GT(sum, 0u);
      EXPECT_THAT((*r)->Intact(), StatusIs(absl::StatusCode::kDataLoss));
      error = (*r)->DecodeFrame(**frame, &result);
    } else {
      absl::StatusOr<bool> more = (*r)->NextInto(&result);
      ASSERT_FALSE(more.ok());
      error = more.status();
    }
    EXPECT_THAT(error, StatusIs(absl::StatusCode::kDataLoss,
                                ::testing::AllOf(::testing::HasSubstr(base + ".0: offset "),
                                                 ::testing::HasSubstr(absl::StrCat(
                                                     "cut short to ", cut, " bytes")))));
    // The reader says so too, and then reads nothing more.
    if (caller_reads) EXPECT_THAT((*r)->NextInto(&result), StatusIs(absl::StatusCode::kDataLoss));
    EXPECT_THAT((*r)->NextInto(&result), IsOkAndHolds(false));
    EXPECT_EQ(seen, std::vector<Seen>(ref.results.begin(), ref.results.begin() + 4));
  }
}

// Tests of the error paths follow: damage found while reading in pieces
// must be reported as a whole-file scan reports it.

TEST(ArchiveReader, TornTailsAnywhereAreReportedAsAWholeFileScanDoes) {
  const std::string base = WriteArchive("torn", Sizes());
  const std::string volume = base + ".0";
  absl::StatusOr<std::string> bytes = ReadWholeFile(volume);
  ASSERT_OK(bytes);
  const uint64_t size = bytes->size();
  // Cut inside the last records, inside a length field, exactly after a
  // record, and inside the big record.
  for (uint64_t cut : {size - 1, size - 3, size - 30, size - 1'800'003, size / 2 + 1}) {
    SCOPED_TRACE(cut);
    ASSERT_OK(WriteFileAtomically(volume, std::span<const uint8_t>(
                                              reinterpret_cast<const uint8_t*>(bytes->data()), cut)));
    const Reference ref = ReadWhole(volume);
    std::vector<std::string> warnings;
    absl::Status error;
    EXPECT_EQ(ReadStreamed(base, &warnings, &error), ref.results);
    EXPECT_OK(error);
    if (ref.torn) {
      EXPECT_THAT(warnings, ::testing::Contains(*ref.torn));
    } else {
      EXPECT_THAT(warnings, ::testing::IsEmpty());
    }
  }
}

TEST(ArchiveReader, DamagedRecordPastTheFirstReadIsDataLossAsAWholeFileScanFindsIt) {
  const std::string base = WriteArchive("damaged", Sizes());
  const std::string volume = base + ".0";
  absl::StatusOr<std::string> bytes = ReadWholeFile(volume);
  ASSERT_OK(bytes);
  // Find the record after the 230,000-value one and break its trailer,
  // then (in a second round) its leading length.
  std::vector<uint8_t> data(bytes->begin(), bytes->end());
  format::RecordScanner scanner(data, 0);
  std::vector<std::pair<uint64_t, uint64_t>> records;  // offset, size
  for (;;) {
    absl::StatusOr<std::optional<format::Frame>> f = scanner.Next();
    ASSERT_OK(f);
    if (!f->has_value()) break;
    records.push_back({(*f)->offset, (*f)->size()});
  }
  ASSERT_EQ(records.size(), Sizes().size() + 1);  // the label too
  const auto [at, length] = records[8];           // after the 230k record
  ASSERT_GT(at, uint64_t{4} << 20);
  for (int round = 0; round < 2; ++round) {
    std::vector<uint8_t> bad = data;
    if (round == 0) {
      format::StoreBig32(bad.data() + at + length - 4, 12345);
    } else {
      format::StoreBig32(bad.data() + at, 5);  // below the minimum
    }
    ASSERT_OK(WriteFileAtomically(volume, bad));
    const Reference ref = ReadWhole(volume);
    ASSERT_FALSE(ref.error.ok());
    std::vector<std::string> warnings;
    absl::Status error;
    EXPECT_EQ(ReadStreamed(base, &warnings, &error), ref.results);
    EXPECT_THAT(error, StatusIs(absl::StatusCode::kDataLoss,
                                ::testing::Eq(absl::StrCat(volume, ": ", ref.error.message()))));
  }
}

TEST(ArchiveReader, ALengthPastTheEndOfTheFileIsATornTail) {
  // A damaged length field that claims gigabytes: reading stops at the end
  // of the file, with the torn-tail warning (no attempt to buffer 4 GB).
  const std::string base = WriteArchive("huge_length", Sizes());
  const std::string volume = base + ".0";
  absl::StatusOr<std::string> bytes = ReadWholeFile(volume);
  ASSERT_OK(bytes);
  std::vector<uint8_t> data(bytes->begin(), bytes->end());
  format::RecordScanner scanner(data, 0);
  uint64_t at = 0;
  for (int i = 0; i < 10; ++i) {
    absl::StatusOr<std::optional<format::Frame>> f = scanner.Next();
    ASSERT_OK(f);
    at = scanner.offset();
  }
  format::StoreBig32(data.data() + at, 0xfffffff0);
  ASSERT_OK(WriteFileAtomically(volume, data));
  const Reference ref = ReadWhole(volume);
  ASSERT_TRUE(ref.torn.has_value());
  std::vector<std::string> warnings;
  absl::Status error;
  EXPECT_EQ(ReadStreamed(base, &warnings, &error), ref.results);
  EXPECT_OK(error);
  EXPECT_THAT(warnings, ::testing::Contains(*ref.torn));
}

}  // namespace
}  // namespace mmvlog::archiver

// Oracle tests of the archive record codecs against real PCP: runs
// //tests/pcp:logimport_writer (LOGIMPORT, libpcp_import 6.0.3) with
// PCP_ARCHIVE_VERSION=2 and =3, then checks that
//   - our decoders read PCP's labels, results, <mark> and index entries
//     exactly as the writer states it wrote them, and
//   - our encoders reproduce PCP's bytes: every label (given PCP's pid),
//     every result record, every index entry, and so the whole volume.
// The expected content below mirrors the comment in logimport_writer.c.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_framing.h"
#include "format/archive/archive_index.h"
#include "format/archive/archive_label.h"
#include "format/archive/archive_result.h"
#include "tests/format/archive_test_util.h"
#include "tests/testing/status_matchers.h"

extern char** environ;

namespace mmvlog::format {
namespace {

using ::mmvlog::format::testing::HexDump;
using ::mmvlog::testing::IsOk;

struct Archive {
  std::vector<uint8_t> volume, meta, index;
};

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in),
                              std::istreambuf_iterator<char>());
}

// Runs the LOGIMPORT writer once per version and keeps the three files.
const Archive& PcpArchive(int version) {
  static std::map<int, Archive>* archives = new std::map<int, Archive>;
  auto it = archives->find(version);
  if (it != archives->end()) return it->second;

  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const char* tmpdir = std::getenv("TEST_TMPDIR");
  EXPECT_TRUE(srcdir && workspace && tmpdir) << "run under bazel test";
  const std::string writer =
      absl::StrCat(srcdir, "/", workspace, "/tests/pcp/logimport_writer");
  const std::string base = absl::StrCat(tmpdir, "/logimport_v", version);
  setenv("PCP_ARCHIVE_VERSION", absl::StrCat(version).c_str(), 1);
  std::string arg0 = writer, arg1 = base;
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid;
  int status = -1;
  if (posix_spawn(&pid, writer.c_str(), nullptr, nullptr, argv, environ) == 0) {
    waitpid(pid, &status, 0);
  }
  unsetenv("PCP_ARCHIVE_VERSION");
  EXPECT_EQ(status, 0) << writer << " " << base << " failed";
  Archive& a = (*archives)[version];
  a.volume = ReadFile(base + ".0");
  a.meta = ReadFile(base + ".meta");
  a.index = ReadFile(base + ".index");
  return a;
}

size_t LabelSize(int version) {
  return kFrameOverhead +
         (version == 2 ? kLabelV2PayloadSize : kLabelV3PayloadSize);
}

uint32_t Pmid(uint32_t cluster, uint32_t item) {
  return PmidBuild(245, cluster, item);
}

ResultValue V(int32_t inst = kInNull) {
  ResultValue v;
  v.inst = inst;
  return v;
}
ResultValue I(int64_t x, int32_t inst = kInNull) {
  ResultValue v = V(inst);
  v.i64 = x;
  return v;
}
ResultValue U(uint64_t x) {
  ResultValue v = V();
  v.u64 = x;
  return v;
}
ResultValue F(double x) {
  ResultValue v = V();
  v.f64 = x;
  return v;
}
ResultValue B(std::string x, int32_t inst = kInNull) {
  ResultValue v = V(inst);
  v.bytes = std::move(x);
  return v;
}
ValueSet Set(uint32_t pmid, int32_t type, std::vector<ResultValue> values,
             int32_t error = 0) {
  ValueSet s;
  s.pmid = pmid;
  s.type = type;
  s.error = error;
  s.values = std::move(values);
  return s;
}

// What logimport_writer.c writes, record by record.
std::vector<Result> Expected() {
  constexpr int32_t kErrValue = -12345 - 6;  // PM_ERR_VALUE
  Result r1;
  r1.timestamp = {1700000000, 250'000'000};
  r1.sets = {
      Set(Pmid(0, 0), kType32, {I(-5)}),
      Set(Pmid(0, 1), kTypeU32, {U(4000000000u)}),
      Set(Pmid(0, 2), kType64, {I(-123456789012)}),
      Set(Pmid(0, 3), kTypeU64, {U(18446744073709551615u)}),
      Set(Pmid(0, 4), kTypeFloat, {F(1.5)}),
      Set(Pmid(0, 5), kTypeDouble, {F(2.25)}),
      Set(Pmid(0, 6), kTypeString, {B("hello")}),
      Set(Pmid(0, 7), kType64, {I(10, 1), I(-20, 2), I(30, 3)}),
  };
  Result r2;
  r2.timestamp = {1700000001, 5'000};
  r2.sets = {
      Set(Pmid(1, 0), kTypeAggregate, {B("\x01\x02\x03")}),
      Set(Pmid(0, 0), kType32, {}, kErrValue),
      Set(Pmid(0, 1), kTypeU32, {}),
      Set(Pmid(1, 1), kTypeAggregate, {B("")}),
      Set(Pmid(0, 6), kTypeString, {B("")}),
      Set(Pmid(0, 4), kTypeFloat, {F(-0.1f)}),
      Set(Pmid(0, 6), kTypeString, {B("abc", 4), B("abcd", 5), B("x", 6)}),
  };
  Result mark;  // LOGIMPORT stamps a <mark> 1 ms after the last record
  mark.timestamp = {1700000001, 1'005'000};
  Result r4;
  r4.timestamp = {1700000002, 500'000'000};
  r4.sets = {
      Set(Pmid(0, 2), kType64, {I(INT64_MIN)}),
      Set(Pmid(0, 3), kTypeU64, {U(0)}),
      Set(Pmid(0, 4), kTypeFloat, {F(-0.1f)}),
      Set(Pmid(0, 5), kTypeDouble, {F(1e300)}),
      Set(Pmid(0, 6), kTypeString, {B("abc")}),
  };
  return {r1, r2, mark, r4};
}

// All frames of `file`, label first.
std::vector<Frame> Frames(std::span<const uint8_t> file) {
  std::vector<Frame> frames;
  RecordScanner scanner(file, 0);
  for (;;) {
    absl::StatusOr<std::optional<Frame>> f = scanner.Next();
    EXPECT_THAT(f, IsOk());
    if (!f.ok() || !f->has_value()) break;
    frames.push_back(**f);
  }
  return frames;
}

std::vector<uint8_t> Bytes(std::span<const uint8_t> file, const Frame& f) {
  auto begin = file.begin() + f.offset;
  return std::vector<uint8_t>(begin, begin + f.size());
}

class PcpArchiveTest : public ::testing::TestWithParam<int> {
 protected:
  int version() const { return GetParam(); }
  const Archive& archive() const { return PcpArchive(version()); }
};

TEST_P(PcpArchiveTest, LabelsDecodeAndReencodeExactly) {
  const Archive& a = archive();
  int32_t pid = 0;
  for (auto [file, volume] : {std::pair{&a.volume, 0}, std::pair{&a.meta, kVolumeMeta},
                              std::pair{&a.index, kVolumeIndex}}) {
    SCOPED_TRACE(volume);
    RecordScanner scanner(*file, 0);
    absl::StatusOr<std::optional<Frame>> frame = scanner.Next();
    ASSERT_OK(frame);
    ASSERT_TRUE(frame->has_value());
    EXPECT_EQ((*frame)->size(), LabelSize(version()));
    absl::StatusOr<LogLabel> label = DecodeLogLabel((*frame)->payload);
    ASSERT_OK(label);
    LogLabel want;
    want.version = version();
    want.pid = label->pid;  // LOGIMPORT's own pid
    want.start = {1700000000, 250'000'000};  // the first record's time
    want.volume = volume;
    want.hostname = "mmvlog-golden";
    want.timezone = "UTC";
    EXPECT_EQ(*label, want);
    EXPECT_GT(label->pid, 0);
    if (pid != 0) {
      EXPECT_EQ(label->pid, pid);
    }
    pid = label->pid;

    std::vector<uint8_t> ours;
    ASSERT_OK(EncodeLogLabel(want, &ours));
    EXPECT_EQ(HexDump(ours), HexDump(Bytes(*file, **frame)));
  }
}

TEST_P(PcpArchiveTest, ResultsDecodeAsWritten) {
  const Archive& a = archive();
  const std::vector<Frame> frames = Frames(a.volume);
  const std::vector<Result> expected = Expected();
  ASSERT_EQ(frames.size(), 1 + expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(i);
    const Frame& f = frames[i + 1];
    absl::StatusOr<DecodedResult> d = DecodeResult(version(), f.payload, f.offset);
    ASSERT_OK(d);
    EXPECT_EQ(d->timestamp, expected[i].timestamp);
    EXPECT_EQ(d->is_mark(), expected[i].sets.empty());
    ASSERT_EQ(d->sets.size(), expected[i].sets.size());
    for (size_t s = 0; s < d->sets.size(); ++s) {
      SCOPED_TRACE(s);
      const ValueSet& want = expected[i].sets[s];
      absl::StatusOr<ValueSet> got = ValueSetFromDecoded(d->sets[s], want.type);
      ASSERT_OK(got);
      EXPECT_EQ(*got, want);
    }
  }
}

// The storage facts archive_format.h states, read off PCP's own records.
TEST_P(PcpArchiveTest, PcpStoresOnly32BitIntsInsitu) {
  const std::vector<Frame> frames = Frames(archive().volume);
  ASSERT_GE(frames.size(), 2u);
  absl::StatusOr<DecodedResult> d =
      DecodeResult(version(), frames[1].payload, frames[1].offset);
  ASSERT_OK(d);
  ASSERT_EQ(d->sets.size(), 8u);
  const struct {
    int32_t valfmt;
    uint8_t block_type;
    size_t block_size;
  } want[] = {
      {kValInsitu, 0, 0},           // PM_TYPE_32
      {kValInsitu, 0, 0},           // PM_TYPE_U32
      {kValDptr, kType64, 8},       // PM_TYPE_64
      {kValDptr, kTypeU64, 8},      // PM_TYPE_U64
      {kValDptr, kTypeFloat, 4},    // PM_TYPE_FLOAT: a block, not INSITU
      {kValDptr, kTypeDouble, 8},   // PM_TYPE_DOUBLE
      {kValDptr, kTypeString, 6},   // PM_TYPE_STRING "hello" + NUL
      {kValDptr, kType64, 8},       // PM_TYPE_64, 3 instances
  };
  for (size_t s = 0; s < 8; ++s) {
    SCOPED_TRACE(s);
    EXPECT_EQ(d->sets[s].valfmt, want[s].valfmt);
    for (const DecodedValue& v : d->sets[s].values) {
      EXPECT_EQ(v.block_type, want[s].block_type);
      EXPECT_EQ(v.block.size(), want[s].block_size);
    }
  }
}

TEST_P(PcpArchiveTest, EncoderReproducesEveryRecord) {
  const Archive& a = archive();
  const std::vector<Frame> frames = Frames(a.volume);
  const std::vector<Result> expected = Expected();
  ASSERT_EQ(frames.size(), 1 + expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(i);
    std::vector<uint8_t> ours;
    EncodeResult(version(), expected[i], &ours);
    EXPECT_EQ(ours.size(), EncodedResultSize(version(), expected[i]));
    EXPECT_EQ(HexDump(ours), HexDump(Bytes(a.volume, frames[i + 1])));
  }
}

TEST_P(PcpArchiveTest, EncoderReproducesTheWholeVolume) {
  const Archive& a = archive();
  absl::StatusOr<LogLabel> label = DecodeLogLabel(Frames(a.volume).at(0).payload);
  ASSERT_OK(label);
  std::vector<uint8_t> ours;
  ASSERT_OK(EncodeLogLabel(*label, &ours));
  for (const Result& r : Expected()) EncodeResult(version(), r, &ours);
  EXPECT_EQ(HexDump(ours), HexDump(a.volume));
}

TEST_P(PcpArchiveTest, IndexEntriesDecodeAndReencodeExactly) {
  const Archive& a = archive();
  const size_t label = LabelSize(version());
  const size_t entry = IndexEntrySize(version());
  ASSERT_GT(a.index.size(), label);
  ASSERT_EQ((a.index.size() - label) % entry, 0u);
  std::vector<uint64_t> boundaries;  // record starts in .0, and its end
  for (const Frame& f : Frames(a.volume)) boundaries.push_back(f.offset);
  boundaries.push_back(a.volume.size());

  std::vector<IndexEntry> entries;
  for (size_t at = label; at < a.index.size(); at += entry) {
    SCOPED_TRACE(at);
    std::span<const uint8_t> bytes = std::span<const uint8_t>(a.index).subspan(at, entry);
    absl::StatusOr<IndexEntry> e = DecodeIndexEntry(version(), bytes);
    ASSERT_OK(e);
    EXPECT_EQ(e->volume, 0);
    EXPECT_LE(e->meta_offset, a.meta.size());
    EXPECT_THAT(boundaries, ::testing::Contains(e->data_offset));
    std::vector<uint8_t> ours;
    ASSERT_OK(EncodeIndexEntry(version(), *e, &ours));
    EXPECT_EQ(HexDump(ours), HexDump(bytes));
    entries.push_back(*e);
  }
  // LOGIMPORT 6.0.3: one entry before the first record (offsets just past
  // the labels), and one at pmiEnd with the last record's time and the
  // offsets of the ends of both files.
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0], (IndexEntry{{1700000000, 250'000'000}, 0, label, label}));
  EXPECT_EQ(entries[1], (IndexEntry{{1700000002, 500'000'000}, 0, a.meta.size(),
                                    a.volume.size()}));
}

TEST_P(PcpArchiveTest, MetaIsFramedRecordsToACleanEnd) {
  const Archive& a = archive();
  const std::vector<Frame> frames = Frames(a.meta);
  ASSERT_GT(frames.size(), 1u);
  EXPECT_EQ(frames.back().offset + frames.back().size(), a.meta.size());
}

INSTANTIATE_TEST_SUITE_P(Versions, PcpArchiveTest, ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat("V", info.param);
                         });

}  // namespace
}  // namespace mmvlog::format

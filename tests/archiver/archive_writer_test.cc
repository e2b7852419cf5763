// ArchiveWriter: the invariants in its class comment, checked by reading the
// files back with ArchiveReader and the format decoders.
#include "archiver/store/archive_writer.h"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "archiver/store/archive_reader.h"
#include "archiver/file/file_syscalls.h"
#include "archiver/file/posix_file.h"
#include "archiver/file/write_behind.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_index.h"
#include "tests/archiver/archive_test_util.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::TempBase;
using ::mmvlog::testing::TestArchiveOptions;

using ::mmvlog::testing::StatusIs;
using ::testing::HasSubstr;

constexpr uint32_t kPmid = format::PmidBuild(70, 1, 1);
constexpr uint32_t kPmidIndom = format::PmidBuild(70, 1, 2);
constexpr uint32_t kIndom = format::InDomBuild(70, 2049);

format::Desc U64Desc(uint32_t pmid, uint32_t indom = format::kIndomNull) {
  format::Desc d;
  d.pmid = pmid;
  d.type = format::kTypeU64;
  d.sem = format::kSemCounter;
  d.indom = indom;
  d.names = {absl::StrCat("test.m", format::PmidItem(pmid))};
  return d;
}

format::Result OneValue(int64_t sec, uint64_t v) {
  format::Result r;
  r.timestamp = {sec, 0};
  format::ValueSet s;
  s.pmid = kPmid;
  s.type = format::kTypeU64;
  format::ResultValue val;
  val.u64 = v;
  s.values.push_back(val);
  r.sets.push_back(s);
  return r;
}

std::vector<format::IndexEntry> ReadIndex(const std::string& base) {
  absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(base);
  EXPECT_OK(r);
  return r.ok() ? (*r)->index() : std::vector<format::IndexEntry>{};
}

std::vector<format::DecodedResult> ReadAll(const std::string& base,
                                           std::vector<std::string>* warnings = nullptr) {
  std::vector<format::DecodedResult> out;
  absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(base);
  EXPECT_OK(r);
  if (!r.ok()) return out;
  for (;;) {
    absl::StatusOr<std::optional<format::DecodedResult>> next = (*r)->Next();
    EXPECT_OK(next);
    if (!next.ok() || !next->has_value()) break;
    // Copy: the spans point into the reader's buffer; keep only timestamps
    // and shapes here.
    format::DecodedResult copy = **next;
    for (auto& set : copy.sets) {
      for (auto& v : set.values) v.block = {};
    }
    out.push_back(copy);
  }
  if (warnings != nullptr) *warnings = (*r)->warnings();
  return out;
}

class ArchiveWriterTest : public ::testing::TestWithParam<int> {};

TEST_P(ArchiveWriterTest, LabelsOpenAllThreeFilesWithTheSameStart) {
  const std::string base = TempBase("labels");
  auto w = ArchiveWriter::Create(base, TestArchiveOptions(GetParam()), {1700000000, 5000});
  ASSERT_OK(w);
  ASSERT_OK((*w)->Close());
  absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(base + ".meta");
  ASSERT_OK(r);
  EXPECT_EQ((*r)->label().version, GetParam());
  EXPECT_EQ((*r)->label().hostname, "host");
  EXPECT_EQ((*r)->label().start.sec, 1700000000);
  EXPECT_EQ((*r)->volumes(), std::vector<std::string>{base + ".0"});
}

TEST_P(ArchiveWriterTest, RefusesToOverwriteAnExistingArchive) {
  const std::string base = TempBase("exists");
  auto w = ArchiveWriter::Create(base, TestArchiveOptions(GetParam()), {1, 0});
  ASSERT_OK(w);
  ASSERT_OK((*w)->Close());
  EXPECT_THAT(ArchiveWriter::Create(base, TestArchiveOptions(GetParam()), {1, 0}),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr(base + ".meta")));
}

TEST_P(ArchiveWriterTest, ResultBeforeItsDescIsRefused) {
  auto w = ArchiveWriter::Create(TempBase("nodesc"), TestArchiveOptions(GetParam()), {1, 0});
  ASSERT_OK(w);
  EXPECT_THAT((*w)->AppendResult(OneValue(1, 1)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("before its descriptor")));
}

TEST_P(ArchiveWriterTest, ResultBeforeItsInDomIsRefused) {
  auto w = ArchiveWriter::Create(TempBase("noindom"), TestArchiveOptions(GetParam()), {1, 0});
  ASSERT_OK(w);
  ASSERT_OK((*w)->AddDesc(U64Desc(kPmidIndom, kIndom)));
  format::Result r = OneValue(1, 1);
  r.sets[0].pmid = kPmidIndom;
  r.sets[0].values[0].inst = 0;
  EXPECT_THAT((*w)->AppendResult(r),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("instance domain")));
}

TEST_P(ArchiveWriterTest, APmidNeverChangesMeaning) {
  auto w = ArchiveWriter::Create(TempBase("pmid"), TestArchiveOptions(GetParam()), {1, 0});
  ASSERT_OK(w);
  ASSERT_OK((*w)->AddDesc(U64Desc(kPmid)));
  ASSERT_OK((*w)->AddDesc(U64Desc(kPmid)));  // identical: no-op
  format::Desc changed = U64Desc(kPmid);
  changed.type = format::kTypeDouble;
  EXPECT_THAT((*w)->AddDesc(changed),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("different descriptor")));
}

TEST_P(ArchiveWriterTest, TimestampsMustNotGoBackwards) {
  auto w = ArchiveWriter::Create(TempBase("backwards"), TestArchiveOptions(GetParam()), {1, 0});
  ASSERT_OK(w);
  ASSERT_OK((*w)->AddDesc(U64Desc(kPmid)));
  ASSERT_OK((*w)->AppendResult(OneValue(10, 1)));
  EXPECT_THAT((*w)->AppendResult(OneValue(9, 2)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("earlier")));
}

TEST_P(ArchiveWriterTest, SwitchesVolumesBySizeWithAnIndexEntryForEach) {
  const std::string base = TempBase("volumes");
  ArchiveOptions o = TestArchiveOptions(GetParam());
  o.max_volume_bytes = 1000;
  auto w = ArchiveWriter::Create(base, o, {100, 0});
  ASSERT_OK(w);
  ASSERT_OK((*w)->AddDesc(U64Desc(kPmid)));
  for (int i = 0; i < 100; ++i) ASSERT_OK((*w)->AppendResult(OneValue(100 + i, i)));
  const int volumes = (*w)->volume() + 1;
  ASSERT_OK((*w)->Close());
  EXPECT_GT(volumes, 3);
  std::vector<format::DecodedResult> all = ReadAll(base);
  ASSERT_EQ(all.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(all[i].timestamp.sec, 100 + i);
  // One entry at the first result of each volume, plus the final one.
  std::vector<format::IndexEntry> index = ReadIndex(base);
  ASSERT_EQ(index.size(), static_cast<size_t>(volumes) + 1);
  for (int v = 0; v < volumes; ++v) {
    EXPECT_EQ(index[v].volume, v);
    EXPECT_EQ(index[v].data_offset,
              GetParam() == 2 ? 132u : 808u);  // right after the volume's label
  }
  EXPECT_EQ(index.back().timestamp.sec, 199);
  for (int v = 0; v < volumes; ++v) {
    absl::StatusOr<struct stat> st = StatPath(absl::StrCat(base, ".", v));
    ASSERT_OK(st);
    EXPECT_LE(st->st_size, 1000);
  }
}

TEST_P(ArchiveWriterTest, UnchangedInDomIsNotRewrittenAndChangesAreDeltasInV3) {
  const std::string base = TempBase("indom");
  auto w = ArchiveWriter::Create(base, TestArchiveOptions(GetParam()), {1, 0});
  ASSERT_OK(w);
  format::InDom d;
  d.timestamp = {1, 0};
  d.indom = kIndom;
  for (int i = 0; i < 10; ++i) d.instances.push_back({i, absl::StrCat("inst", i)});
  ASSERT_OK((*w)->AddInDom(d));
  const uint64_t after_first = (*w)->meta_bytes();
  d.timestamp = {2, 0};
  ASSERT_OK((*w)->AddInDom(d));
  EXPECT_EQ((*w)->meta_bytes(), after_first);  // unchanged: nothing written
  d.timestamp = {3, 0};
  d.instances.erase(d.instances.begin() + 4);
  d.instances.push_back({42, "new"});
  ASSERT_OK((*w)->AddInDom(d));
  ASSERT_OK((*w)->Close());
  absl::StatusOr<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(base);
  ASSERT_OK(r);
  const auto& history = (*r)->meta().indoms.at(kIndom);
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[1].instances.size(), 10u);
  const format::InDom* at3 = (*r)->meta().InDomAt(kIndom, {3, 0});
  ASSERT_NE(at3, nullptr);
  EXPECT_EQ(at3->timestamp.sec, 3);
  const format::InDom* at2 = (*r)->meta().InDomAt(kIndom, {2, 500});
  EXPECT_EQ(at2->timestamp.sec, 1);
  // The delta is far smaller than a full record of 10 instances.
  const uint64_t second_record = (*w)->meta_bytes() - after_first;
  if (GetParam() == 3) {
    EXPECT_LT(second_record, after_first - (GetParam() == 3 ? 808u : 132u));
  }
}

TEST_P(ArchiveWriterTest, TornTailReadsAsTheEndOfTheData) {
  const std::string base = TempBase("torn");
  auto w = ArchiveWriter::Create(base, TestArchiveOptions(GetParam()), {1, 0});
  ASSERT_OK(w);
  ASSERT_OK((*w)->AddDesc(U64Desc(kPmid)));
  for (int i = 0; i < 5; ++i) ASSERT_OK((*w)->AppendResult(OneValue(1 + i, i)));
  ASSERT_OK((*w)->Close());
  absl::StatusOr<struct stat> st = StatPath(base + ".0");
  ASSERT_OK(st);
  ASSERT_EQ(::truncate((base + ".0").c_str(), st->st_size - 3), 0);
  std::vector<std::string> warnings;
  std::vector<format::DecodedResult> all = ReadAll(base, &warnings);
  EXPECT_EQ(all.size(), 4u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr(base + ".0"));
  EXPECT_THAT(warnings[0], HasSubstr("offset"));
}

// A file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored) makes write(2) fail
// with EFBIG part-way through a record, as a full disk does.
TEST_P(ArchiveWriterTest, WriteFailureIsStickyAndLeavesCompleteRecordsReadable) {
  const std::string base = TempBase("full");
  auto w = ArchiveWriter::Create(base, TestArchiveOptions(GetParam()), {1, 0});
  ASSERT_OK(w);
  ASSERT_OK((*w)->AddDesc(U64Desc(kPmid)));
  struct rlimit old;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  struct sigaction ignore {}, old_action;
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGXFSZ, &ignore, &old_action), 0);
  struct rlimit limit = old;
  limit.rlim_cur = 4000;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  int written = 0;
  absl::Status s;
  for (int i = 0; i < 1000 && s.ok(); ++i) {
    s = (*w)->AppendResult(OneValue(1 + i, i));
    if (s.ok()) ++written;
  }
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old), 0);
  ASSERT_EQ(::sigaction(SIGXFSZ, &old_action, nullptr), 0);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(base + ".0"));
  EXPECT_GT(written, 10);
  EXPECT_EQ((*w)->AppendResult(OneValue(5000, 1)), s);  // sticky
  (void)(*w)->Close();
  std::vector<std::string> warnings;
  std::vector<format::DecodedResult> all = ReadAll(base, &warnings);
  EXPECT_EQ(all.size(), static_cast<size_t>(written));
  EXPECT_TRUE(warnings.empty()) << warnings[0];
}

// While records are held, a volume's results reach it before the index
// entries that point at them; if they cannot be written (a full disk), the
// entries are dropped with them, a volume begun while holding is removed, and
// the results are counted as unwritten: the index never names a volume or an
// offset that is not on disk.
int g_writes_to_fail = 0;
ssize_t WriteUnlessFull(int fd, const void* data, size_t n) {
  if (g_writes_to_fail > 0) {
    --g_writes_to_fail;
    errno = ENOSPC;
    return -1;
  }
  return RealFileSyscalls().write(fd, data, n);
}

TEST_P(ArchiveWriterTest, HeldResultsThatCannotBeWrittenTakeTheirIndexEntriesWithThem) {
  const std::string base = TempBase("held");
  auto w = ArchiveWriter::Create(base, TestArchiveOptions(GetParam()), {1, 0});
  ASSERT_OK(w);
  ASSERT_OK((*w)->AddDesc(U64Desc(kPmid)));
  ASSERT_OK((*w)->AppendResult(OneValue(1, 1)));  // written
  (*w)->HoldRecords();
  ASSERT_OK((*w)->AppendResult(OneValue(2, 2)));
  ASSERT_OK((*w)->AppendMark({3, 0}));
  ASSERT_OK((*w)->NewVolume());  // writes volume 0's held records and entries
  ASSERT_OK((*w)->AppendResult(OneValue(4, 4)));  // volume 1, label and all held
  ASSERT_OK((*w)->AppendResult(OneValue(5, 5)));
  const FileSyscallTable full = {RealFileSyscalls().open, WriteUnlessFull,
                                 RealFileSyscalls().fdatasync, RealFileSyscalls().ftruncate,
                                 RealFileSyscalls().close};
  // The results' write fails; by the index entries' there is room again.
  g_writes_to_fail = 1;
  SetFileSyscallsForTesting(&full);
  EXPECT_THAT((*w)->ReleaseRecords(), StatusIs(absl::StatusCode::kResourceExhausted,
                                               HasSubstr(base + ".1")));
  (void)(*w)->Close();
  SetFileSyscallsForTesting(nullptr);
  EXPECT_EQ((*w)->unwritten_results(), 2u);  // the mark is no result
  struct stat st;
  EXPECT_NE(::stat((base + ".1").c_str(), &st), 0) << base << ".1 holds nothing: removed";
  // Every entry in the file as written, not as a reader keeps them.
  absl::StatusOr<std::string> index = ReadWholeFile(base + ".index");
  ASSERT_OK(index);
  const size_t label = (GetParam() == 2 ? format::kLabelV2PayloadSize
                                        : format::kLabelV3PayloadSize) +
                       format::kFrameOverhead;
  const size_t esize = format::IndexEntrySize(GetParam());
  ASSERT_GE(index->size(), label + esize);
  ASSERT_EQ((index->size() - label) % esize, 0u);
  for (size_t at = label; at < index->size(); at += esize) {
    absl::StatusOr<format::IndexEntry> e = format::DecodeIndexEntry(
        GetParam(), std::span<const uint8_t>(
                        reinterpret_cast<const uint8_t*>(index->data()) + at, esize));
    ASSERT_OK(e);
    EXPECT_EQ(e->volume, 0) << "entry at offset " << at;
  }
  std::vector<std::string> warnings;
  EXPECT_EQ(ReadAll(base, &warnings).size(), 3u);  // two results and the mark
  EXPECT_TRUE(warnings.empty()) << warnings[0];
}

// Volumes are handed to WriteBehind as they grow (8 MiB steps), unless the
// options turn it off; either way every result reads back.
TEST(ArchiveWriterWriteBehindTest, VolumesAreWrittenBehindUnlessTurnedOff) {
  for (bool on : {true, false}) {
    const std::string base = TempBase(on ? "wb_on" : "wb_off");
    ArchiveOptions o = TestArchiveOptions(3);
    o.write_behind = on;
    // Whatever the rate (the rule for slow volumes is writable_file_test's):
    // this machine's speed and load are no part of the test.
    o.write_behind_min_rate = 0;
    auto w = ArchiveWriter::Create(base, o, {100, 0});
    ASSERT_OK(w);
    format::Desc d = U64Desc(kPmid);
    ASSERT_OK((*w)->AddDesc(d));
    format::Result r = OneValue(100, 0);
    r.sets[0].values.resize(100'000, r.sets[0].values[0]);  // ~2 MB a result
    WriteBehind::Global().Drain();
    const WriteBehind::Stats before = WriteBehind::Global().stats();
    for (int i = 0; i < 10; ++i) {
      r.timestamp.sec = 100 + i;
      ASSERT_OK((*w)->AppendResult(r));
    }
    ASSERT_OK((*w)->Close());
    WriteBehind::Global().Drain();
    const WriteBehind::Stats after = WriteBehind::Global().stats();
    // ~20 MB: two 8 MiB steps, then the tail at Close.
    EXPECT_EQ(after.ranges - before.ranges, on ? 3u : 0u) << "write_behind " << on;
    EXPECT_EQ(after.errors, before.errors);
    EXPECT_EQ(ReadAll(base).size(), 10u);
  }
}

TEST(ArchiveWriterV2Test, TimesPast32BitSecondsNeedV3) {
  auto w = ArchiveWriter::Create(TempBase("y2038"), TestArchiveOptions(2), {1, 0});
  ASSERT_OK(w);
  ASSERT_OK((*w)->AddDesc(U64Desc(kPmid)));
  EXPECT_THAT((*w)->AppendResult(OneValue(int64_t{1} << 31, 1)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("use v3")));
  auto w3 = ArchiveWriter::Create(TempBase("y2038v3"), TestArchiveOptions(3), {1, 0});
  ASSERT_OK(w3);
  ASSERT_OK((*w3)->AddDesc(U64Desc(kPmid)));
  EXPECT_OK((*w3)->AppendResult(OneValue(int64_t{1} << 31, 1)));
}

INSTANTIATE_TEST_SUITE_P(Versions, ArchiveWriterTest, ::testing::Values(2, 3),
                         [](const auto& info) { return absl::StrCat("v", info.param); });

}  // namespace
}  // namespace mmvlog::archiver

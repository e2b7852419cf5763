// Tests for archiver/mmv_source: snapshots of a live MMV file that another
// writer changes under the reader (values in place, new generations, a
// replaced, vanished, resized or damaged file), then stress tests that
// truncate and rewrite the file while it is being read.
//
// The test plays the application: it writes the file with pwrite(2), rename
// or a MAP_SHARED mapping, the way libpcp_mmv and its kin do.
#include "archiver/mmv/mmv_source.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "archiver/file/posix_file.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_reader.h"
#include "format/mmv/mmv_writer.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::archiver {
namespace {

using ::mmvlog::testing::IsOk;
using ::mmvlog::testing::IsOkAndHolds;
using ::mmvlog::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr uint32_t kIndom = 7;
constexpr uint32_t kCounterItem = 1;  // U64, one value per instance
constexpr uint32_t kNameItem = 2;     // STRING, singular
constexpr uint32_t kStateItem = 3;    // STRING, one value per instance
constexpr size_t kG2Offset = 16;      // mmv_disk_header_t.g2

// A metric of the spec (designated initializers would leave the help texts
// to -Wmissing-field-initializers).
format::MmvSpecMetric Metric(std::string name, uint32_t item,
                             format::MmvType type, int32_t semantics,
                             uint32_t indom = format::kMmvIndomNull) {
  format::MmvSpecMetric m;
  m.name = std::move(name);
  m.item = item;
  m.type = type;
  m.semantics = semantics;
  m.indom = indom;
  return m;
}

format::MmvSpecIndom Indom(uint32_t serial) {
  format::MmvSpecIndom indom;
  indom.serial = serial;
  return indom;
}

// Most tests' file: three instances, a counter and a string per instance,
// and a singular string.
format::MmvSpec BaseSpec(uint64_t generation = 1) {
  format::MmvSpec spec;
  spec.generation = generation;
  spec.indoms.push_back(Indom(kIndom));
  spec.indoms[0].instances = {{0, "zero"}, {1, "one"}, {2, "two"}};
  spec.metrics.push_back(Metric("requests", kCounterItem,
                                format::MmvType::kU64, format::kMmvSemCounter,
                                kIndom));
  spec.metrics.push_back(Metric("name", kNameItem, format::MmvType::kString,
                                format::kMmvSemDiscrete));
  spec.metrics.push_back(Metric("state", kStateItem, format::MmvType::kString,
                                format::kMmvSemInstant, kIndom));
  return spec;
}

format::MmvImage Build(const format::MmvSpec& spec) {
  absl::StatusOr<format::MmvImage> image = format::BuildMmv(spec);
  EXPECT_OK(image);
  return image.ok() ? std::move(*image) : format::MmvImage{};
}

// A path in $TEST_TMPDIR named after the running test, with no file there.
std::string FreshPath() {
  const ::testing::TestInfo* info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = absl::StrCat(info->test_suite_name(), ".", info->name());
  std::replace(name.begin(), name.end(), '/', '_');  // parameterized tests
  std::string path = absl::StrCat(::testing::TempDir(), name, ".mmv");
  ::unlink(path.c_str());
  return path;
}

// Writes a new file and renames it over `path` (a new inode).
void Replace(const std::string& path, std::span<const uint8_t> bytes) {
  EXPECT_OK(WriteFileAtomically(path, bytes));
}

// Overwrites bytes of the existing file in place (same inode), as an
// application holding the file open does.
void WriteInPlace(const std::string& path, uint64_t offset,
                  std::span<const uint8_t> bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << "open " << path << ": " << std::strerror(errno);
  const ssize_t n =
      ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
  const int err = errno;
  ::close(fd);
  ASSERT_EQ(n, static_cast<ssize_t>(bytes.size()))
      << "pwrite " << path << ": " << std::strerror(err);
}

void WriteU64InPlace(const std::string& path, uint64_t offset, uint64_t v) {
  uint8_t buf[8];
  std::memcpy(buf, &v, sizeof(v));
  WriteInPlace(path, offset, buf);
}

void TruncateTo(const std::string& path, uint64_t size) {
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(size)), 0)
      << "truncate " << path << ": " << std::strerror(errno);
}

// Decodes the value of metric `item` for internal instance `instance`.
absl::StatusOr<format::MmvValue> ValueOf(const MmvSnapshot& snap,
                                         uint32_t item,
                                         int32_t instance = format::kMmvInNull) {
  for (const format::MmvValueEntry& v : snap.file->values) {
    if (snap.file->metrics[v.metric_index].item == item &&
        v.instance == instance) {
      return format::ReadMmvValue(snap.image, *snap.file, v);
    }
  }
  return absl::NotFoundError(
      absl::StrCat("no value for item ", item, " instance ", instance));
}

uint64_t CounterOf(const MmvSnapshot& snap, int32_t instance) {
  absl::StatusOr<format::MmvValue> v = ValueOf(snap, kCounterItem, instance);
  EXPECT_OK(v);
  return v.ok() ? v->u64 : ~0ull;
}

std::string StringOf(const MmvSnapshot& snap, uint32_t item,
                     int32_t instance = format::kMmvInNull) {
  absl::StatusOr<format::MmvValue> v = ValueOf(snap, item, instance);
  EXPECT_OK(v);
  return v.ok() ? v->str : "<error>";
}

// ---------------------------------------------------------------------------
// Snapshots of a file that changes the way MMV files are meant to change.

TEST(MmvSourceTest, FirstSnapshotParsesAndLaterOnesReuseTheMetadata) {
  const std::string path = FreshPath();
  format::MmvImage image = Build(BaseSpec());
  format::SetMmvU64(image.bytes, image.slot(kCounterItem, 1), 42);
  format::SetMmvString(image.bytes, image.slot(kNameItem), "web");
  Replace(path, image.bytes);

  MmvSource source(path);
  EXPECT_EQ(source.path(), path);
  absl::StatusOr<MmvSnapshot> first = source.Snapshot();
  ASSERT_OK(first);
  EXPECT_TRUE(first->reloaded);
  ASSERT_NE(first->file, nullptr);
  EXPECT_EQ(first->file->header.generation1, 1u);
  EXPECT_EQ(first->file->metrics.size(), 3u);
  EXPECT_EQ(first->file->values.size(), 3u + 1u + 3u);
  EXPECT_EQ(first->image.size(), image.bytes.size());
  EXPECT_EQ(CounterOf(*first, 1), 42u);
  EXPECT_EQ(StringOf(*first, kNameItem), "web");

  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<MmvSnapshot> next = source.Snapshot();
    ASSERT_OK(next);
    EXPECT_FALSE(next->reloaded);
    EXPECT_EQ(next->file.get(), first->file.get());
    EXPECT_EQ(CounterOf(*next, 1), 42u);
    EXPECT_EQ(StringOf(*next, kNameItem), "web");
  }
}

TEST(MmvSourceTest, ValuesWrittenInPlaceShowUpInTheNextSnapshot) {
  const std::string path = FreshPath();
  const format::MmvImage image = Build(BaseSpec());
  Replace(path, image.bytes);
  MmvSource source(path);
  absl::StatusOr<MmvSnapshot> first = source.Snapshot();
  ASSERT_OK(first);
  EXPECT_EQ(CounterOf(*first, 2), 0u);
  EXPECT_EQ(StringOf(*first, kStateItem, 0), "");

  // The application updates values with pwrite, as it would through its
  // mapping: 8 bytes of a counter, 256-byte string slots.
  std::vector<uint8_t> changed = image.bytes;
  for (uint64_t round = 1; round <= 3; ++round) {
    const format::MmvValueSlot& counter = image.slot(kCounterItem, 2);
    const format::MmvValueSlot& name = image.slot(kNameItem);
    const format::MmvValueSlot& state = image.slot(kStateItem, 0);
    format::SetMmvU64(changed, counter, 1000 * round);
    format::SetMmvString(changed, name, absl::StrCat("name ", round));
    format::SetMmvString(changed, state, std::string(200 + round, 'x'));
    WriteInPlace(path, counter.value_offset,
                 std::span(changed).subspan(counter.value_offset, 8));
    WriteInPlace(path, name.string_offset,
                 std::span(changed).subspan(name.string_offset,
                                            format::kMmvStringSlotSize));
    WriteInPlace(path, state.string_offset,
                 std::span(changed).subspan(state.string_offset,
                                            format::kMmvStringSlotSize));

    absl::StatusOr<MmvSnapshot> next = source.Snapshot();
    ASSERT_OK(next);
    EXPECT_FALSE(next->reloaded);
    EXPECT_EQ(next->file.get(), first->file.get());
    EXPECT_EQ(CounterOf(*next, 2), 1000 * round);
    EXPECT_EQ(CounterOf(*next, 0), 0u);
    EXPECT_EQ(StringOf(*next, kNameItem), absl::StrCat("name ", round));
    EXPECT_EQ(StringOf(*next, kStateItem, 0), std::string(200 + round, 'x'));
    EXPECT_EQ(StringOf(*next, kStateItem, 1), "");
  }
}

TEST(MmvSourceTest, ValuesWrittenThroughASharedMappingShowUp) {
  const std::string path = FreshPath();
  const format::MmvImage image = Build(BaseSpec());
  Replace(path, image.bytes);
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  void* map = ::mmap(nullptr, image.bytes.size(), PROT_READ | PROT_WRITE,
                     MAP_SHARED, fd, 0);
  ::close(fd);
  ASSERT_NE(map, MAP_FAILED) << std::strerror(errno);
  std::span<uint8_t> live(static_cast<uint8_t*>(map), image.bytes.size());

  MmvSource source(path);
  absl::StatusOr<MmvSnapshot> first = source.Snapshot();
  ASSERT_OK(first);
  for (uint64_t round = 1; round <= 3; ++round) {
    format::SetMmvU64(live, image.slot(kCounterItem, 0), round);
    format::SetMmvU64(live, image.slot(kCounterItem, 1), round << 40);
    format::SetMmvString(live, image.slot(kStateItem, 2),
                         absl::StrCat("state ", round));
    absl::StatusOr<MmvSnapshot> next = source.Snapshot();
    ASSERT_OK(next);
    EXPECT_FALSE(next->reloaded);
    EXPECT_EQ(next->file.get(), first->file.get());
    EXPECT_EQ(CounterOf(*next, 0), round);
    EXPECT_EQ(CounterOf(*next, 1), round << 40);
    EXPECT_EQ(StringOf(*next, kStateItem, 2), absl::StrCat("state ", round));
  }
  ASSERT_EQ(::munmap(map, image.bytes.size()), 0);
}

TEST(MmvSourceTest, NewGenerationWrittenInPlaceReloads) {
  const std::string path = FreshPath();
  Replace(path, Build(BaseSpec(1)).bytes);
  MmvSource source(path);
  absl::StatusOr<MmvSnapshot> first = source.Snapshot();
  ASSERT_OK(first);

  // Same size and layout, same inode; only the generation says the
  // metadata changed (a metric renamed to a name of the same length).
  format::MmvSpec spec = BaseSpec(2);
  spec.metrics[0].name = "response";
  format::MmvImage image = Build(spec);
  format::SetMmvU64(image.bytes, image.slot(kCounterItem, 0), 5);
  ASSERT_EQ(image.bytes.size(), first->image.size());
  WriteInPlace(path, 0, image.bytes);

  absl::StatusOr<MmvSnapshot> second = source.Snapshot();
  ASSERT_OK(second);
  EXPECT_TRUE(second->reloaded);
  EXPECT_NE(second->file.get(), first->file.get());
  EXPECT_EQ(second->file->header.generation1, 2u);
  EXPECT_EQ(second->file->metrics[0].name, "response");
  EXPECT_EQ(CounterOf(*second, 0), 5u);

  absl::StatusOr<MmvSnapshot> third = source.Snapshot();
  ASSERT_OK(third);
  EXPECT_FALSE(third->reloaded);
  EXPECT_EQ(third->file.get(), second->file.get());
}

TEST(MmvSourceTest, FileReplacedByRenameReloadsWithTheNewMetadata) {
  const std::string path = FreshPath();
  Replace(path, Build(BaseSpec()).bytes);
  MmvSource source(path);
  absl::StatusOr<MmvSnapshot> first = source.Snapshot();
  ASSERT_OK(first);

  // Same generation and size: only the new inode tells.
  format::MmvSpec same_size = BaseSpec();
  same_size.metrics[0].name = "response";
  const format::MmvImage renamed = Build(same_size);
  ASSERT_EQ(renamed.bytes.size(), first->image.size());
  Replace(path, renamed.bytes);
  absl::StatusOr<MmvSnapshot> second = source.Snapshot();
  ASSERT_OK(second);
  EXPECT_TRUE(second->reloaded);
  EXPECT_EQ(second->file->metrics[0].name, "response");

  // A different layout: another metric, more instances, version 3.
  format::MmvSpec bigger = BaseSpec(9);
  bigger.indoms[0].instances.push_back({3, "three"});
  bigger.metrics.push_back(
      Metric("latency", 4, format::MmvType::kDouble, format::kMmvSemInstant));
  format::MmvSpecLabel label;
  label.flags = format::kMmvLabelItem;
  label.identity = 4;
  label.payload = "{\"unit\":\"ms\"}";
  bigger.labels.push_back(label);
  format::MmvImage image = Build(bigger);
  format::SetMmvDouble(image.bytes, image.slot(4), 2.5);
  format::SetMmvU64(image.bytes, image.slot(kCounterItem, 3), 33);
  Replace(path, image.bytes);
  absl::StatusOr<MmvSnapshot> third = source.Snapshot();
  ASSERT_OK(third);
  EXPECT_TRUE(third->reloaded);
  EXPECT_EQ(third->file->header.version, format::kMmvVersion3);
  EXPECT_EQ(third->file->header.generation1, 9u);
  EXPECT_EQ(third->file->metrics.size(), 4u);
  EXPECT_EQ(third->file->labels.size(), 1u);
  EXPECT_EQ(third->file->values.size(), 4u + 1u + 4u + 1u);
  EXPECT_EQ(CounterOf(*third, 3), 33u);
  absl::StatusOr<format::MmvValue> latency = ValueOf(*third, 4);
  ASSERT_OK(latency);
  EXPECT_EQ(latency->f64, 2.5);

  absl::StatusOr<MmvSnapshot> fourth = source.Snapshot();
  ASSERT_OK(fourth);
  EXPECT_FALSE(fourth->reloaded);
}

TEST(MmvSourceTest, FileThatGrowsIsReloaded) {
  const std::string path = FreshPath();
  format::MmvImage image = Build(BaseSpec());
  format::SetMmvU64(image.bytes, image.slot(kCounterItem, 1), 77);
  Replace(path, image.bytes);
  MmvSource source(path);
  ASSERT_OK(source.Snapshot());

  // Bytes after the last section are not part of any section: the file is
  // read again (its size changed), but only as far as its sections go.
  const std::vector<uint8_t> tail(4096, 0);
  WriteInPlace(path, image.bytes.size(), tail);
  absl::StatusOr<MmvSnapshot> grown = source.Snapshot();
  ASSERT_OK(grown);
  EXPECT_TRUE(grown->reloaded);
  EXPECT_EQ(grown->image.size(), image.bytes.size());
  EXPECT_EQ(CounterOf(*grown, 1), 77u);
}

// Tests of hostile files follow: nothing outside the MMV directory is read,
// nothing blocks, and no header's claims are allocated for.

TEST(MmvSourceTest, SparseTenGigabyteFileCostsOnlyItsSections) {
  const std::string path = FreshPath();
  format::MmvImage image = Build(BaseSpec());
  format::SetMmvU64(image.bytes, image.slot(kCounterItem, 1), 5);
  Replace(path, image.bytes);
  ASSERT_EQ(::truncate(path.c_str(), off_t{10} << 30), 0);  // a hole of 10 GB
  MmvSource source(path);
  absl::StatusOr<MmvSnapshot> snap = source.Snapshot();
  ASSERT_OK(snap);
  EXPECT_EQ(snap->image.size(), image.bytes.size());
  EXPECT_EQ(CounterOf(*snap, 1), 5u);
}

TEST(MmvSourceTest, HugeClaimsAreRefusedFromTheSizesAlone) {
  const std::string path = FreshPath();
  format::MmvImage image = Build(BaseSpec());
  // A TOC count of 0x7fffffff in a small file.
  std::vector<uint8_t> bytes = image.bytes;
  const int32_t tocs = 0x7fffffff;
  std::memcpy(bytes.data() + 24, &tocs, sizeof(tocs));
  Replace(path, bytes);
  EXPECT_THAT(MmvSource(path).Snapshot(),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr(absl::StrCat("offset 24: TOC count 2147483647 (ending at ",
                                              "34359738392) exceeds the file's ",
                                              bytes.size(), " bytes"))));
  // Sections past what mmvlog reads of a file (here 1 KiB) are refused
  // before anything is copied, whatever the file's size.
  Replace(path, image.bytes);
  ASSERT_EQ(::truncate(path.c_str(), off_t{10} << 30), 0);
  MmvSourceOptions small;
  small.max_image_bytes = 1024;
  EXPECT_THAT(MmvSource(path, small).Snapshot(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("bytes mmvlog reads of an MMV file")));
}

TEST(MmvSourceTest, SymlinkFifoSocketAndDirectoryAreNeverRead) {
  const std::string dir = FreshPath() + ".d";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  format::MmvImage image = Build(BaseSpec());
  Replace(dir + "/real", image.bytes);
  ASSERT_EQ(::symlink((dir + "/real").c_str(), (dir + "/link").c_str()), 0);
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0644), 0);
  ASSERT_EQ(::mkdir((dir + "/sub").c_str(), 0755), 0);
  absl::StatusOr<FileDescriptor> dfd = OpenDirectory(dir);
  ASSERT_OK(dfd);
  auto shared = std::make_shared<const FileDescriptor>(std::move(*dfd));
  EXPECT_OK(MmvSource(shared, "real", dir + "/real").Snapshot());
  EXPECT_OK(MmvSource(dir + "/real").Snapshot());
  // A FIFO with no writer would block an open without O_NONBLOCK: this
  // returns at once.
  for (const auto& [name, kind] : std::vector<std::pair<std::string, std::string>>{
           {"link", "symbolic link"}, {"fifo", "a FIFO"}, {"sub", "a directory"}}) {
    EXPECT_THAT(MmvSource(shared, name, dir + "/" + name).Snapshot(),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(kind)))
        << name;
    EXPECT_THAT(MmvSource(dir + "/" + name).Snapshot(),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(kind)))
        << name;
  }
  // A regular file replaced by a symlink while being recorded.
  MmvSource live(shared, "swap", dir + "/swap");
  Replace(dir + "/swap", image.bytes);
  ASSERT_OK(live.Snapshot());
  ASSERT_EQ(::unlink((dir + "/swap").c_str()), 0);
  ASSERT_EQ(::symlink((dir + "/real").c_str(), (dir + "/swap").c_str()), 0);
  EXPECT_THAT(live.Snapshot(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                        HasSubstr("symbolic link")));
}

TEST(MmvSourceTest, AllocatedButUnwrittenFileIsAnError) {
  // libpcp_mmv ftruncates the file to its size before writing the header.
  const std::string path = FreshPath();
  Replace(path, std::vector<uint8_t>(4096, 0));
  MmvSource source(path);
  EXPECT_THAT(source.Snapshot(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith(absl::StrCat(path, ": offset 0: bad magic"))));
}

TEST(MmvSourceTest, GenerationOfZeroIsUnavailable) {
  const std::string path = FreshPath();
  Replace(path, Build(BaseSpec()).bytes);
  WriteU64InPlace(path, 8, 0);
  WriteU64InPlace(path, kG2Offset, 0);
  MmvSource source(path);
  EXPECT_THAT(source.Snapshot(),
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(StartsWith(absl::StrCat(path, ": ")),
                             HasSubstr("generation not settled (g1 0, g2 0)"))));
}

// ---------------------------------------------------------------------------
// Error paths: every error names the file, and the next snapshot after the
// file is right again works.

TEST(MmvSourceTest, MissingFileIsNotFoundNamingThePath) {
  const std::string path = FreshPath();
  MmvSource source(path);
  EXPECT_THAT(source.Snapshot(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(path)));
  Replace(path, Build(BaseSpec()).bytes);
  absl::StatusOr<MmvSnapshot> snap = source.Snapshot();
  ASSERT_OK(snap);
  EXPECT_TRUE(snap->reloaded);
}

TEST(MmvSourceTest, VanishedFileIsNotFoundAndItsReturnIsReadAgain) {
  const std::string path = FreshPath();
  Replace(path, Build(BaseSpec(1)).bytes);
  MmvSource source(path);
  ASSERT_OK(source.Snapshot());

  ASSERT_EQ(::unlink(path.c_str()), 0);
  EXPECT_THAT(source.Snapshot(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(path)));
  EXPECT_THAT(source.Snapshot(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(path)));

  format::MmvSpec spec = BaseSpec(1);  // even with the old generation
  spec.metrics[1].name = "host";
  format::MmvImage image = Build(spec);
  format::SetMmvString(image.bytes, image.slot(kNameItem), "back");
  Replace(path, image.bytes);
  absl::StatusOr<MmvSnapshot> back = source.Snapshot();
  ASSERT_OK(back);
  EXPECT_TRUE(back->reloaded);
  EXPECT_EQ(back->file->metrics[1].name, "host");
  EXPECT_EQ(StringOf(*back, kNameItem), "back");
}

TEST(MmvSourceTest, FileMidCreationIsUnavailableAfterBoundedRetries) {
  // g1 written, g2 not yet: libpcp_mmv is still filling the file in.
  const std::string path = FreshPath();
  format::MmvImage image = Build(BaseSpec(5));
  const std::vector<uint8_t> complete = image.bytes;
  std::memset(image.bytes.data() + kG2Offset, 0, 8);
  Replace(path, image.bytes);

  MmvSource source(path, MmvSourceOptions{.max_attempts = 3});
  for (int i = 0; i < 2; ++i) {  // a failed snapshot leaves it usable
    EXPECT_THAT(source.Snapshot(),
                StatusIs(absl::StatusCode::kUnavailable,
                         AllOf(StartsWith(absl::StrCat(path, ": ")),
                               HasSubstr("after 3 attempts"),
                               HasSubstr("g1 5, g2 0"))));
  }
  WriteInPlace(path, 0, complete);
  absl::StatusOr<MmvSnapshot> settled = source.Snapshot();
  ASSERT_OK(settled);
  EXPECT_TRUE(settled->reloaded);
  EXPECT_EQ(settled->file->header.generation2, 5u);
}

TEST(MmvSourceTest, UnsettledGenerationAfterGoodSnapshotsIsUnavailable) {
  const std::string path = FreshPath();
  Replace(path, Build(BaseSpec(1)).bytes);
  MmvSource source(path);
  ASSERT_OK(source.Snapshot());

  // The application starts rewriting in place: g1 moves on first.
  WriteU64InPlace(path, 8, 2);
  EXPECT_THAT(source.Snapshot(),
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(StartsWith(absl::StrCat(path, ": ")),
                             HasSubstr("attempts"))));
  WriteU64InPlace(path, kG2Offset, 2);
  absl::StatusOr<MmvSnapshot> snap = source.Snapshot();
  ASSERT_OK(snap);
  EXPECT_TRUE(snap->reloaded);
  EXPECT_EQ(snap->file->header.generation1, 2u);
}

TEST(MmvSourceTest, FileThatShrinksIsAnErrorUntilRestored) {
  const std::string path = FreshPath();
  format::MmvImage image = Build(BaseSpec());
  format::SetMmvU64(image.bytes, image.slot(kCounterItem, 0), 9);
  Replace(path, image.bytes);
  MmvSource source(path);
  ASSERT_OK(source.Snapshot());

  // The last string slot is cut off.
  TruncateTo(path, image.bytes.size() - 8);
  EXPECT_THAT(source.Snapshot(),
              StatusIs(absl::StatusCode::kDataLoss,
                       AllOf(StartsWith(absl::StrCat(path, ": offset ")),
                             HasSubstr("runs past the end of the file"))));
  TruncateTo(path, 10);
  EXPECT_THAT(source.Snapshot(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(StartsWith(absl::StrCat(path, ": offset 0: ")),
                             HasSubstr("file is 10 bytes"))));
  TruncateTo(path, 0);
  EXPECT_THAT(source.Snapshot(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(StartsWith(absl::StrCat(path, ": ")),
                             HasSubstr("file is 0 bytes"))));

  WriteInPlace(path, 0, image.bytes);  // same inode, full size again
  absl::StatusOr<MmvSnapshot> restored = source.Snapshot();
  ASSERT_OK(restored);
  EXPECT_TRUE(restored->reloaded);
  EXPECT_EQ(CounterOf(*restored, 0), 9u);
}

// Mapped snapshots (Snapshot(kMapped)): the values are read where they are.

// Reads counter `instance` of a mapped snapshot through the mapping (only
// a copy inside the read: it may be abandoned midway).
absl::StatusOr<uint64_t> MappedCounter(MmvSource& source, const MmvSnapshot& snap,
                                       int32_t instance) {
  for (const format::MmvValueEntry& v : snap.file->values) {
    if (snap.file->metrics[v.metric_index].item != kCounterItem || v.instance != instance) {
      continue;
    }
    uint64_t value = 0;
    if (!source.ReadMapped([&](std::span<const uint8_t> bytes) {
          std::memcpy(&value, bytes.data() + v.offset, sizeof(value));
        })) {
      return absl::UnavailableError("read faulted");
    }
    return value;
  }
  return absl::NotFoundError("no value");
}

TEST(MmvSourceTest, MappedSnapshotsReadTheValuesInPlace) {
  const std::string path = FreshPath();
  format::MmvImage image = Build(BaseSpec());
  Replace(path, image.bytes);
  MmvSource source(path);
  // The first snapshot parses the file: a copy, whatever is asked.
  absl::StatusOr<MmvSnapshot> first = source.Snapshot(MmvSource::kMapped);
  ASSERT_OK(first);
  EXPECT_TRUE(first->reloaded);
  EXPECT_FALSE(first->mapped);
  for (uint64_t round = 1; round <= 3; ++round) {
    WriteU64InPlace(path, image.slot(kCounterItem, 1).value_offset, 70 + round);
    absl::StatusOr<MmvSnapshot> next = source.Snapshot(MmvSource::kMapped);
    ASSERT_OK(next);
    EXPECT_TRUE(next->mapped);
    EXPECT_FALSE(next->reloaded);
    EXPECT_EQ(next->file.get(), first->file.get());
    EXPECT_THAT(MappedCounter(source, *next, 1), IsOkAndHolds(70 + round));
    EXPECT_TRUE(source.StillCurrent());
    absl::StatusOr<std::span<const uint8_t>> copy = source.CopyMapped();
    ASSERT_OK(copy);
    MmvSnapshot copied = *next;
    copied.image = *copy;
    EXPECT_EQ(CounterOf(copied, 1), 70 + round);
    EXPECT_EQ(StringOf(copied, kNameItem), "");
  }
  // Asked for a copy, a copy.
  absl::StatusOr<MmvSnapshot> copied = source.Snapshot();
  ASSERT_OK(copied);
  EXPECT_FALSE(copied->mapped);
  EXPECT_EQ(CounterOf(*copied, 1), 73u);
}

TEST(MmvSourceTest, FileThatShrinksUnderAMappedReadFailsTheReadNotTheProcess) {
  const std::string path = FreshPath();
  // Enough instances that the values run past the first page.
  format::MmvSpec spec = BaseSpec();
  for (int i = 3; i < 400; ++i) {
    spec.indoms[0].instances.push_back({i, absl::StrCat("instance-", i)});
  }
  format::MmvImage image = Build(spec);
  ASSERT_GT(image.bytes.size(), 3u * 4096u);
  format::SetMmvU64(image.bytes, image.slot(kCounterItem, 399), 399);
  Replace(path, image.bytes);
  MmvSource source(path);
  ASSERT_OK(source.Snapshot());
  absl::StatusOr<MmvSnapshot> snap = source.Snapshot(MmvSource::kMapped);
  ASSERT_OK(snap);
  ASSERT_TRUE(snap->mapped);
  EXPECT_THAT(MappedCounter(source, *snap, 399), IsOkAndHolds(399u));

  // Shrunk after the snapshot looked: reading the last value touches a
  // page past the end (SIGBUS without the guard).
  TruncateTo(path, 4096);
  EXPECT_THAT(MappedCounter(source, *snap, 399), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_FALSE(source.StillCurrent() && source.CopyMapped().ok());
  EXPECT_THAT(source.CopyMapped(), StatusIs(absl::StatusCode::kUnavailable,
                                            StartsWith(absl::StrCat(path, ": "))));
  // The next snapshot sees the shrunken file, and its repair.
  EXPECT_FALSE(source.Snapshot(MmvSource::kMapped).ok());
  WriteInPlace(path, 0, image.bytes);
  ASSERT_OK(source.Snapshot(MmvSource::kMapped));
  absl::StatusOr<MmvSnapshot> again = source.Snapshot(MmvSource::kMapped);
  ASSERT_OK(again);
  ASSERT_TRUE(again->mapped);
  EXPECT_THAT(MappedCounter(source, *again, 399), IsOkAndHolds(399u));
}

// Any change of size after a mapped snapshot (here grown, same generation)
// fails the check after the read; the next copy reads the file again.
TEST(MmvSourceTest, FileResizedAfterAMappedSnapshotIsNotCurrent) {
  const std::string path = FreshPath();
  const format::MmvImage image = Build(BaseSpec());
  Replace(path, image.bytes);
  MmvSource source(path);
  ASSERT_OK(source.Snapshot());
  absl::StatusOr<MmvSnapshot> snap = source.Snapshot(MmvSource::kMapped, /*same_entry=*/true);
  ASSERT_OK(snap);
  ASSERT_TRUE(snap->mapped);
  EXPECT_TRUE(source.StillCurrent());
  WriteInPlace(path, image.bytes.size(), std::vector<uint8_t>(100, 0));
  EXPECT_FALSE(source.StillCurrent());
  absl::StatusOr<MmvSnapshot> next = source.Snapshot();
  ASSERT_OK(next);
  EXPECT_TRUE(next->reloaded);
  absl::StatusOr<MmvSnapshot> again = source.Snapshot(MmvSource::kMapped, /*same_entry=*/true);
  ASSERT_OK(again);
  EXPECT_TRUE(again->mapped);
  EXPECT_TRUE(source.StillCurrent());
}

TEST(MmvSourceTest, NewGenerationAfterAMappedSnapshotIsNotCurrent) {
  const std::string path = FreshPath();
  Replace(path, Build(BaseSpec(1)).bytes);
  MmvSource source(path);
  ASSERT_OK(source.Snapshot());
  absl::StatusOr<MmvSnapshot> snap = source.Snapshot(MmvSource::kMapped);
  ASSERT_OK(snap);
  ASSERT_TRUE(snap->mapped);
  EXPECT_TRUE(source.StillCurrent());
  // The application rewrites its file in place with a new generation while
  // the recorder is between the snapshot and its check.
  format::MmvImage image = Build(BaseSpec(2));
  WriteInPlace(path, 0, image.bytes);
  EXPECT_FALSE(source.StillCurrent());
  EXPECT_THAT(source.CopyMapped(), StatusIs(absl::StatusCode::kUnavailable));
  absl::StatusOr<MmvSnapshot> next = source.Snapshot(MmvSource::kMapped);
  ASSERT_OK(next);
  EXPECT_TRUE(next->reloaded);
  EXPECT_EQ(next->file->header.generation1, 2u);
}

TEST(MmvSourceTest, BadMagicIsTheParsersErrorWithThePathAndRepairWorks) {
  const std::string path = FreshPath();
  const format::MmvImage image = Build(BaseSpec());
  Replace(path, image.bytes);
  MmvSource source(path);
  absl::StatusOr<MmvSnapshot> first = source.Snapshot();
  ASSERT_OK(first);

  const uint8_t bad[] = {'X', 'M', 'V'};
  WriteInPlace(path, 0, bad);
  for (int i = 0; i < 2; ++i) {
    EXPECT_THAT(
        source.Snapshot(),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 StartsWith(absl::StrCat(
                     path, ": offset 0: bad magic: not an MMV file"))));
  }
  WriteInPlace(path, 0, std::span(image.bytes).first(3));
  absl::StatusOr<MmvSnapshot> repaired = source.Snapshot();
  ASSERT_OK(repaired);
  EXPECT_TRUE(repaired->reloaded);
  EXPECT_EQ(repaired->file->metrics.size(), 3u);
}

TEST(MmvSourceTest, DamagedStructureIsDataLossWithPathAndOffset) {
  const std::string path = FreshPath();
  std::vector<uint8_t> bytes = Build(BaseSpec()).bytes;
  // First TOC entry's section type.
  const int32_t bogus_type = 9;
  std::memcpy(bytes.data() + format::kMmvHeaderSize, &bogus_type, 4);
  Replace(path, bytes);
  MmvSource source(path);
  EXPECT_THAT(source.Snapshot(),
              StatusIs(absl::StatusCode::kDataLoss,
                       StartsWith(absl::StrCat(
                           path, ": offset 40: TOC entry 0: unknown section "
                                 "type 9"))));
  Replace(path, Build(BaseSpec()).bytes);
  ASSERT_OK(source.Snapshot());
}

TEST(MmvSourceTest, StringValueOutsideTheStringsSectionFailsEverySnapshot) {
  // ParseMmv accepts the file (M30 is checked per value), so the failure
  // comes after the metadata was parsed; it must not leave that metadata
  // behind for the next snapshot to use.
  const std::string path = FreshPath();
  const format::MmvImage image = Build(BaseSpec());
  Replace(path, image.bytes);
  MmvSource source(path);
  ASSERT_OK(source.Snapshot());

  const uint64_t extra =
      image.slot(kNameItem).value_offset + format::kMmvValueExtraOffset;
  WriteU64InPlace(path, extra, 8);
  WriteU64InPlace(path, 8, 2);  // a new generation, as a writer would
  WriteU64InPlace(path, kG2Offset, 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_THAT(source.Snapshot(),
                StatusIs(absl::StatusCode::kDataLoss,
                         AllOf(StartsWith(absl::StrCat(path, ": offset ",
                                                       extra, ": ")),
                               HasSubstr("string offset 8"))));
  }
  WriteU64InPlace(path, extra, image.slot(kNameItem).string_offset);
  absl::StatusOr<MmvSnapshot> repaired = source.Snapshot();
  ASSERT_OK(repaired);
  EXPECT_TRUE(repaired->reloaded);
  EXPECT_EQ(StringOf(*repaired, kNameItem), "");
}

TEST(MmvSourceTest, DirectoryIsNotARegularFile) {
  const std::string dir = ::testing::TempDir();
  MmvSource source(dir);
  EXPECT_THAT(source.Snapshot(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not a regular file")));
}

// ---------------------------------------------------------------------------
// Stress: the file is truncated and rewritten while it is being read. Every
// snapshot must be either a clean error or internally consistent.
//
// Every complete image of generation g holds values that are a function of
// g, so a snapshot mixing two generations (or holding a half-written one)
// shows up as a wrong value. Generations only increase, as in real writers;
// the reader's g1/g2 re-check relies on that.

constexpr uint32_t kStressStringItem = 100;    // per instance
constexpr uint32_t kStressSingularItem = 101;  // singular string
constexpr int kStressLayouts = 3;

uint64_t StressCounter(uint64_t g, uint32_t item, int32_t instance) {
  return g * 1'000'000 + item * 1000 + static_cast<uint64_t>(instance);
}
std::string StressString(uint64_t g, uint32_t item, int32_t instance) {
  return absl::StrCat("g", g, " item ", item, " instance ", instance);
}

// Layout k: StressInstances(k) instances, 2 + k counters and two string
// metrics; layout 2 is version 2 (names in string slots) and large enough
// (~90 KB) that copying it takes a while. The cluster field records k.
int StressInstances(int layout) {
  constexpr int kInstances[kStressLayouts] = {2, 5, 150};
  return kInstances[layout];
}

format::MmvSpec StressSpec(int layout, uint64_t generation) {
  format::MmvSpec spec;
  spec.version = layout == 2 ? format::kMmvVersion2 : 0;
  spec.generation = generation;
  spec.cluster = layout;
  format::MmvSpecIndom indom = Indom(kIndom);
  for (int i = 0; i < StressInstances(layout); ++i) {
    indom.instances.push_back({i * 10, absl::StrCat("instance-", i)});
  }
  spec.indoms.push_back(indom);
  for (int m = 0; m < 2 + layout; ++m) {
    spec.metrics.push_back(Metric(absl::StrCat("counter", m),
                                  static_cast<uint32_t>(m + 1),
                                  format::MmvType::kU64, format::kMmvSemCounter,
                                  kIndom));
  }
  spec.metrics.push_back(Metric("state", kStressStringItem,
                                format::MmvType::kString,
                                format::kMmvSemInstant, kIndom));
  spec.metrics.push_back(Metric("label", kStressSingularItem,
                                format::MmvType::kString,
                                format::kMmvSemDiscrete));
  return spec;
}

size_t StressValueCount(int layout) {
  return static_cast<size_t>((2 + layout + 1) * StressInstances(layout) + 1);
}

std::vector<uint8_t> StressImage(int layout, uint64_t g) {
  format::MmvImage image = Build(StressSpec(layout, g));
  for (const auto& [key, slot] : image.slots) {
    const auto& [item, instance] = key;
    if (item == kStressStringItem || item == kStressSingularItem) {
      format::SetMmvString(image.bytes, slot, StressString(g, item, instance));
    } else {
      format::SetMmvU64(image.bytes, slot, StressCounter(g, item, instance));
    }
  }
  return std::move(image.bytes);
}

// Empty when `snap` is one complete generation, else what is wrong.
std::string Inconsistency(const MmvSnapshot& snap) {
  const format::MmvFile& file = *snap.file;
  const uint64_t g = file.header.generation1;
  const int layout = file.header.cluster;
  if (layout < 0 || layout >= kStressLayouts) {
    return absl::StrCat("cluster ", layout, " is no layout");
  }
  if (file.values.size() != StressValueCount(layout)) {
    return absl::StrCat("generation ", g, " layout ", layout, ": ",
                        file.values.size(), " values");
  }
  for (const format::MmvValueEntry& v : file.values) {
    const format::MmvMetric& m = file.metrics[v.metric_index];
    absl::StatusOr<format::MmvValue> value =
        format::ReadMmvValue(snap.image, file, v);
    if (!value.ok()) {
      return absl::StrCat("generation ", g, ": ", value.status().ToString());
    }
    if (m.type == format::MmvType::kString) {
      if (value->str != StressString(g, m.item, v.instance)) {
        return absl::StrCat("generation ", g, " item ", m.item, " instance ",
                            v.instance, ": string \"", value->str, "\"");
      }
    } else if (value->u64 != StressCounter(g, m.item, v.instance)) {
      return absl::StrCat("generation ", g, " item ", m.item, " instance ",
                          v.instance, ": counter ", value->u64);
    }
  }
  return "";
}

// The application's side of the file: a descriptor written with pwrite, or
// a MAP_SHARED mapping written with memcpy. Both keep the file's size.
class StressFile {
 public:
  virtual ~StressFile() = default;
  virtual void Truncate(uint64_t size) = 0;
  // Extends the file as needed.
  virtual void Write(uint64_t offset, std::span<const uint8_t> bytes) = 0;
  uint64_t size() const { return size_; }
  // The first failed system call, or empty.
  const std::string& error() const { return error_; }

 protected:
  void Fail(absl::string_view what) {
    if (error_.empty()) error_ = absl::StrCat(what, ": ", std::strerror(errno));
  }

  uint64_t size_ = 0;
  std::string error_;
};

class PwriteFile : public StressFile {
 public:
  explicit PwriteFile(const std::string& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
                   0644)) {
    if (fd_ < 0) Fail("open");
  }
  ~PwriteFile() override {
    if (fd_ >= 0) ::close(fd_);
  }
  void Truncate(uint64_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) Fail("ftruncate");
    size_ = size;
  }
  void Write(uint64_t offset, std::span<const uint8_t> bytes) override {
    if (::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset)) !=
        static_cast<ssize_t>(bytes.size())) {
      Fail("pwrite");
    }
    size_ = std::max<uint64_t>(size_, offset + bytes.size());
  }

 private:
  int fd_;
};

// Writes only through the mapping, and only below the current end of file
// (it grows the file first), so the writer itself never faults.
class MappedFile : public StressFile {
 public:
  MappedFile(const std::string& path, size_t capacity) : capacity_(capacity) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      Fail("open");
      return;
    }
    void* map = ::mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_SHARED,
                       fd_, 0);
    if (map == MAP_FAILED) {
      Fail("mmap");
      return;
    }
    map_ = static_cast<uint8_t*>(map);
  }
  ~MappedFile() override {
    if (map_ != nullptr) ::munmap(map_, capacity_);
    if (fd_ >= 0) ::close(fd_);
  }
  void Truncate(uint64_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) Fail("ftruncate");
    size_ = size;
  }
  void Write(uint64_t offset, std::span<const uint8_t> bytes) override {
    if (map_ == nullptr || offset + bytes.size() > capacity_) {
      errno = EINVAL;
      Fail("write past the mapping");
      return;
    }
    if (offset + bytes.size() > size_) Truncate(offset + bytes.size());
    std::memcpy(map_ + offset, bytes.data(), bytes.size());
  }

 private:
  size_t capacity_;
  int fd_ = -1;
  uint8_t* map_ = nullptr;
};

// Rewrites `file` in random ways until `stop`. A complete generation is
// written as a seqlock writer must: g2 cleared before anything else changes,
// the content with g2 still 0, g2 last (libpcp_mmv too writes g2 last when
// it creates a file).
void RunStressWriter(StressFile* file, bool allow_same_generation_rewrite,
                     uint32_t seed, const std::atomic<bool>* stop,
                     std::atomic<int>* complete_writes) {
  std::mt19937 rng(seed);
  auto uniform = [&rng](uint64_t lo, uint64_t hi) {  // [lo, hi]
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  auto random_size = [&](uint64_t below) -> uint64_t {
    switch (uniform(0, 5)) {
      case 0: return 0;
      case 1: return std::min<uint64_t>(uniform(1, 8), below);
      case 2: return std::min<uint64_t>(uniform(39, 41), below);
      default: return below == 0 ? 0 : uniform(0, below - 1);
    }
  };
  auto unsettle = [&] {
    if (file->size() >= kG2Offset + 8) {
      const uint8_t zero[8] = {};
      file->Write(kG2Offset, zero);
    } else {
      file->Truncate(0);
    }
  };
  auto without_g2 = [](std::vector<uint8_t> bytes) {
    std::memset(bytes.data() + kG2Offset, 0, 8);
    return bytes;
  };

  uint64_t generation = 1;
  std::vector<uint8_t> current = StressImage(0, generation);
  // Whether the file holds a prefix of `current` and nothing else.
  bool holds_current = false;
  while (!stop->load(std::memory_order_relaxed)) {
    const uint64_t op = uniform(0, 99);
    if (op < 25) {  // truncate to a random size
      file->Truncate(random_size(file->size()));
    } else if (op < 65) {  // a complete new generation, maybe a new layout
      const int layout = static_cast<int>(uniform(0, kStressLayouts - 1));
      current = StressImage(layout, ++generation);
      unsettle();
      if (uniform(0, 1) == 0) file->Truncate(0);
      file->Write(0, without_g2(current));
      if (file->size() > current.size()) file->Truncate(current.size());
      file->Write(kG2Offset, std::span(current).subspan(kG2Offset, 8));
      holds_current = true;
      complete_writes->fetch_add(1, std::memory_order_relaxed);
    } else if (op < 75 && allow_same_generation_rewrite && holds_current) {
      // The same bytes again (pwrite only: a reader can see a shorter file
      // but never a zero-filled one).
      if (uniform(0, 1) == 0) file->Truncate(0);
      file->Write(0, current);
      complete_writes->fetch_add(1, std::memory_order_relaxed);
    } else {  // the writer dies part way through a new generation
      const int layout = static_cast<int>(uniform(0, kStressLayouts - 1));
      const std::vector<uint8_t> next = StressImage(layout, ++generation);
      unsettle();
      file->Truncate(0);
      const uint64_t prefix = std::max<uint64_t>(1, random_size(next.size()));
      const std::vector<uint8_t> unsettled = without_g2(next);
      file->Write(0, std::span(unsettled).first(prefix));
      if (prefix >= kG2Offset + 8 && uniform(0, 1) == 0) {
        file->Write(kG2Offset, std::span(next).subspan(kG2Offset, 8));
      }
      holds_current = false;
    }
    if (!file->error().empty()) return;
    // Let the reader see the file at rest now and then.
    std::this_thread::sleep_for(std::chrono::microseconds(uniform(0, 300)));
  }
}

struct StressCounts {
  int ok = 0;
  int reloads = 0;
  int errors = 0;
  int mapped = 0;  // snapshots whose values were in the mapping
  int torn = 0;    // of those, reads the file changed under
  std::map<absl::StatusCode, int> by_code;
};

// Reads `path` with Snapshot() in a loop for about `duration` while `file`
// is rewritten by another thread.
// With kMapped, a mapped snapshot's values are taken with CopyMapped (the
// guarded read of the mapping plus the generation check after it), which
// fails with Unavailable when the file changed or shrank under it.
StressCounts ReadWhileRewriting(const std::string& path, StressFile* file,
                                bool allow_same_generation_rewrite,
                                std::chrono::milliseconds duration,
                                MmvSource::Values values = MmvSource::kCopied) {
  std::atomic<bool> stop{false};
  std::atomic<int> complete_writes{0};
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE(absl::StrCat("writer seed ", seed));
  std::thread writer(RunStressWriter, file, allow_same_generation_rewrite,
                     seed, &stop, &complete_writes);

  StressCounts counts;
  int inconsistent = 0;
  MmvSource source(path);
  const auto deadline = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < deadline && inconsistent < 5) {
    absl::StatusOr<MmvSnapshot> snap = source.Snapshot(values);
    if (snap.ok() && snap->mapped) {
      ++counts.mapped;
      absl::StatusOr<std::span<const uint8_t>> copy = source.CopyMapped();
      if (!copy.ok()) {
        snap = copy.status();
        ++counts.torn;
      } else {
        snap->image = *copy;
      }
    }
    if (snap.ok()) {
      ++counts.ok;
      counts.reloads += snap->reloaded;
      if (std::string why = Inconsistency(*snap); !why.empty()) {
        ADD_FAILURE() << "inconsistent snapshot: " << why;
        ++inconsistent;
      }
      continue;
    }
    ++counts.errors;
    ++counts.by_code[snap.status().code()];
    const absl::StatusCode code = snap.status().code();
    if (code != absl::StatusCode::kInvalidArgument &&
        code != absl::StatusCode::kUnavailable &&
        code != absl::StatusCode::kDataLoss) {
      ADD_FAILURE() << "unexpected error: " << snap.status();
      ++inconsistent;
    } else if (!absl::StartsWith(snap.status().message(),
                                 absl::StrCat(path, ": "))) {
      ADD_FAILURE() << "error without the path: " << snap.status();
      ++inconsistent;
    }
  }
  stop = true;
  writer.join();
  EXPECT_EQ(file->error(), "");
  EXPECT_GT(complete_writes.load(), 0);

  std::string by_code;
  for (const auto& [code, n] : counts.by_code) {
    absl::StrAppend(&by_code, " ", absl::StatusCodeToString(code), "=", n);
  }
  std::cout << "snapshots: " << counts.ok << " ok (" << counts.reloads
            << " reloads, " << counts.mapped << " mapped, " << counts.torn
            << " torn), " << counts.errors << " errors:" << by_code
            << "; writer: " << complete_writes.load()
            << " complete generations\n";
  ::testing::Test::RecordProperty("ok_snapshots", counts.ok);
  ::testing::Test::RecordProperty("failed_snapshots", counts.errors);

  // After the storm, a complete file reads cleanly again.
  const std::vector<uint8_t> last = StressImage(1, 1'000'000);
  file->Truncate(0);
  file->Write(0, last);
  absl::StatusOr<MmvSnapshot> calm = source.Snapshot();
  EXPECT_OK(calm);
  if (calm.ok()) {
    EXPECT_EQ(Inconsistency(*calm), "");
  }
  return counts;
}

constexpr std::chrono::milliseconds kStressDuration(2000);

// Each storm is read twice: values copied with pread (kCopied), and read in
// place from the file's mapping (kMapped), where a read past the shrunken
// end is a failed read, never a SIGBUS.
class MmvSourceStressTest : public ::testing::TestWithParam<MmvSource::Values> {
 protected:
  void ExpectCounts(const StressCounts& counts) {
    EXPECT_GT(counts.ok, 0);
    EXPECT_GT(counts.reloads, 0);
    EXPECT_GT(counts.errors, 0);
    if (GetParam() == MmvSource::kMapped) EXPECT_GT(counts.mapped, 0);
  }
};

TEST_P(MmvSourceStressTest, TruncatedAndRewrittenWhileReadNeverCrashes) {
  const std::string path = FreshPath();
  PwriteFile file(path);
  ASSERT_EQ(file.error(), "");
  file.Write(0, StressImage(0, 1));
  ExpectCounts(ReadWhileRewriting(path, &file, /*allow_same_generation_rewrite=*/true,
                                  kStressDuration, GetParam()));
}

TEST_P(MmvSourceStressTest, FileTruncatedUnderTheWritersMappingNeverFaults) {
  // The application keeps the file mapped and writes through the mapping
  // while the file shrinks and grows.
  const std::string path = FreshPath();
  size_t capacity = 0;
  for (int layout = 0; layout < kStressLayouts; ++layout) {
    capacity = std::max(capacity, StressImage(layout, 1).size());
  }
  MappedFile file(path, capacity);
  ASSERT_EQ(file.error(), "");
  file.Write(0, StressImage(0, 1));
  ExpectCounts(ReadWhileRewriting(path, &file, /*allow_same_generation_rewrite=*/false,
                                  kStressDuration, GetParam()));
}

INSTANTIATE_TEST_SUITE_P(CopiedAndMapped, MmvSourceStressTest,
                         ::testing::Values(MmvSource::kCopied, MmvSource::kMapped),
                         [](const ::testing::TestParamInfo<MmvSource::Values>& p) {
                           return p.param == MmvSource::kMapped ? "Mapped" : "Copied";
                         });

}  // namespace
}  // namespace mmvlog::archiver

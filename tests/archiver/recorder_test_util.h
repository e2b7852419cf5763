// Helpers for the recorder and record-loop tests: a temporary MMV directory
// the test writes files into as an application would, reading an archive
// back into plain values, and running the real pmlogcheck when installed.
#ifndef MMVLOG_TESTS_ARCHIVER_RECORDER_TEST_UTIL_H_
#define MMVLOG_TESTS_ARCHIVER_RECORDER_TEST_UTIL_H_

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "archiver/store/archive_reader.h"
#include "archiver/file/posix_file.h"
#include "archiver/record/recorder.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_framing.h"
#include "format/archive/archive_meta.h"
#include "format/archive/archive_result.h"
#include "format/mmv/mmv_format.h"
#include "format/mmv/mmv_writer.h"
#include "tests/testing/status_matchers.h"

namespace mmvlog::testing {

// A fresh directory under the test's temporary directory.
inline std::string NewTempDir(const std::string& name) {
  std::string tmpl = absl::StrCat(::testing::TempDir(), "/", name, "_XXXXXX");
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const char* dir = ::mkdtemp(buf.data());
  EXPECT_NE(dir, nullptr) << tmpl;
  return dir == nullptr ? tmpl : std::string(dir);
}

inline format::MmvSpecMetric SpecMetric(std::string name, uint32_t item,
                                        format::MmvType type = format::MmvType::kU64,
                                        uint32_t indom = format::kMmvIndomNull) {
  format::MmvSpecMetric m;
  m.name = std::move(name);
  m.item = item;
  m.type = type;
  m.semantics = format::kMmvSemCounter;
  m.indom = indom;
  return m;
}

inline format::MmvSpecIndom SpecIndom(
    uint32_t serial, std::vector<std::pair<int32_t, std::string>> instances) {
  format::MmvSpecIndom d;
  d.serial = serial;
  for (auto& [id, name] : instances) d.instances.push_back({id, std::move(name)});
  return d;
}

// An MMV file the test plays the application for.
class MmvApp {
 public:
  MmvApp(std::string path, format::MmvSpec spec) : path_(std::move(path)), spec_(std::move(spec)) {}

  // (Re)creates the file as a new inode (libpcp_mmv unlinks and recreates).
  void Create() {
    absl::StatusOr<format::MmvImage> image = format::BuildMmv(spec_);
    ASSERT_OK(image);
    image_ = std::move(*image);
    ASSERT_OK(archiver::WriteFileAtomically(path_, image_.bytes));
  }
  // A restart: a new generation, possibly with new metadata.
  void Restart(format::MmvSpec spec) {
    spec.generation = spec_.generation + 1;
    spec_ = std::move(spec);
    Create();
  }
  void SetU64(uint32_t item, uint64_t v, int32_t inst = format::kMmvInNull) {
    format::SetMmvU64(image_.bytes, image_.slot(item, inst), v);
    Flush();
  }
  void SetDouble(uint32_t item, double v, int32_t inst = format::kMmvInNull) {
    format::SetMmvDouble(image_.bytes, image_.slot(item, inst), v);
    Flush();
  }
  // Writes the whole image in place (same inode), as a mapping would.
  void Flush() {
    int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0) << path_;
    ASSERT_EQ(::pwrite(fd, image_.bytes.data(), image_.bytes.size(), 0),
              static_cast<ssize_t>(image_.bytes.size()));
    ::close(fd);
  }
  // For other updates: change image() with format::SetMmv*, then Flush().
  format::MmvImage& image() { return image_; }
  void Remove() { ASSERT_EQ(::unlink(path_.c_str()), 0) << path_; }

  const format::MmvSpec& spec() const { return spec_; }
  format::MmvSpec& mutable_spec() { return spec_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  format::MmvSpec spec_;
  format::MmvImage image_;
};

inline constexpr uint32_t kPmcdDomain = 2;

// Everything an archive holds, decoded.
struct ArchiveContents {
  format::LogLabel label;
  archiver::ArchiveMetadata meta;
  // Without the prologue and epilogue (pmcd.* of domain 2: see logues)
  // and without their descriptors and instance domain in `meta`.
  std::vector<format::Result> results;  // marks have no sets
  std::vector<format::Result> logues;   // pmlogger's prologue/epilogue records
  std::vector<format::Desc> logue_descs;
  std::vector<std::string> volumes;
  std::vector<format::IndexEntry> index;
  std::vector<std::string> warnings;

  size_t marks() const {
    size_t n = 0;
    for (const auto& r : results) n += r.sets.empty();
    return n;
  }
  std::vector<const format::Result*> data() const {
    std::vector<const format::Result*> out;
    for (const auto& r : results) {
      if (!r.sets.empty()) out.push_back(&r);
    }
    return out;
  }
  uint32_t Pmid(const std::string& name) const {
    auto it = meta.pmid_by_name.find(name);
    return it == meta.pmid_by_name.end() ? 0 : it->second;
  }
  // The set of `name` in `r`, or nullptr.
  const format::ValueSet* Set(const format::Result& r, const std::string& name) const {
    const uint32_t pmid = Pmid(name);
    for (const auto& s : r.sets) {
      if (s.pmid == pmid) return &s;
    }
    return nullptr;
  }
};

inline ArchiveContents ReadArchive(const std::string& base) {
  ArchiveContents out;
  absl::StatusOr<std::unique_ptr<archiver::ArchiveReader>> r = archiver::ArchiveReader::Open(base);
  EXPECT_OK(r) << base;
  if (!r.ok()) return out;
  out.label = (*r)->label();
  out.meta = (*r)->meta();
  out.volumes = (*r)->volumes();
  out.index = (*r)->index();
  for (;;) {
    absl::StatusOr<std::optional<format::DecodedResult>> next = (*r)->Next();
    EXPECT_OK(next) << base;
    if (!next.ok() || !next->has_value()) break;
    format::Result res;
    res.timestamp = (*next)->timestamp;
    for (const format::DecodedValueSet& ds : (*next)->sets) {
      const format::Desc* d = out.meta.Desc(ds.pmid);
      EXPECT_NE(d, nullptr) << "pmid " << ds.pmid << " has no descriptor";
      if (d == nullptr) continue;
      absl::StatusOr<format::ValueSet> vs = format::ValueSetFromDecoded(ds, d->type);
      EXPECT_OK(vs);
      if (vs.ok()) res.sets.push_back(std::move(*vs));
    }
    const bool logue = !res.sets.empty() &&
                       std::all_of(res.sets.begin(), res.sets.end(), [](const format::ValueSet& s) {
                         return format::PmidDomain(s.pmid) == kPmcdDomain;
                       });
    (logue ? out.logues : out.results).push_back(std::move(res));
  }
  out.warnings = (*r)->warnings();
  // The logger's own metrics out of the way of the tests' counts.
  std::vector<format::Desc> descs;
  for (format::Desc& d : out.meta.descs) {
    (format::PmidDomain(d.pmid) == kPmcdDomain ? out.logue_descs : descs).push_back(std::move(d));
  }
  out.meta.descs = std::move(descs);
  out.meta.desc_by_pmid.clear();
  for (size_t i = 0; i < out.meta.descs.size(); ++i) out.meta.desc_by_pmid[out.meta.descs[i].pmid] = i;
  for (const format::Desc& d : out.logue_descs) {
    for (const std::string& n : d.names) out.meta.pmid_by_name.erase(n);
  }
  out.meta.indoms.erase(format::InDomBuild(kPmcdDomain, 1));
  return out;
}

// The .meta records in file order, as written (deltas not applied).
inline std::vector<format::MetaRecord> ReadMetaRecords(const std::string& base, int version) {
  std::vector<format::MetaRecord> out;
  absl::StatusOr<std::string> bytes = archiver::ReadWholeFile(base + ".meta");
  EXPECT_OK(bytes);
  if (!bytes.ok()) return out;
  std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
  format::RecordScanner scanner(data, 0);
  for (bool first = true;; first = false) {
    absl::StatusOr<std::optional<format::Frame>> f = scanner.Next();
    EXPECT_OK(f);
    if (!f.ok() || !f->has_value()) break;
    if (first) continue;  // the label
    absl::StatusOr<format::MetaRecord> rec =
        format::DecodeMetaRecord(version, (*f)->payload, (*f)->offset);
    EXPECT_OK(rec);
    if (rec.ok()) out.push_back(std::move(*rec));
  }
  return out;
}

struct PmlogcheckOutcome {
  bool ran = false;  // false: pmlogcheck is not installed
  int exit_code = -1;
  std::string output;
  std::vector<std::string> unexpected;  // lines beyond the usual -v chatter
};

inline constexpr char kPmlogcheck[] = "/usr/bin/pmlogcheck";

// Runs `pmlogcheck -v base` (TZ=UTC). A good archive prints only the pass
// lines and the record counts.
inline PmlogcheckOutcome RunPmlogcheck(const std::string& base) {
  PmlogcheckOutcome o;
  if (::access(kPmlogcheck, X_OK) != 0) return o;
  const std::string cmd = absl::StrCat("env TZ=UTC PCP_DERIVED_CONFIG= ", kPmlogcheck,
                                       " -v '", base, "' 2>&1");
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return o;
  char buf[4096];
  size_t n;
  while ((n = ::fread(buf, 1, sizeof(buf), p)) > 0) o.output.append(buf, n);
  const int status = ::pclose(p);
  o.ran = true;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  for (absl::string_view line : absl::StrSplit(o.output, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "Scanning for components of archive") ||
        absl::StrContains(line, ": start pass") ||
        (absl::StartsWith(line, "Processed ") &&
         (absl::EndsWith(line, " pmResult records") || absl::EndsWith(line, " <mark> records")))) {
      continue;
    }
    o.unexpected.emplace_back(line);
  }
  return o;
}

// Expects pmlogcheck to accept `base` (when it is installed).
#define EXPECT_PMLOGCHECK_OK(base)                                              \
  do {                                                                          \
    ::mmvlog::testing::PmlogcheckOutcome o_ = ::mmvlog::testing::RunPmlogcheck(base); \
    if (o_.ran) {                                                               \
      EXPECT_EQ(o_.exit_code, 0) << o_.output;                                  \
      EXPECT_THAT(o_.unexpected, ::testing::IsEmpty()) << o_.output;            \
    }                                                                           \
  } while (0)

// Recorder options for tests: a v3 archive `base` from the files in `dir`.
inline archiver::RecorderOptions TestRecorderOptions(const std::string& dir,
                                                     const std::string& base) {
  archiver::RecorderOptions o;
  o.mmv_dir = dir;
  o.archive_base = base;
  o.host.hostname = "testhost";
  o.host.timezone = "UTC";
  o.host.zoneinfo = ":Etc/UTC";
  o.host.machineid = "0123456789abcdef0123456789abcdef";
  return o;
}

// Collects the recorder's log lines.
struct LogSink {
  std::vector<std::pair<archiver::LogLevel, std::string>> lines;
  archiver::LogFunction fn() {
    return [this](archiver::LogLevel level, const std::string& line) {
      lines.push_back({level, line});
    };
  }
  // Lines at `level` containing every one of `needles`.
  size_t Count(archiver::LogLevel level, std::vector<std::string> needles) const {
    size_t n = 0;
    for (const auto& [l, line] : lines) {
      if (l != level) continue;
      bool all = true;
      for (const auto& s : needles) all &= absl::StrContains(line, s);
      n += all;
    }
    return n;
  }
  std::string All() const {
    std::string out;
    for (const auto& [l, line] : lines) absl::StrAppend(&out, static_cast<int>(l), " ", line, "\n");
    return out;
  }
};

}  // namespace mmvlog::testing

#endif  // MMVLOG_TESTS_ARCHIVER_RECORDER_TEST_UTIL_H_

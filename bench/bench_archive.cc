#include "bench/bench_archive.h"

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "archiver/store/archive_writer.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_meta.h"
#include "format/archive/archive_result.h"
#include "format/archive/archive_types.h"
#include "format/pm_units.h"

namespace mmvlog::bench {
namespace {

constexpr uint64_t kValueBase = 1'000'000'000'000;

}  // namespace

uint64_t BenchValue(int64_t x, int64_t k) {
  const uint64_t ux = static_cast<uint64_t>(x), uk = static_cast<uint64_t>(k);
  return kValueBase + 1000 * ux + uk * (37 * (ux % 997 + 1)) + (uk * uk * ux) % 11;
}

absl::Status AddBenchMetadata(int metrics, int instances, archiver::ArchiveWriter* w) {
  format::PmUnits count;
  count.dim_count = 1;
  const uint32_t indom = format::InDomBuild(kBenchDomain, kBenchIndomSerial);
  for (int m = 0; m < metrics; ++m) {
    format::Desc desc;
    desc.pmid = format::PmidBuild(kBenchDomain, 0, m);
    desc.type = format::kTypeU64;
    desc.indom = indom;
    desc.sem = format::kSemCounter;
    desc.units = format::UnitsToWord(count);
    desc.names = {absl::StrCat("bench.m", m)};
    if (absl::Status s = w->AddDesc(desc); !s.ok()) return s;
  }
  format::InDom in;
  in.timestamp = {kBenchStartSec, 0};
  in.indom = indom;
  for (int i = 0; i < instances; ++i) in.instances.push_back({i, absl::StrCat("i", i)});
  return w->AddInDom(in);
}

absl::Status WriteBenchArchive(const std::string& base, const BenchArchiveSpec& spec) {
  archiver::ArchiveOptions options;
  options.version = spec.version;
  options.hostname = "bench";
  options.timezone = "UTC";
  options.zoneinfo = ":Etc/UTC";
  absl::StatusOr<std::unique_ptr<archiver::ArchiveWriter>> writer =
      archiver::ArchiveWriter::Create(base, options, {spec.start_sec, 0});
  if (!writer.ok()) return writer.status();
  archiver::ArchiveWriter& w = **writer;
  if (absl::Status s = AddBenchMetadata(spec.metrics, spec.instances, &w); !s.ok()) return s;
  format::Result r;
  r.sets.resize(spec.metrics);
  for (int m = 0; m < spec.metrics; ++m) {
    r.sets[m].pmid = format::PmidBuild(kBenchDomain, 0, m);
    r.sets[m].type = format::kTypeU64;
    r.sets[m].values.resize(spec.instances);
    for (int i = 0; i < spec.instances; ++i) r.sets[m].values[i].inst = i;
  }
  for (int k = 0; k < spec.samples; ++k) {
    r.timestamp = {spec.start_sec + int64_t{k} * spec.interval_sec, 0};
    int64_t x = 0;
    for (format::ValueSet& set : r.sets) {
      for (format::ResultValue& v : set.values) v.u64 = BenchValue(x++, k);
    }
    if (absl::Status s = w.AppendResult(r); !s.ok()) return s;
  }
  return w.Close();
}

}  // namespace mmvlog::bench

// wide_archive BASE SAMPLES [METRICS INSTANCES [once]]: writes an archive as wide as
// a large application's (default 20 metrics x 100 instances = 2,000 columns)
// and SAMPLES records long, one a second, for the replay memory test: U64
// counters, DOUBLE instants and U32 discrete values in turn, one string, and
// a <mark> every 500 records. Values follow the record number, so an archive
// 10x longer holds the same kinds of values, 10x as many. With "once", one
// more metric, wide.once, is in the first record only (as pmlogger logs
// hinv.* once at its start), and there is no <mark>.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "archiver/store/archive_writer.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_meta.h"
#include "format/archive/archive_result.h"
#include "format/pm_units.h"

namespace {

constexpr int64_t kStart = 1'700'000'000;

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "wide_archive: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mmvlog;
  int samples = 0, metrics = 20, instances = 100;
  const bool once = argc == 6 && std::string(argv[5]) == "once";
  if ((argc != 3 && argc != 5 && !once) || !absl::SimpleAtoi(argv[2], &samples) ||
      (argc >= 5 && (!absl::SimpleAtoi(argv[3], &metrics) || !absl::SimpleAtoi(argv[4], &instances))) ||
      samples <= 0 || metrics <= 0 || instances <= 0) {
    std::fprintf(stderr, "usage: wide_archive BASE SAMPLES [METRICS INSTANCES [once]]\n");
    return 2;
  }
  archiver::ArchiveOptions o;
  o.hostname = "wide";
  o.timezone = "UTC";
  o.zoneinfo = ":Etc/UTC";
  absl::StatusOr<std::unique_ptr<archiver::ArchiveWriter>> w =
      archiver::ArchiveWriter::Create(argv[1], o, {kStart, 0});
  if (!w.ok()) return Fail(w.status());
  const uint32_t indom = format::InDomBuild(246, 1);
  auto type_of = [](int m) {
    return m % 3 == 0 ? format::kTypeU64 : m % 3 == 1 ? format::kTypeDouble : format::kTypeU32;
  };
  for (int m = 0; m <= metrics; ++m) {
    format::Desc d;
    d.pmid = format::PmidBuild(246, 0, static_cast<uint32_t>(m));
    if (m == metrics) {  // one string
      d.type = format::kTypeString;
      d.sem = format::kSemInstant;
      d.names = {"wide.label"};
    } else {
      d.type = type_of(m);
      d.sem = m % 3 == 0 ? format::kSemCounter : m % 3 == 1 ? format::kSemInstant : format::kSemDiscrete;
      d.indom = indom;
      format::PmUnits u;
      u.dim_count = 1;
      d.units = format::UnitsToWord(u);
      d.names = {absl::StrCat("wide.m", m)};
    }
    if (absl::Status s = (*w)->AddDesc(d); !s.ok()) return Fail(s);
  }
  const uint32_t once_pmid = format::PmidBuild(246, 1, 0);
  if (once) {
    format::Desc d;
    d.pmid = once_pmid;
    d.type = format::kTypeU32;
    d.sem = format::kSemDiscrete;
    d.names = {"wide.once"};
    if (absl::Status s = (*w)->AddDesc(d); !s.ok()) return Fail(s);
  }
  format::InDom in;
  in.indom = indom;
  in.timestamp = {kStart, 0};
  for (int i = 0; i < instances; ++i) in.instances.push_back({i, absl::StrCat("instance ", i), false});
  if (absl::Status s = (*w)->AddInDom(in); !s.ok()) return Fail(s);

  format::Result r;
  for (int m = 0; m <= metrics; ++m) {
    format::ValueSet set;
    set.pmid = format::PmidBuild(246, 0, static_cast<uint32_t>(m));
    set.type = m == metrics ? format::kTypeString : type_of(m);
    const int n = m == metrics ? 1 : instances;
    for (int i = 0; i < n; ++i) {
      format::ResultValue v;
      v.inst = m == metrics ? format::kInNull : i;
      set.values.push_back(v);
    }
    r.sets.push_back(set);
  }
  for (int k = 0; k < samples; ++k) {
    if (k > 0 && k % 500 == 0 && !once) {
      if (absl::Status s = (*w)->AppendMark({kStart + k - 1, 500'000'000}); !s.ok()) return Fail(s);
    }
    r.timestamp = {kStart + k, 0};
    for (int m = 0; m <= metrics; ++m) {
      for (size_t i = 0; i < r.sets[m].values.size(); ++i) {
        format::ResultValue& v = r.sets[m].values[i];
        const int64_t x = static_cast<int64_t>(m) * instances + static_cast<int64_t>(i);
        v.u64 = static_cast<uint64_t>(k) * static_cast<uint64_t>(x % 97 + 1) + static_cast<uint64_t>(x);
        v.f64 = std::sin(k * 0.01 + x) * 1000;
        if (m == metrics) v.bytes = absl::StrCat("state ", k % 7);
      }
    }
    if (once && k == 0) {
      format::Result first = r;
      format::ValueSet set;
      set.pmid = once_pmid;
      set.type = format::kTypeU32;
      set.values.resize(1);
      set.values[0].u64 = 42;
      first.sets.push_back(set);
      if (absl::Status s = (*w)->AppendResult(first); !s.ok()) return Fail(s);
      continue;
    }
    if (absl::Status s = (*w)->AppendResult(r); !s.ok()) return Fail(s);
  }
  if (absl::Status s = (*w)->Close(); !s.ok()) return Fail(s);
  return 0;
}

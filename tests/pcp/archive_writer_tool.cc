// Writes a deterministic test archive with ArchiveWriter and prints, as one
// JSON object, everything it wrote, for oracle tests that read the archive
// back with real PCP (pmdumplog, pmlogcheck, libpcp via python3-pcp).
//
// usage: archive_writer_tool VERSION BASE
// Content: every value type, an instance domain that grows and shrinks,
// labels of every type, help text for metrics and the indom, a <mark>, an
// error value set, and a volume switch every 4 results.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "archiver/store/archive_writer.h"
#include "format/archive/archive_format.h"
#include "format/json.h"
#include "format/pm_units.h"

using namespace mmvlog;  // NOLINT: a test program
using format::JsonNumber;
using format::JsonString;

namespace {

constexpr uint32_t kIndom = format::InDomBuild(70, (1 << 11) | 1);

struct Metric {
  const char* name;
  uint32_t item;
  int32_t type;
  int32_t sem;
  bool indom;
  format::PmUnits units;
};

const Metric kMetrics[] = {
    {"test.u32", 1, format::kTypeU32, format::kSemCounter, false, {0, 0, 1, 0, 0, 0, 0}},
    {"test.i32", 2, format::kType32, format::kSemInstant, false, {}},
    {"test.u64", 3, format::kTypeU64, format::kSemCounter, true, {1, 0, 0, 1, 0, 0, 0}},
    {"test.i64", 4, format::kType64, format::kSemInstant, false, {1, -1, 0, 1, 3, 0, 0}},
    {"test.float", 5, format::kTypeFloat, format::kSemInstant, true, {}},
    {"test.double", 6, format::kTypeDouble, format::kSemInstant, true, {0, 1, 0, 0, 2, 0, 0}},
    {"test.string", 7, format::kTypeString, format::kSemDiscrete, false, {}},
    {"test.strings", 8, format::kTypeString, format::kSemInstant, true, {}},
    {"test.errors", 9, format::kTypeU64, format::kSemCounter, false, {}},
};

void Check(const absl::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "archive_writer_tool: %s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

std::string Stamp(format::Timestamp t) { return absl::StrCat(t.sec, ".", t.nsec); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: archive_writer_tool 2|3 BASE\n");
    return 2;
  }
  const int version = std::atoi(argv[1]);
  const std::string base = argv[2];
  archiver::ArchiveOptions opts;
  opts.version = version;
  opts.hostname = "testhost.example";
  opts.timezone = "UTC";
  opts.zoneinfo = ":Etc/UTC";
  opts.pid = 4242;
  const format::Timestamp start{1700000000, 123456789};
  auto writer = archiver::ArchiveWriter::Create(base, opts, start);
  Check(writer.status(), "create");
  archiver::ArchiveWriter& w = **writer;

  std::string json = absl::StrCat("{\"version\":", version, ",\"hostname\":",
                                  JsonString(opts.hostname), ",\"timezone\":",
                                  JsonString(opts.timezone), ",\"start\":",
                                  JsonString(Stamp(start)), ",\"descs\":[");
  std::vector<format::HelpText> texts;
  for (size_t i = 0; i < std::size(kMetrics); ++i) {
    const Metric& m = kMetrics[i];
    format::Desc d;
    d.pmid = format::PmidBuild(70, 1, m.item);
    d.type = m.type;
    d.sem = m.sem;
    d.indom = m.indom ? kIndom : format::kIndomNull;
    d.units = format::UnitsToWord(m.units);
    d.names = {m.name};
    Check(w.AddDesc(d), "desc");
    absl::StrAppend(&json, i ? "," : "", "{\"pmid\":", d.pmid, ",\"name\":",
                    JsonString(m.name), ",\"type\":", m.type, ",\"sem\":", m.sem,
                    ",\"indom\":", d.indom, ",\"units\":",
                    JsonString(format::UnitsToString(m.units)), "}");
    format::HelpText one{format::kTextOneLine | format::kTextPmid, d.pmid,
                         absl::StrCat("one line help for ", m.name)};
    format::HelpText full{format::kTextHelp | format::kTextPmid, d.pmid,
                          absl::StrCat("Full help for ", m.name, ".\nSecond line.")};
    texts.push_back(one);
    texts.push_back(full);
  }
  texts.push_back({format::kTextOneLine | format::kTextIndom, kIndom, "test instances"});
  texts.push_back({format::kTextHelp | format::kTextIndom, kIndom, "Test instances.\nThey come and go."});
  json += "],\"texts\":[";
  for (size_t i = 0; i < texts.size(); ++i) {
    Check(w.AddHelpText(texts[i]), "text");
    absl::StrAppend(&json, i ? "," : "", "{\"type\":", texts[i].type, ",\"ident\":",
                    texts[i].ident, ",\"text\":", JsonString(texts[i].text), "}");
  }
  json += "],\"labels\":[";

  // Every label's flags hold its label type (as LOGIMPORT and pmlogger
  // write them), plus kLabelOptional where asked.
  auto labels = [&](uint32_t type, int32_t inst, const std::string& js, uint8_t flags) {
    absl::StatusOr<format::LabelSet> set =
        format::MakeLabelSet(inst, js, static_cast<uint8_t>(type | flags));
    Check(set.status(), "label set");
    return *set;
  };
  const std::vector<std::pair<std::string, format::LabelRecord>> label_records = {
      {"context", {start, format::kLabelContext, format::kLabelContextIdent,
                   {labels(format::kLabelContext, format::kInNull,
                           "{\"domainname\":\"example\",\"hostname\":\"testhost.example\","
                           "\"machineid\":\"0123456789abcdef\"}", 0)}}},
      {"domain", {start, format::kLabelDomain, 70,
                  {labels(format::kLabelDomain, format::kInNull, "{\"agent\":\"mmv\"}", 0)}}},
      {"cluster", {start, format::kLabelCluster, format::PmidBuild(70, 1, 0),
                   {labels(format::kLabelCluster, format::kInNull, "{\"app\":\"demo\"}", 0)}}},
      {"item", {start, format::kLabelItem, format::PmidBuild(70, 1, 3),
                {labels(format::kLabelItem, format::kInNull, "{\"unit\":\"bytes\",\"zone\":7}",
                        format::kLabelOptional)}}},
      {"indom", {start, format::kLabelIndom, kIndom,
                 {labels(format::kLabelIndom, format::kInNull, "{\"device_type\":\"disk\"}", 0)}}},
      {"instances", {start, format::kLabelInstances, kIndom,
                     {labels(format::kLabelInstances, 0, "{\"hot\":true}", 0),
                      labels(format::kLabelInstances, 2, "{\"model\":\"ssd\",\"size\":512}", 0)}}},
  };
  for (size_t i = 0; i < label_records.size(); ++i) {
    Check(w.AddLabels(label_records[i].second), "labels");
    std::vector<std::string> sets;
    for (const auto& s : label_records[i].second.sets) {
      std::vector<std::string> flags;
      for (const format::LabelEntry& e : s.labels) flags.push_back(absl::StrCat(e.flags));
      sets.push_back(absl::StrCat("{\"inst\":", s.inst, ",\"json\":", JsonString(s.json),
                                  ",\"flags\":[", absl::StrJoin(flags, ","), "]}"));
    }
    absl::StrAppend(&json, i ? "," : "", "{\"kind\":", JsonString(label_records[i].first),
                    ",\"type\":", label_records[i].second.type, ",\"ident\":",
                    label_records[i].second.ident, ",\"sets\":[", absl::StrJoin(sets, ","), "]}");
  }
  json += "],\"results\":[";

  // The instance domain over time: {0,1,2} then +3 at sample 3, -1 at sample 6.
  std::vector<std::pair<int32_t, std::string>> instances = {{0, "disk0"}, {1, "disk1"}, {2, "disk2"}};
  std::string indoms_json;
  for (int k = 0; k < 10; ++k) {
    format::Timestamp t{start.sec + k, static_cast<uint32_t>((start.nsec + k * 1000) % 1000000000)};
    if (k == 5) {
      Check(w.AppendMark(t), "mark");
      absl::StrAppend(&json, ",{\"t\":", JsonString(Stamp(t)), ",\"mark\":true}");
      continue;
    }
    if (k == 3) instances.push_back({3, "disk3 with spaces"});
    if (k == 6) instances.erase(instances.begin() + 1);
    if (k == 0 || k == 3 || k == 6) {
      format::InDom d;
      d.timestamp = t;
      d.indom = kIndom;
      std::vector<std::string> js;
      for (const auto& [id, name] : instances) {
        d.instances.push_back({id, name, false});
        js.push_back(absl::StrCat("[", id, ",", JsonString(name), "]"));
      }
      Check(w.AddInDom(d), "indom");
      absl::StrAppend(&indoms_json, indoms_json.empty() ? "" : ",", "{\"t\":",
                      JsonString(Stamp(t)), ",\"instances\":[", absl::StrJoin(js, ","), "]}");
    }
    if (k > 0 && k % 4 == 0) Check(w.NewVolume(), "volume");
    format::Result r;
    r.timestamp = t;
    std::vector<std::string> sets_json;
    for (const Metric& m : kMetrics) {
      format::ValueSet set;
      set.pmid = format::PmidBuild(70, 1, m.item);
      set.type = m.type;
      std::vector<std::pair<int32_t, std::string>> insts =
          m.indom ? instances : std::vector<std::pair<int32_t, std::string>>{{format::kInNull, ""}};
      if (m.item == 9 && k % 3 == 1) {
        set.error = -2;  // ENOENT as a PCP error code
        r.sets.push_back(set);
        sets_json.push_back(absl::StrCat("{\"pmid\":", set.pmid, ",\"error\":-2}"));
        continue;
      }
      std::vector<std::string> vals;
      for (const auto& [inst, name] : insts) {
        format::ResultValue v;
        v.inst = inst;
        std::string text;
        switch (m.type) {
          case format::kTypeU32: v.u64 = 4000000000u + k; text = absl::StrCat(v.u64); break;
          case format::kType32: v.i64 = -100000 - k; text = absl::StrCat(v.i64); break;
          case format::kTypeU64: v.u64 = 18000000000000000000ull + k * 1000 + inst; text = absl::StrCat(v.u64); break;
          case format::kType64: v.i64 = -9000000000000000000ll + k; text = absl::StrCat(v.i64); break;
          case format::kTypeFloat: v.f64 = static_cast<float>(0.25 * k + inst); text = JsonNumber(v.f64); break;
          case format::kTypeDouble: v.f64 = std::sqrt(2.0) * (k + 1) + inst; text = JsonNumber(v.f64); break;
          case format::kTypeString:
            v.bytes = m.indom ? absl::StrCat("state of ", name, " at ", k) : absl::StrCat("v", k, ".0");
            if (k == 2) v.bytes = "";  // an empty string is a value too
            text = JsonString(v.bytes);
            break;
        }
        set.values.push_back(v);
        vals.push_back(absl::StrCat("[", inst, ",", text, "]"));
      }
      r.sets.push_back(set);
      sets_json.push_back(absl::StrCat("{\"pmid\":", set.pmid, ",\"values\":[",
                                       absl::StrJoin(vals, ","), "]}"));
    }
    Check(w.AppendResult(r), "result");
    absl::StrAppend(&json, k ? "," : "", "{\"t\":", JsonString(Stamp(t)), ",\"sets\":[",
                    absl::StrJoin(sets_json, ","), "]}");
  }
  Check(w.Close(), "close");
  absl::StrAppend(&json, "],\"indoms\":[", indoms_json, "],\"volumes\":", w.volume() + 1, "}\n");
  std::fputs(json.c_str(), stdout);
  return 0;
}

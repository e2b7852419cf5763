// Reads an archive with archiver::ArchiveReader and prints, as one JSON
// object, everything it read: the label, volumes, descriptors, instance
// domain history, labels, help text, the temporal index, every result (each
// value converted with format::ValueFromDecoded for its descriptor's type)
// and the reader's warnings. For oracle tests that compare it with what
// real PCP (pmdumplog, libpcp) reads from the same archive.
//
// usage: archive_reader_tool ARCHIVE
// Exit status: 0 when the whole archive was read (warnings allowed), 1 when
// Open or Next failed or a value could not be converted (the JSON is still
// printed, with "error"), 2 for bad usage.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "archiver/store/archive_reader.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_result.h"
#include "format/json.h"
#include "format/pm_units.h"

using namespace mmvlog;  // NOLINT: a test program
using format::JsonNumber;
using format::JsonString;

namespace {

std::string Stamp(format::Timestamp t) {
  return JsonString(absl::StrFormat("%d.%09u", t.sec, t.nsec));
}

std::string ValueJson(const format::ResultValue& v, int32_t type) {
  switch (type) {
    case format::kType32:
    case format::kType64:
      return absl::StrCat(v.i64);
    case format::kTypeU32:
    case format::kTypeU64:
      return absl::StrCat(v.u64);
    case format::kTypeFloat:
    case format::kTypeDouble:
      return JsonNumber(v.f64);
    default:
      return JsonString(v.bytes);
  }
}

std::string LabelJson(const format::LogLabel& l) {
  return absl::StrCat("{\"version\":", l.version, ",\"pid\":", l.pid, ",\"start\":",
                      Stamp(l.start), ",\"volume\":", l.volume, ",\"features\":", l.features,
                      ",\"hostname\":", JsonString(l.hostname), ",\"timezone\":",
                      JsonString(l.timezone), ",\"zoneinfo\":", JsonString(l.zoneinfo), "}");
}

std::string MetaJson(const archiver::ArchiveMetadata& meta) {
  std::vector<std::string> descs;
  for (const format::Desc& d : meta.descs) {
    std::vector<std::string> names;
    for (const std::string& n : d.names) names.push_back(JsonString(n));
    descs.push_back(absl::StrCat(
        "{\"pmid\":", d.pmid, ",\"type\":", d.type, ",\"sem\":", d.sem, ",\"indom\":", d.indom,
        ",\"units_word\":", d.units, ",\"units\":",
        JsonString(format::UnitsToString(format::UnitsFromWord(d.units))), ",\"names\":[",
        absl::StrJoin(names, ","), "]}"));
  }
  // Instance domains by indom number, each in file order.
  std::vector<uint32_t> indom_ids;
  for (const auto& [id, history] : meta.indoms) indom_ids.push_back(id);
  std::sort(indom_ids.begin(), indom_ids.end());
  std::vector<std::string> indoms;
  for (uint32_t id : indom_ids) {
    for (const format::InDom& d : meta.indoms.at(id)) {
      std::vector<std::string> insts;
      for (const format::InDomInstance& i : d.instances) {
        insts.push_back(absl::StrCat("[", i.inst, ",", JsonString(i.name), "]"));
      }
      indoms.push_back(absl::StrCat("{\"indom\":", d.indom, ",\"t\":", Stamp(d.timestamp),
                                    ",\"delta\":", d.delta ? "true" : "false",
                                    ",\"instances\":[", absl::StrJoin(insts, ","), "]}"));
    }
  }
  std::vector<std::string> labels;
  for (const format::LabelRecord& r : meta.labels) {
    std::vector<std::string> sets;
    for (const format::LabelSet& s : r.sets) {
      std::vector<std::string> entries;
      for (const format::LabelEntry& e : s.labels) {
        const bool inside = size_t{e.name_offset} + e.name_length <= s.json.size() &&
                            size_t{e.value_offset} + e.value_length <= s.json.size();
        entries.push_back(absl::StrCat(
            "{\"name\":",
            JsonString(inside ? s.json.substr(e.name_offset, e.name_length) : "?"),
            ",\"value\":",
            JsonString(inside ? s.json.substr(e.value_offset, e.value_length) : "?"),
            ",\"flags\":", e.flags, "}"));
      }
      sets.push_back(absl::StrCat("{\"inst\":", s.inst, ",\"json\":", JsonString(s.json),
                                  ",\"error\":", s.error, ",\"labels\":[",
                                  absl::StrJoin(entries, ","), "]}"));
    }
    labels.push_back(absl::StrCat("{\"t\":", Stamp(r.timestamp), ",\"type\":", r.type,
                                  ",\"ident\":", r.ident, ",\"sets\":[",
                                  absl::StrJoin(sets, ","), "]}"));
  }
  std::vector<std::string> texts;
  for (const format::HelpText& t : meta.texts) {
    texts.push_back(absl::StrCat("{\"type\":", t.type, ",\"ident\":", t.ident,
                                 ",\"text\":", JsonString(t.text), "}"));
  }
  return absl::StrCat("\"descs\":[", absl::StrJoin(descs, ","), "],\"indoms\":[",
                      absl::StrJoin(indoms, ","), "],\"labels\":[",
                      absl::StrJoin(labels, ","), "],\"texts\":[",
                      absl::StrJoin(texts, ","), "]");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: archive_reader_tool ARCHIVE\n");
    return 2;
  }
  auto reader = archiver::ArchiveReader::Open(argv[1]);
  if (!reader.ok()) {
    std::printf("{\"error\":%s}\n", JsonString(reader.status().ToString()).c_str());
    return 1;
  }
  archiver::ArchiveReader& r = **reader;
  std::string json = absl::StrCat("{\"base\":", JsonString(r.base()), ",\"label\":",
                                  LabelJson(r.label()), ",\"volumes\":[");
  for (size_t i = 0; i < r.volumes().size(); ++i) {
    absl::StrAppend(&json, i ? "," : "", JsonString(r.volumes()[i]));
  }
  absl::StrAppend(&json, "],", MetaJson(r.meta()), ",\"index\":[");
  const std::vector<format::IndexEntry> index = r.index();
  for (size_t i = 0; i < index.size(); ++i) {
    absl::StrAppend(&json, i ? "," : "", "{\"t\":", Stamp(index[i].timestamp),
                    ",\"volume\":", index[i].volume, ",\"meta\":", index[i].meta_offset,
                    ",\"data\":", index[i].data_offset, "}");
  }
  json += "],\"results\":[";
  std::string error;
  for (size_t n = 0;; ++n) {
    absl::StatusOr<std::optional<format::DecodedResult>> next = r.Next();
    if (!next.ok()) {
      error = next.status().ToString();
      break;
    }
    if (!next->has_value()) break;
    const format::DecodedResult& res = **next;
    absl::StrAppend(&json, n ? "," : "", "{\"t\":", Stamp(res.timestamp), ",\"mark\":",
                    res.is_mark() ? "true" : "false", ",\"sets\":[");
    for (size_t s = 0; s < res.sets.size(); ++s) {
      const format::DecodedValueSet& set = res.sets[s];
      absl::StrAppend(&json, s ? "," : "", "{\"pmid\":", set.pmid, ",\"numval\":", set.numval,
                      ",\"valfmt\":", set.valfmt);
      if (set.numval < 0) {
        absl::StrAppend(&json, ",\"error\":", set.numval, "}");
        continue;
      }
      const format::Desc* desc = r.meta().Desc(set.pmid);
      std::vector<std::string> values;
      for (const format::DecodedValue& v : set.values) {
        std::string value = "null";
        if (desc == nullptr) {
          if (error.empty()) error = absl::StrCat("no descriptor for PMID ", set.pmid);
        } else {
          absl::StatusOr<format::ResultValue> rv = format::ValueFromDecoded(v, set.valfmt, desc->type);
          if (rv.ok()) {
            value = ValueJson(*rv, desc->type);
          } else if (error.empty()) {
            error = absl::StrCat("PMID ", set.pmid, " inst ", v.inst, ": ", rv.status().ToString());
          }
        }
        values.push_back(absl::StrCat("[", v.inst, ",", value, "]"));
      }
      absl::StrAppend(&json, ",\"values\":[", absl::StrJoin(values, ","), "]}");
    }
    json += "]}";
  }
  json += "],\"warnings\":[";
  for (size_t i = 0; i < r.warnings().size(); ++i) {
    absl::StrAppend(&json, i ? "," : "", JsonString(r.warnings()[i]));
  }
  json += "]";
  if (!error.empty()) absl::StrAppend(&json, ",\"error\":", JsonString(error));
  json += "}\n";
  std::fputs(json.c_str(), stdout);
  return error.empty() ? 0 : 1;
}

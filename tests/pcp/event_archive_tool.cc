// Writes a test archive of event and aggregate values with ArchiveWriter, for
// //tests/pcp:event_record_oracle_test to read with real pmdumplog and with
// mmvlog replay.
//
// usage: event_archive_tool VERSION BASE [damaged]
// Content: test.events (PM_TYPE_EVENT, two instances), test.hrevents
// (PM_TYPE_HIGHRES_EVENT), test.aggregate (PM_TYPE_AGGREGATE),
// test.aggregate_static (PM_TYPE_AGGREGATE_STATIC) and the
// parameter metrics test.param.* (described in .meta, no values of their
// own), in three results: no records, records with every parameter type,
// a missed-events record, flags 0, several records. With "damaged", a fourth
// result whose event array claims a parameter longer than the value.
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "archiver/store/archive_writer.h"
#include "format/archive/archive_format.h"
#include "format/archive/event_record.h"

using namespace mmvlog;  // NOLINT: a test program

namespace {

constexpr uint32_t kIndom = format::InDomBuild(70, 5);

void Check(const absl::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "event_archive_tool: %s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

std::string Big(uint64_t v, int bytes) {
  std::string s(bytes, 0);
  for (int i = 0; i < bytes; ++i) s[i] = static_cast<char>(v >> (8 * (bytes - 1 - i)));
  return s;
}

uint32_t Param(uint32_t item) { return format::PmidBuild(70, 2, item); }

// The parameter metrics, by item: name and type.
struct ParamMetric {
  uint32_t item;
  const char* name;
  int32_t type;
};
const ParamMetric kParams[] = {
    {1, "test.param.i32", format::kType32},     {2, "test.param.u32", format::kTypeU32},
    {3, "test.param.i64", format::kType64},     {4, "test.param.u64", format::kTypeU64},
    {5, "test.param.float", format::kTypeFloat}, {6, "test.param.double", format::kTypeDouble},
    {7, "test.param.string", format::kTypeString},
    {8, "test.param.aggregate", format::kTypeAggregate},
};

format::EventArray EveryType(int64_t sec) {
  format::EventArray a;
  format::EventRecord e;
  e.timestamp = {sec - 5, 123456000};
  e.flags = format::kEventFlagStart | format::kEventFlagId | format::kEventFlagParent;
  e.params = {
      {Param(1), format::kType32, Big(static_cast<uint32_t>(-14), 4)},
      {Param(2), format::kTypeU32, Big(4000000000u, 4)},
      {Param(3), format::kType64, Big(static_cast<uint64_t>(-1234567890123), 8)},
      {Param(4), format::kTypeU64, Big(18000000000000000000u, 8)},
      {Param(5), format::kTypeFloat, Big(std::bit_cast<uint32_t>(-17.25f), 4)},
      {Param(6), format::kTypeDouble, Big(std::bit_cast<uint64_t>(3.141592653589793), 8)},
      {Param(7), format::kTypeString, "twelve and more"},
      {Param(8), format::kTypeAggregate, std::string("\x01\x03\x07\x0f\x1f\x3f\x7f\xff", 8)},
      {Param(7), format::kTypeString, "odd"},
  };
  a.records.push_back(e);
  format::EventRecord missed;
  missed.timestamp = {sec - 4, 0};
  missed.flags = format::kEventFlagMissed;
  missed.missed = 7;
  a.records.push_back(missed);
  a.records.push_back({{sec - 3, 999999000}, 0, 0, {{Param(8), format::kTypeAggregate, "abc"}}});
  a.records.push_back({{sec - 2, 5000}, format::kEventFlagEnd, 0, {}});
  return a;
}

std::string Encode(const format::EventArray& a, bool highres) {
  std::vector<uint8_t> b;
  format::EncodeEventArray(a, highres, &b);
  return std::string(b.begin(), b.end());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: event_archive_tool 2|3 BASE [damaged]\n");
    return 2;
  }
  const bool damaged = argc > 3 && std::strcmp(argv[3], "damaged") == 0;
  archiver::ArchiveOptions opts;
  opts.version = std::atoi(argv[1]);
  opts.hostname = "testhost.example";
  opts.timezone = "UTC";
  opts.zoneinfo = ":Etc/UTC";
  opts.pid = 4242;
  const format::Timestamp start{1700000000, 0};
  auto writer = archiver::ArchiveWriter::Create(argv[2], opts, start);
  Check(writer.status(), "create");
  archiver::ArchiveWriter& w = **writer;

  auto desc = [&](uint32_t pmid, int32_t type, uint32_t indom, const char* name) {
    format::Desc d;
    d.pmid = pmid;
    d.type = type;
    d.sem = format::kSemInstant;
    d.indom = indom;
    d.names = {name};
    Check(w.AddDesc(d), "desc");
  };
  const uint32_t events = format::PmidBuild(70, 1, 1), hrevents = format::PmidBuild(70, 1, 2),
                 aggregate = format::PmidBuild(70, 1, 3),
                 aggregate_static = format::PmidBuild(70, 1, 4);
  desc(events, format::kTypeEvent, kIndom, "test.events");
  desc(hrevents, format::kTypeHighresEvent, format::kIndomNull, "test.hrevents");
  desc(aggregate, format::kTypeAggregate, format::kIndomNull, "test.aggregate");
  desc(aggregate_static, format::kTypeAggregateStatic, format::kIndomNull,
       "test.aggregate_static");
  for (const ParamMetric& p : kParams) desc(Param(p.item), p.type, format::kIndomNull, p.name);
  format::InDom indom;
  indom.timestamp = start;
  indom.indom = kIndom;
  indom.instances = {{0, "first", false}, {1, "second one", false}};
  Check(w.AddInDom(indom), "indom");

  const std::string aggregates[] = {std::string("\x01\x03\x07\x0f\x1f\x3f\x7f\xff", 8),
                                    "printable text", std::string("\x00\x00\xc0\x7f", 4)};
  for (int k = 0; k < 3; ++k) {
    const int64_t sec = start.sec + 10 * (k + 1);
    format::Result r;
    r.timestamp = {sec, 250000000u * static_cast<uint32_t>(k)};
    format::ValueSet ev{events, format::kTypeEvent, 0, {}};
    format::ValueSet hr{hrevents, format::kTypeHighresEvent, 0, {}};
    format::EventArray none;
    format::EventArray every = EveryType(sec);
    format::EventArray few;
    few.records.push_back({{sec, 1000}, format::kEventFlagPoint, 0,
                           {{Param(7), format::kTypeString, "fetch"}}});
    few.records.push_back({{sec, 2000}, format::kEventFlagPoint, 0,
                           {{Param(1), format::kType32, Big(static_cast<uint32_t>(k), 4)}}});
    const format::EventArray* first[] = {&none, &every, &few};
    const format::EventArray* second[] = {&few, &none, &every};
    format::ResultValue v0, v1, h;
    v0.inst = 0;
    v0.bytes = Encode(*first[k], false);
    v1.inst = 1;
    v1.bytes = Encode(*second[k], false);
    ev.values = {v0, v1};
    format::EventArray hr_array = *second[k];
    for (format::EventRecord& e : hr_array.records) e.timestamp.nsec += 789;
    h.bytes = Encode(hr_array, true);
    hr.values = {h};
    format::ResultValue a;
    a.bytes = aggregates[k];
    r.sets = {ev, hr, {aggregate, format::kTypeAggregate, 0, {a}},
              {aggregate_static, format::kTypeAggregateStatic, 0, {a}}};
    Check(w.AppendResult(r), "result");
  }
  if (damaged) {
    format::Result r;
    r.timestamp = {start.sec + 40, 0};
    format::EventArray a;
    a.records.push_back({{start.sec + 39, 0}, format::kEventFlagPoint, 0,
                         {{Param(7), format::kTypeString, "cut short"}}});
    std::string bytes = Encode(a, false);
    bytes.resize(bytes.size() - 4);  // the parameter's length now runs past the end
    format::ResultValue v;
    v.inst = 0;
    v.bytes = bytes;
    r.sets = {{events, format::kTypeEvent, 0, {v}}};
    Check(w.AppendResult(r), "damaged result");
  }
  Check(w.Close(), "close");
  return 0;
}

#include "archiver/session/prologue.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/archive/archive_types.h"

namespace mmvlog::archiver {

namespace {

constexpr uint32_t kPmcdDomain = 2;
constexpr uint32_t kPmloggerIndomSerial = 1;  // pmcd's indom 2.1: one instance per logger

format::Desc PmcdDesc(uint32_t cluster, uint32_t item, int32_t type, bool per_logger,
                      std::string name) {
  format::Desc d;
  d.pmid = format::PmidBuild(kPmcdDomain, cluster, item);
  d.type = type;
  d.sem = format::kSemDiscrete;
  d.indom = per_logger ? format::InDomBuild(kPmcdDomain, kPmloggerIndomSerial) : format::kIndomNull;
  d.units = 0;
  d.names = {std::move(name)};
  return d;
}

format::ValueSet Value(const format::Desc& d, int32_t inst, uint64_t number, std::string text) {
  format::ValueSet s;
  s.pmid = d.pmid;
  s.type = d.type;
  format::ResultValue v;
  v.inst = inst;
  v.u64 = number;
  v.bytes = std::move(text);
  s.values.push_back(std::move(v));
  return s;
}

}  // namespace

Prologue MakePrologue(format::Timestamp when, int32_t pid, const std::string& archive) {
  Prologue p;
  // pmlogger -o's descriptors, pmcd.pid as a 64-bit unsigned among them.
  p.descs = {PmcdDesc(3, 3, format::kTypeString, true, "pmcd.pmlogger.host"),
             PmcdDesc(3, 0, format::kTypeU32, true, "pmcd.pmlogger.port"),
             PmcdDesc(3, 2, format::kTypeString, true, "pmcd.pmlogger.archive"),
             PmcdDesc(0, 23, format::kTypeU64, false, "pmcd.pid"),
             PmcdDesc(0, 24, format::kTypeU32, false, "pmcd.seqnum")};
  p.indom.indom = format::InDomBuild(kPmcdDomain, kPmloggerIndomSerial);
  p.indom.timestamp = when;
  p.indom.instances.push_back({pid, absl::StrCat(pid), false});
  p.result.timestamp = when;
  p.result.sets = {
      Value(p.descs[0], pid, 0, "localhost"),
      // No pmlc control port: mmvlog is steered by signals.
      Value(p.descs[1], pid, 0, ""),
      Value(p.descs[2], pid, 0, archive),
      // No pmcd, as with pmlogger -o.
      Value(p.descs[3], format::kInNull, 0, ""),
      Value(p.descs[4], format::kInNull, 0, ""),
  };
  return p;
}

}  // namespace mmvlog::archiver

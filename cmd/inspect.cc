// mmvlog inspect FILE: prints an MMV file as mmvlog reads it.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "archiver/mmv/mmv_source.h"
#include "cmd/cli.h"
#include "cmd/subcommand.h"
#include "format/json.h"
#include "format/mmv/mmv_reader.h"
#include "format/pm_units.h"

namespace mmvlog::cmd {
namespace {

using format::JsonNumber;
using format::JsonString;
using format::MmvFile;
using format::MmvType;
using format::MmvValue;

std::string FlagNames(uint32_t flags) {
  std::vector<std::string> names;
  if (flags & format::kMmvFlagNoPrefix) names.push_back("noprefix");
  if (flags & format::kMmvFlagProcess) names.push_back("process");
  if (flags & format::kMmvFlagSentinel) names.push_back("sentinel");
  if (flags & ~format::kMmvKnownFlags) {
    names.push_back(absl::StrFormat("0x%x", flags & ~format::kMmvKnownFlags));
  }
  return names.empty() ? "none" : absl::StrJoin(names, ",");
}

std::string LabelType(uint32_t flags) {
  std::string t = (flags & format::kMmvLabelIndom)       ? "indom"
                  : (flags & format::kMmvLabelCluster)   ? "cluster"
                  : (flags & format::kMmvLabelItem)      ? "item"
                  : (flags & format::kMmvLabelInstances) ? "instances"
                                                         : "?";
  return t;
}

// The value as text (numbers exact; strings JSON-quoted when `json`).
std::string ValueText(const MmvValue& v, bool json) {
  switch (v.type) {
    case MmvType::kI32:
    case MmvType::kI64:
    case MmvType::kElapsed:
      return absl::StrCat(v.i64);
    case MmvType::kU32:
    case MmvType::kU64:
      return absl::StrCat(v.u64);
    case MmvType::kFloat:
    case MmvType::kDouble:
      return JsonNumber(v.f64);
    case MmvType::kString:
      return json ? JsonString(v.str) : absl::StrCat("\"", v.str, "\"");
    case MmvType::kNoSupport:
      return json ? "null" : "(unsupported)";
  }
  return "?";
}

std::string InstanceName(const MmvFile& f, const format::MmvValueEntry& e) {
  const auto& m = f.metrics[e.metric_index];
  if (e.instance_index < 0) return "";
  return f.indoms[m.indom_index].instances[e.instance_index].external;
}

int PrintJson(const std::string& path, const MmvFile& f,
              std::span<const uint8_t> image) {
  std::string o = absl::StrCat(
      "{\"file\":", JsonString(path), ",\"version\":", f.header.version,
      ",\"generation\":", f.header.generation1, ",\"flags\":", f.header.flags,
      ",\"process\":", f.header.process, ",\"cluster\":", f.header.cluster,
      ",\"indoms\":[");
  for (size_t i = 0; i < f.indoms.size(); ++i) {
    const auto& d = f.indoms[i];
    absl::StrAppend(&o, i ? "," : "", "{\"serial\":", d.serial,
                    ",\"short_help\":", JsonString(d.short_help),
                    ",\"long_help\":", JsonString(d.long_help),
                    ",\"instances\":[");
    for (size_t k = 0; k < d.instances.size(); ++k) {
      absl::StrAppend(&o, k ? "," : "", "{\"id\":", d.instances[k].internal,
                      ",\"name\":", JsonString(d.instances[k].external), "}");
    }
    o += "]}";
  }
  o += "],\"metrics\":[";
  for (size_t i = 0; i < f.metrics.size(); ++i) {
    const auto& m = f.metrics[i];
    absl::StrAppend(
        &o, i ? "," : "", "{\"name\":", JsonString(m.name),
        ",\"item\":", m.item, ",\"type\":", static_cast<int>(m.type),
        ",\"type_name\":", JsonString(format::MmvTypeName(m.type)),
        ",\"semantics\":", m.semantics, ",\"semantics_name\":",
        JsonString(format::MmvSemanticsName(m.semantics)),
        ",\"units\":",
        JsonString(format::UnitsToString(format::UnitsFromWord(m.units))),
        ",\"units_word\":", m.units, ",\"indom\":",
        m.indom_index < 0 ? std::string("null") : absl::StrCat(m.indom),
        ",\"short_help\":", JsonString(m.short_help),
        ",\"long_help\":", JsonString(m.long_help), "}");
  }
  o += "],\"labels\":[";
  for (size_t i = 0; i < f.labels.size(); ++i) {
    const auto& l = f.labels[i];
    absl::StrAppend(&o, i ? "," : "", "{\"type\":", JsonString(LabelType(l.flags)),
                    ",\"flags\":", l.flags, ",\"identity\":", l.identity,
                    ",\"instance\":", l.internal, ",\"optional\":",
                    (l.flags & format::kMmvLabelOptional) ? "true" : "false",
                    ",\"payload\":", JsonString(l.payload), "}");
  }
  o += "],\"values\":[";
  int status = kExitOk;
  for (size_t i = 0; i < f.values.size(); ++i) {
    const auto& e = f.values[i];
    const auto& m = f.metrics[e.metric_index];
    absl::StatusOr<MmvValue> v = format::ReadMmvValue(image, f, e);
    absl::StrAppend(&o, i ? "," : "", "{\"metric\":", JsonString(m.name),
                    ",\"item\":", m.item, ",\"instance\":",
                    e.instance_index < 0 ? std::string("null")
                                         : absl::StrCat(e.instance),
                    ",\"instance_name\":",
                    e.instance_index < 0 ? std::string("null")
                                         : JsonString(InstanceName(f, e)));
    if (v.ok()) {
      absl::StrAppend(&o, ",\"value\":", ValueText(*v, true));
      if (m.type == MmvType::kElapsed) absl::StrAppend(&o, ",\"extra\":", v->extra);
    } else {
      absl::StrAppend(&o, ",\"error\":", JsonString(v.status().ToString()));
      status = kExitFailure;
    }
    o += "}";
  }
  o += "]}\n";
  std::fputs(o.c_str(), stdout);
  return status;
}

int PrintText(const std::string& path, const MmvFile& f,
              std::span<const uint8_t> image) {
  const auto& h = f.header;
  std::printf("MMV file    %s\n", path.c_str());
  std::printf("version     %d\ngeneration  %llu\nflags       0x%x (%s)\n"
              "process     %d\ncluster     %d\n",
              h.version, static_cast<unsigned long long>(h.generation1),
              h.flags, FlagNames(h.flags).c_str(), h.process, h.cluster);
  std::printf("\nindoms (%zu)\n", f.indoms.size());
  for (const auto& d : f.indoms) {
    std::printf("  indom %u: %zu instances\n", d.serial, d.instances.size());
    if (!d.short_help.empty()) std::printf("    help: %s\n", d.short_help.c_str());
    if (!d.long_help.empty()) std::printf("    long help: %s\n", d.long_help.c_str());
    for (const auto& i : d.instances) {
      std::printf("    [%d] \"%s\"\n", i.internal, i.external.c_str());
    }
  }
  std::printf("\nmetrics (%zu)\n", f.metrics.size());
  for (const auto& m : f.metrics) {
    const std::string units = format::UnitsToString(format::UnitsFromWord(m.units));
    std::printf("  %s  item %u\n    type %s, semantics %s, units %s, %s\n",
                m.name.c_str(), m.item, format::MmvTypeName(m.type),
                format::MmvSemanticsName(m.semantics),
                units.empty() ? "none" : units.c_str(),
                m.indom_index < 0 ? "singular"
                                  : absl::StrCat("indom ", m.indom).c_str());
    if (!m.short_help.empty()) std::printf("    help: %s\n", m.short_help.c_str());
    if (!m.long_help.empty()) std::printf("    long help: %s\n", m.long_help.c_str());
  }
  if (!f.labels.empty()) {
    std::printf("\nlabels (%zu)\n", f.labels.size());
    for (const auto& l : f.labels) {
      std::printf("  %s %u%s: %s%s\n", LabelType(l.flags).c_str(), l.identity,
                  l.internal != format::kMmvInNull
                      ? absl::StrCat(" instance ", l.internal).c_str()
                      : "",
                  l.payload.c_str(),
                  (l.flags & format::kMmvLabelOptional) ? " (optional)" : "");
    }
  }
  std::printf("\nvalues (%zu)\n", f.values.size());
  int status = kExitOk;
  for (const auto& e : f.values) {
    const auto& m = f.metrics[e.metric_index];
    std::string name = m.name;
    if (e.instance_index >= 0) {
      absl::StrAppend(&name, "[", e.instance, " \"", InstanceName(f, e), "\"]");
    }
    absl::StatusOr<MmvValue> v = format::ReadMmvValue(image, f, e);
    if (!v.ok()) {
      std::printf("  %s: %s\n", name.c_str(), v.status().ToString().c_str());
      status = kExitFailure;
      continue;
    }
    std::string text = ValueText(*v, false);
    if (m.type == MmvType::kElapsed && v->extra != 0) {
      absl::StrAppend(&text, " (interval running, extra ", v->extra, ")");
    }
    std::printf("  %s = %s\n", name.c_str(), text.c_str());
  }
  return status;
}


struct InspectFlags {
  bool json = false;
  std::vector<std::string> args;
};

int RunInspect(const InspectFlags& f, const Invocation& inv) {
  const std::vector<std::string>& args = f.args;
  if (args.size() != 1 || !inv.command.empty()) {
    return UsageError("inspect",
                      "need exactly one MMV file, e.g. 'mmvlog inspect /var/lib/pcp/tmp/mmv/myapp'");
  }
  archiver::MmvSource source(args[0]);
  absl::StatusOr<archiver::MmvSnapshot> snap = source.Snapshot();
  if (!snap.ok()) {
    std::fprintf(stderr, "mmvlog inspect: %s\n",
                 std::string(snap.status().message()).c_str());
    return kExitFailure;
  }
  return f.json ? PrintJson(args[0], *snap->file, snap->image)
                : PrintText(args[0], *snap->file, snap->image);
}

}  // namespace

Runner DefineInspect(CLI::App* app) {
  auto f = std::make_shared<InspectFlags>();
  app->add_flag("--json", f->json, "print one JSON object instead of text")->group("Output");
  app->add_option("MMVFILE", f->args, "the MMV file to print")->type_name("");
  return [f](const Invocation& inv) { return RunInspect(*f, inv); };
}

}  // namespace mmvlog::cmd

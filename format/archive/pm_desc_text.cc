#include "format/archive/pm_desc_text.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "format/archive/archive_format.h"

namespace mmvlog::format {
namespace {

// Every text ParseType accepts, lower-cased, with its PM_TYPE_* value: first
// pmPrintDesc's names, then pmTypeStr's (libpcp 6.0.3).
const std::pair<absl::string_view, int32_t> kTypeNames[] = {
    {"not supported", kTypeNoSupport},
    {"32-bit int", kType32},
    {"32-bit unsigned int", kTypeU32},
    {"64-bit int", kType64},
    {"64-bit unsigned int", kTypeU64},
    {"float", kTypeFloat},
    {"double", kTypeDouble},
    {"string", kTypeString},
    {"aggregate", kTypeAggregate},
    {"static aggregate", kTypeAggregateStatic},
    {"event record array", kTypeEvent},
    {"highres event record array", kTypeHighresEvent},
    {"no_support", kTypeNoSupport},
    {"32", kType32},
    {"u32", kTypeU32},
    {"64", kType64},
    {"u64", kTypeU64},
    {"aggregate_static", kTypeAggregateStatic},
    {"event", kTypeEvent},
    {"highres_event", kTypeHighresEvent},
    {"unknown", kTypeUnknown},
};

const std::pair<absl::string_view, int32_t> kSemNames[] = {
    {"counter", kSemCounter},
    {"instant", kSemInstant},
    {"discrete", kSemDiscrete},
};

// pmPrintDesc's form for values it has no name for: "??? (N)".
std::string Unnamed(int32_t v) { return absl::StrCat("??? (", v, ")"); }

bool ParseUnnamed(absl::string_view text, int32_t* v) {
  return absl::ConsumePrefix(&text, "??? (") &&
         absl::ConsumeSuffix(&text, ")") && absl::SimpleAtoi(text, v);
}

absl::Status UnitsError(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("units \"", text, "\": ", why));
}

// The scale named by a space or time word, or -1.
int SpaceScale(absl::string_view word) {
  static const absl::string_view kNames[] = {"byte",  "Kbyte", "Mbyte",
                                             "Gbyte", "Tbyte", "Pbyte",
                                             "Ebyte", "Zbyte", "Ybyte"};
  for (int i = 0; i < 9; ++i) {
    if (word == kNames[i]) return i;
  }
  int n;
  if (absl::ConsumePrefix(&word, "space-") && absl::SimpleAtoi(word, &n) &&
      n >= 0 && n <= 15) {
    return n;
  }
  return -1;
}

int TimeScale(absl::string_view word) {
  static const absl::string_view kNames[] = {"nanosec", "microsec", "millisec",
                                             "sec",     "min",      "hour"};
  for (int i = 0; i < 6; ++i) {
    if (word == kNames[i]) return i;
  }
  int n;
  if (absl::ConsumePrefix(&word, "time-") && absl::SimpleAtoi(word, &n) &&
      n >= 0 && n <= 15) {
    return n;
  }
  return -1;
}

bool InSigned4(int v) { return v >= -8 && v <= 7; }

}  // namespace

std::string TypeName(int32_t type) {
  for (const auto& [name, value] : kTypeNames) {
    if (value == type && value != kTypeUnknown) {
      // The table's first entry for a type is pmPrintDesc's name, except
      // that pmPrintDesc capitalises "Not Supported".
      return type == kTypeNoSupport ? "Not Supported" : std::string(name);
    }
  }
  return Unnamed(type);
}

absl::StatusOr<int32_t> ParseType(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  for (const auto& [name, value] : kTypeNames) {
    if (lower == name) return value;
  }
  int32_t v;
  if (ParseUnnamed(text, &v)) return v;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown data type \"", text, "\""));
}

std::string SemanticsName(int32_t sem) {
  for (const auto& [name, value] : kSemNames) {
    if (value == sem) return std::string(name);
  }
  return Unnamed(sem);
}

absl::StatusOr<int32_t> ParseSemantics(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  for (const auto& [name, value] : kSemNames) {
    if (lower == name) return value;
  }
  int32_t v;
  if (ParseUnnamed(text, &v)) return v;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown semantics \"", text, "\""));
}

// One piece: one grammar (pmUnitsStr's text) read left to right.
absl::StatusOr<PmUnits> ParseUnits(absl::string_view text) {
  const std::vector<absl::string_view> tokens =
      absl::StrSplit(text, ' ', absl::SkipEmpty());
  PmUnits u;
  if (tokens.empty() || (tokens.size() == 1 && tokens[0] == "none")) return u;

  // "x 10^S": no dimension, only a count scale.
  if (tokens[0] == "x") {
    absl::string_view ten = tokens.size() == 2 ? tokens[1] : "";
    int scale = 1;
    if (!absl::ConsumePrefix(&ten, "10") ||
        (!ten.empty() &&
         (!absl::ConsumePrefix(&ten, "^") || !absl::SimpleAtoi(ten, &scale))) ||
        scale == 0 || !InSigned4(scale)) {
      return UnitsError(text, "expected \"x 10\" or \"x 10^N\"");
    }
    u.scale_count = scale;
    return u;
  }

  bool denominator = false;
  bool term_after_slash = false;
  bool seen[3] = {false, false, false};  // space, time, count
  for (size_t i = 0; i < tokens.size(); ++i) {
    absl::string_view token = tokens[i];
    if (token == "/") {
      if (denominator) return UnitsError(text, "'/' appears twice");
      denominator = true;
      continue;
    }
    // PCP 7.2's extra unit: "power (W)", first on its side of the "/".
    if (i + 1 < tokens.size() && absl::StartsWith(tokens[i + 1], "(") &&
        absl::EndsWith(tokens[i + 1], ")")) {
      std::optional<std::pair<int, int>> extra = ExtraUnitFromText(
          token, tokens[i + 1].substr(1, tokens[i + 1].size() - 2));
      if (!extra) return UnitsError(text, absl::StrCat("unknown unit \"", token, "\""));
      if (u.extra_unit != 0) return UnitsError(text, "two extra units");
      u.extra_unit = denominator ? -extra->first : extra->first;
      u.extra_scale = extra->second;
      if (denominator) term_after_slash = true;
      ++i;
      continue;
    }
    int which;  // 0 space, 1 time, 2 count
    int scale;
    int power = 1;
    // A term is WORD or WORD^POWER; a count may be "count x 10^S[^POWER]",
    // whose power follows the scale.
    std::vector<absl::string_view> parts = absl::StrSplit(token, '^');
    if (parts.size() > 2) return UnitsError(text, "bad term");
    if (parts[0] == "count") {
      which = 2;
      scale = 0;
      if (parts.size() == 1 && i + 2 < tokens.size() && tokens[i + 1] == "x") {
        // "count x 10", "count x 10^S" or "count x 10^S^P".
        std::vector<absl::string_view> ten = absl::StrSplit(tokens[i + 2], '^');
        if (ten[0] != "10" || ten.size() > 3 ||
            (ten.size() >= 2 && !absl::SimpleAtoi(ten[1], &scale)) ||
            (ten.size() == 3 && !absl::SimpleAtoi(ten[2], &power))) {
          return UnitsError(text, "expected \"count x 10[^S[^P]]\"");
        }
        if (ten.size() == 1) scale = 1;
        i += 2;
        parts.resize(1);
      }
    } else if ((scale = SpaceScale(parts[0])) >= 0) {
      which = 0;
    } else if ((scale = TimeScale(parts[0])) >= 0) {
      which = 1;
    } else {
      return UnitsError(text, absl::StrCat("unknown unit \"", parts[0], "\""));
    }
    if (parts.size() == 2 && !absl::SimpleAtoi(parts[1], &power)) {
      return UnitsError(text, "bad power");
    }
    if (power < 1) return UnitsError(text, "bad power");
    if (seen[which]) return UnitsError(text, "a dimension appears twice");
    seen[which] = true;
    const int dim = denominator ? -power : power;
    if (!InSigned4(dim)) return UnitsError(text, "power out of range");
    if (denominator) term_after_slash = true;
    switch (which) {
      case 0:
        u.dim_space = dim;
        u.scale_space = scale;
        break;
      case 1:
        u.dim_time = dim;
        u.scale_time = scale;
        break;
      default:
        if (!InSigned4(scale)) return UnitsError(text, "scale out of range");
        u.dim_count = dim;
        u.scale_count = scale;
        break;
    }
  }
  if (denominator && !term_after_slash) {
    return UnitsError(text, "nothing after '/'");
  }
  return u;
}

std::string PmidString(uint32_t pmid) {
  if (pmid == 0xffffffff) return "PM_ID_NULL";
  // pmIDStr prints a dynamic PMNS root (domain 511, item 0) as
  // "<real domain, kept in the cluster field>.*.*".
  if (PmidDomain(pmid) == 511 && PmidItem(pmid) == 0) {
    return absl::StrCat(PmidCluster(pmid), ".*.*");
  }
  return absl::StrCat(PmidDomain(pmid), ".", PmidCluster(pmid), ".",
                      PmidItem(pmid));
}

std::string InDomString(uint32_t indom) {
  if (indom == kIndomNull) return "PM_INDOM_NULL";
  return absl::StrCat(InDomDomain(indom), ".", InDomSerial(indom));
}

}  // namespace mmvlog::format

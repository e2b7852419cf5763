#include "format/archive/label_merge.h"

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"

namespace mmvlog::format {
namespace {

// The end of the compact JSON value starting at `at` (a set's json, as
// MakeLabelSet writes it: no whitespace, well formed).
size_t ValueEnd(const std::string& json, size_t at) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = at; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
        if (depth == 0) return i + 1;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
      if (depth < 0) return i;
    } else if (depth == 0 && c == ',') {
      return i;
    }
  }
  return json.size();
}

struct FlatLabel {
  std::string value;
  uint8_t flags = 0;
};

// The labels of the object at `at` in `json` under their flattened names
// (an object value with members is walked in turn; an empty one, {}, is a
// label of its own), later ones replacing earlier ones in `out`; each with
// the flags of the set's entry for its value.
void Flatten(const std::string& json, size_t at, const std::string& prefix,
             const std::map<size_t, uint8_t>& flags_at, std::map<std::string, FlatLabel>* out) {
  size_t pos = at + 1;  // past '{'
  while (pos < json.size() && json[pos] == '"') {
    const size_t name_end = ValueEnd(json, pos);  // past the closing quote
    const std::string name = prefix + json.substr(pos + 1, name_end - pos - 2);
    const size_t value_at = name_end + 1;  // past ':'
    const size_t value_end = ValueEnd(json, value_at);
    if (json[value_at] == '{' && value_end - value_at > 2) {
      Flatten(json, value_at, name + ".", flags_at, out);
    } else {
      auto f = flags_at.find(value_at);
      (*out)[name] = {json.substr(value_at, value_end - value_at),
                      f == flags_at.end() ? uint8_t{0} : f->second};
    }
    pos = value_end;
    if (pos < json.size() && json[pos] == ',') ++pos;
  }
}

}  // namespace

absl::StatusOr<LabelSet> MergeLabelSets(int32_t inst, const std::vector<LabelSet>& sets) {
  if (sets.size() == 1) {
    LabelSet one = sets[0];
    one.inst = inst;
    return one;
  }
  std::map<std::string, FlatLabel> merged;
  for (const LabelSet& s : sets) {
    std::map<size_t, uint8_t> flags_at;
    for (const LabelEntry& e : s.labels) flags_at[e.value_offset] = e.flags;
    if (!s.json.empty() && s.json[0] == '{') Flatten(s.json, 0, "", flags_at, &merged);
  }
  LabelSet out;
  out.inst = inst;
  out.json = "{";
  for (const auto& [name, label] : merged) {
    if (name.size() > kMaxLabelNameLength) {
      return absl::InvalidArgumentError(
          absl::StrCat("label name \"", absl::CEscape(name.substr(0, 300)),
                       "\" is longer than ", kMaxLabelNameLength, " bytes"));
    }
    if (out.json.size() > 1) out.json += ',';
    // Offsets as libpcp's stash_label computes them.
    LabelEntry l;
    l.name_offset = static_cast<uint16_t>(out.json.size() + 1);
    l.name_length = static_cast<uint8_t>(name.size());
    l.flags = label.flags;
    absl::StrAppend(&out.json, "\"", name, "\":");
    l.value_offset = static_cast<uint16_t>(out.json.size());
    l.value_length = static_cast<uint16_t>(label.value.size());
    out.json += label.value;
    out.labels.push_back(l);
    // __pmMergeLabelSets leaves room for the final '}', a NUL and one byte.
    if (out.json.size() > kMaxLabelJsonLength - 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("merged label json of over ", out.json.size(), " bytes is too long"));
    }
  }
  out.json += '}';
  if (out.labels.size() > kMaxLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat(out.labels.size(), " labels exceed ", kMaxLabels));
  }
  return out;
}

}  // namespace mmvlog::format

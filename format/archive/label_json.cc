#include "format/archive/label_json.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "format/archive/archive_format.h"
#include "format/errors.h"

namespace mmvlog::format {
namespace {

// A parsed label: its name as written between the quotes, and its value in
// compact form.
struct JsonLabel {
  std::string name;
  std::string value;
};

bool ValidLabelName(absl::string_view name);

// A small JSON reader for label objects. PCP parses labels with jsonsl and
// rewrites them without insignificant whitespace; values are copied as
// written (numbers, escapes), which this reproduces.
class LabelJsonParser {
 public:
  explicit LabelJsonParser(absl::string_view in) : in_(in) {}

  absl::StatusOr<std::vector<JsonLabel>> ParseObject() {
    std::vector<JsonLabel> labels;
    SkipSpace();
    if (!Consume('{')) return Error("expected '{'");
    SkipSpace();
    if (!Consume('}')) {
      for (;;) {
        SkipSpace();
        JsonLabel label;
        if (Peek() != '"') return Error("expected a label name");
        const size_t start = pos_ + 1;
        if (absl::Status s = ParseString(nullptr); !s.ok()) return s;
        label.name = std::string(in_.substr(start, pos_ - 1 - start));
        SkipSpace();
        if (!Consume(':')) return Error("expected ':'");
        SkipSpace();
        if (absl::Status s = ParseValue(0, &label.value); !s.ok()) return s;
        labels.push_back(std::move(label));
        SkipSpace();
        if (Consume(',')) continue;
        if (Consume('}')) break;
        return Error("expected ',' or '}'");
      }
    }
    SkipSpace();
    if (pos_ != in_.size()) return Error("unexpected text after the object");
    return labels;
  }

 private:
  // jsonsl's nesting limit (labels.c MAX_DESCENT_LEVEL).
  static constexpr int kMaxDepth = 64;

  char Peek() const { return pos_ < in_.size() ? in_[pos_] : '\0'; }
  bool Consume(char c) {
    if (pos_ < in_.size() && in_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void SkipSpace() {
    while (pos_ < in_.size() && (in_[pos_] == ' ' || in_[pos_] == '\t' ||
                                 in_[pos_] == '\n' || in_[pos_] == '\r')) {
      ++pos_;
    }
  }
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("label json: offset ", pos_, ": ", what));
  }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  static bool IsHex(char c) {
    return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  // A string at pos_ (which is '"'), appended verbatim to *out if non-null.
  absl::Status ParseString(std::string* out) {
    const size_t start = pos_++;
    for (;;) {
      if (pos_ >= in_.size()) return Error("unterminated string");
      const unsigned char c = in_[pos_];
      if (c == '"') break;
      if (c < 0x20) return Error("control character in a string");
      if (c == '\\') {
        ++pos_;
        const char e = Peek();
        if (e == 'u') {
          for (int i = 1; i <= 4; ++i) {
            if (pos_ + i >= in_.size() || !IsHex(in_[pos_ + i])) {
              return Error("bad \\u escape");
            }
          }
          pos_ += 4;
        } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' &&
                   e != 'n' && e != 'r' && e != 't') {
          return Error("bad escape");
        }
      }
      ++pos_;
    }
    ++pos_;
    if (out != nullptr) absl::StrAppend(out, in_.substr(start, pos_ - start));
    return absl::OkStatus();
  }

  absl::Status ParseNumber(std::string* out) {
    const size_t start = pos_;
    Consume('-');
    if (Consume('0')) {
    } else if (IsDigit(Peek())) {
      while (IsDigit(Peek())) ++pos_;
    } else {
      return Error("bad number");
    }
    if (Consume('.')) {
      if (!IsDigit(Peek())) return Error("bad number");
      while (IsDigit(Peek())) ++pos_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (!IsDigit(Peek())) return Error("bad number");
      while (IsDigit(Peek())) ++pos_;
    }
    absl::StrAppend(out, in_.substr(start, pos_ - start));
    return absl::OkStatus();
  }

  absl::Status ParseValue(int depth, std::string* out) {
    const char c = Peek();
    if (c == '"') return ParseString(out);
    if (c == '-' || IsDigit(c)) return ParseNumber(out);
    for (absl::string_view word : {"true", "false", "null"}) {
      if (in_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        absl::StrAppend(out, word);
        return absl::OkStatus();
      }
    }
    if (c == '{') {
      // A compound label (PCP's term): copied compactly, its names in the
      // order written, as libpcp keeps a nested object; a member whose name
      // PCP 7.2 skips is left out, value and all.
      if (depth >= kMaxDepth) return Error("objects nested too deeply");
      ++pos_;
      out->push_back('{');
      SkipSpace();
      bool first = true;
      if (!Consume('}')) {
        for (;;) {
          SkipSpace();
          if (Peek() != '"') return Error("expected a label name");
          std::string member;
          const size_t start = pos_ + 1;
          if (absl::Status s = ParseString(&member); !s.ok()) return s;
          const bool valid = ValidLabelName(in_.substr(start, pos_ - 1 - start));
          SkipSpace();
          if (!Consume(':')) return Error("expected ':'");
          member.push_back(':');
          SkipSpace();
          if (absl::Status s = ParseValue(depth + 1, &member); !s.ok()) return s;
          if (valid) {
            if (!first) out->push_back(',');
            absl::StrAppend(out, member);
            first = false;
          } else {
            ++skipped_;
          }
          SkipSpace();
          if (Consume(',')) continue;
          if (Consume('}')) break;
          return Error("expected ',' or '}'");
        }
      }
      out->push_back('}');
      return absl::OkStatus();
    }
    if (c != '[') return Error("expected a value");
    if (depth >= kMaxDepth) return Error("arrays nested too deeply");
    ++pos_;
    out->push_back('[');
    SkipSpace();
    if (!Consume(']')) {
      for (;;) {
        SkipSpace();
        if (absl::Status s = ParseValue(depth + 1, out); !s.ok()) return s;
        SkipSpace();
        if (Consume(',')) {
          out->push_back(',');
          continue;
        }
        if (Consume(']')) break;
        return Error("expected ',' or ']'");
      }
    }
    out->push_back(']');
    return absl::OkStatus();
  }

  absl::string_view in_;
  size_t pos_ = 0;
  int skipped_ = 0;  // nested members left out for their names

 public:
  int skipped() const { return skipped_; }
};

// verify_label_name in PCP 7.2's labels.c (l.489-512): [A-Za-z0-9_]+,
// shorter than MAXLABELNAMELEN. 6.0.3 wanted a letter first; its libpcp
// reads 7.2's names from an archive all the same.
bool ValidLabelName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxLabelNameLength) return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_')) {
      return false;
    }
  }
  return true;
}

absl::Status CheckLabelName(absl::string_view name) {
  if (ValidLabelName(name)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("label name \"", absl::CEscape(name.substr(0, 300)),
                   "\" is not [A-Za-z0-9_]+ of at most ", kMaxLabelNameLength, " bytes"));
}

// The labels of one object, in the order written, without those whose
// names PCP 7.2 skips (labels.c l.745-761); an object left with none for
// that reason is refused, as __pmParseLabels refuses it (l.856-865), and so
// is a name given twice.
absl::StatusOr<std::vector<JsonLabel>> ParseLabels(absl::string_view json) {
  LabelJsonParser parser(json);
  absl::StatusOr<std::vector<JsonLabel>> labels = parser.ParseObject();
  if (!labels.ok()) return labels.status();
  std::vector<JsonLabel> kept;
  std::set<std::string> seen;
  absl::Status first_bad;
  for (JsonLabel& l : *labels) {
    if (absl::Status s = CheckLabelName(l.name); !s.ok()) {
      if (first_bad.ok()) first_bad = s;
      continue;
    }
    if (!seen.insert(l.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("label name \"", l.name, "\" appears twice"));
    }
    kept.push_back(std::move(l));
  }
  if (kept.empty() && (!first_bad.ok() || parser.skipped() > 0)) {
    return first_bad.ok() ? absl::InvalidArgumentError("every label name is invalid")
                          : first_bad;
  }
  return kept;
}

// Parses one object into `merged` (name -> value); later objects overwrite
// earlier ones.
absl::Status ParseInto(absl::string_view json,
                       std::map<std::string, std::string>* merged) {
  absl::StatusOr<std::vector<JsonLabel>> labels = ParseLabels(json);
  if (!labels.ok()) return labels.status();
  for (JsonLabel& l : *labels) (*merged)[l.name] = std::move(l.value);
  return absl::OkStatus();
}

// The end of the compact JSON value starting at `at` in `json` (a value
// this file's parser wrote: no whitespace, well formed).
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

// An entry and the name libpcp sorts it by: its own for a plain label; for
// a compound one the top-level name, '.', and its innermost name (the name
// libpcp's parser gives it: labels.c pop/push_label_name keep one level).
struct KeyedEntry {
  std::string key;
  LabelEntry entry;
};

// The entries of the compact object at `at` in `json`: one per name whose
// value is not an object with members (those are walked in turn), flagged
// compound, each keyed under `top`.
void AddCompoundEntries(const std::string& json, size_t at, const std::string& top,
                        uint8_t flags, std::vector<KeyedEntry>* out) {
  size_t pos = at + 1;  // past '{'
  while (pos < json.size() && json[pos] == '"') {
    const size_t name_end = ValueEnd(json, pos);  // past the closing quote
    const size_t value_at = name_end + 1;         // past ':'
    const size_t value_end = ValueEnd(json, value_at);
    if (json[value_at] == '{' && value_end - value_at > 2) {
      AddCompoundEntries(json, value_at, top, flags, out);
    } else {
      LabelEntry l;
      l.name_offset = static_cast<uint16_t>(pos + 1);
      l.name_length = static_cast<uint8_t>(name_end - pos - 2);
      l.flags = flags | kLabelCompound;
      l.value_offset = static_cast<uint16_t>(value_at);
      l.value_length = static_cast<uint16_t>(value_end - value_at);
      out->push_back({absl::StrCat(top, ".", json.substr(l.name_offset, l.name_length)), l});
    }
    pos = value_end;
    if (pos < json.size() && json[pos] == ',') ++pos;
  }
}

std::string CompactJson(const std::map<std::string, std::string>& labels) {
  std::string json = "{";
  for (const auto& [name, value] : labels) {
    if (json.size() > 1) json += ',';
    absl::StrAppend(&json, "\"", name, "\":", value);
  }
  json += '}';
  return json;
}

}  // namespace

absl::StatusOr<LabelSet> MakeLabelSet(int32_t inst, absl::string_view json,
                                      uint8_t flags, LabelOrder order) {
  // __pmAddLabels refuses input of PM_MAXLABELJSONLEN - 1 bytes or more.
  if (json.size() + 1 >= kMaxLabelJsonLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("label json of ", json.size(), " bytes is too long"));
  }
  absl::StatusOr<std::vector<JsonLabel>> parsed = ParseLabels(json);
  if (!parsed.ok()) return parsed.status();
  std::vector<JsonLabel>& labels = *parsed;
  if (order == LabelOrder::kSorted) {
    std::stable_sort(labels.begin(), labels.end(),
                     [](const JsonLabel& a, const JsonLabel& b) { return a.name < b.name; });
  }
  if (labels.size() > kMaxLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat(labels.size(), " labels exceed ", kMaxLabels));
  }
  LabelSet set;
  set.inst = inst;
  set.json = "{";
  for (const JsonLabel& l : labels) {
    if (set.json.size() > 1) set.json += ',';
    absl::StrAppend(&set.json, "\"", l.name, "\":", l.value);
  }
  set.json += '}';
  // The first object added to an empty set with no labels in it leaves
  // libpcp's json empty (labels.c __pmAddLabels l.292-296: an empty buffer).
  if (order == LabelOrder::kAsWritten && labels.empty()) set.json.clear();
  // __pmMergeLabelSets leaves room for the final '}', a NUL and one byte it
  // miscounts, so a merged set is at most 65531 bytes (PCP 6.0.3).
  if (set.json.size() > kMaxLabelJsonLength - 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("label json of ", set.json.size(), " bytes is too long"));
  }
  // Offsets as libpcp's stash_label computes them: the name starts after
  // its opening quote, the value after the name's closing quote and ':'.
  // A compound label (an object with members) is no entry itself: each name
  // inside it with a value that is not one is, flagged compound, as libpcp
  // records them. An empty object is a label of its own, value {}, flagged
  // compound (libpcp's "empty map"). The entries are sorted by the names
  // libpcp sorts them by (KeyedEntry).
  std::vector<KeyedEntry> entries;
  size_t pos = 1;  // the opening quote of the first name
  for (const JsonLabel& label : labels) {
    const std::string& name = label.name;
    const std::string& value = label.value;
    const size_t value_at = pos + 1 + name.size() + 2;
    if (value.size() > 2 && value[0] == '{') {
      AddCompoundEntries(set.json, value_at, name, flags, &entries);
    } else {
      LabelEntry l;
      l.name_offset = static_cast<uint16_t>(pos + 1);
      l.name_length = static_cast<uint8_t>(name.size());
      l.flags = value == "{}" ? flags | kLabelCompound : flags;
      l.value_offset = static_cast<uint16_t>(value_at);
      l.value_length = static_cast<uint16_t>(value.size());
      entries.push_back({name, l});
    }
    pos = value_at + value.size() + 1;  // past the ','
  }
  if (entries.size() > kMaxLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat(entries.size(), " labels exceed ", kMaxLabels));
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const KeyedEntry& a, const KeyedEntry& b) { return a.key < b.key; });
  for (KeyedEntry& e : entries) set.labels.push_back(e.entry);
  return set;
}

absl::StatusOr<std::string> MergeLabelJson(
    const std::vector<std::string>& objects) {
  std::map<std::string, std::string> merged;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (absl::Status s = ParseInto(objects[i], &merged); !s.ok()) {
      return WithContext(s, absl::StrCat("label object ", i));
    }
  }
  return CompactJson(merged);
}

}  // namespace mmvlog::format

#include "format/label_json.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "format/archive_format.h"
#include "format/errors.h"

namespace mmvlog::format {
namespace {

// A parsed label: its name as written between the quotes, and its value in
// compact form.
struct JsonLabel {
  std::string name;
  std::string value;
};

absl::Status CheckLabelName(absl::string_view name);

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
      // order written, as libpcp keeps a nested object.
      if (depth >= kMaxDepth) return Error("objects nested too deeply");
      ++pos_;
      out->push_back('{');
      SkipSpace();
      if (!Consume('}')) {
        for (;;) {
          SkipSpace();
          if (Peek() != '"') return Error("expected a label name");
          const size_t start = pos_ + 1;
          if (absl::Status s = ParseString(out); !s.ok()) return s;
          if (absl::Status s = CheckLabelName(in_.substr(start, pos_ - 1 - start)); !s.ok()) {
            return s;
          }
          SkipSpace();
          if (!Consume(':')) return Error("expected ':'");
          out->push_back(':');
          SkipSpace();
          if (absl::Status s = ParseValue(depth + 1, out); !s.ok()) return s;
          SkipSpace();
          if (Consume(',')) {
            out->push_back(',');
            continue;
          }
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
};

// verify_label_name in libpcp's labels.c: [A-Za-z][A-Za-z0-9_]*, shorter
// than MAXLABELNAMELEN.
absl::Status CheckLabelName(absl::string_view name) {
  auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  };
  bool ok =
      !name.empty() && name.size() <= kMaxLabelNameLength && alpha(name[0]);
  for (size_t i = 1; ok && i < name.size(); ++i) {
    const char c = name[i];
    ok = alpha(c) || (c >= '0' && c <= '9') || c == '_';
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("label name \"", absl::CEscape(name.substr(0, 300)),
                     "\" is not [A-Za-z][A-Za-z0-9_]* of at most ",
                     kMaxLabelNameLength, " bytes"));
  }
  return absl::OkStatus();
}

// Parses one object into `merged` (name -> value), rejecting bad and
// duplicate names within the object; later objects overwrite earlier ones.
absl::Status ParseInto(absl::string_view json,
                       std::map<std::string, std::string>* merged) {
  absl::StatusOr<std::vector<JsonLabel>> labels =
      LabelJsonParser(json).ParseObject();
  if (!labels.ok()) return labels.status();
  std::map<std::string, std::string> object;
  for (JsonLabel& l : *labels) {
    if (absl::Status s = CheckLabelName(l.name); !s.ok()) return s;
    if (!object.emplace(l.name, std::move(l.value)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("label name \"", l.name, "\" appears twice"));
    }
  }
  for (auto& [name, value] : object) (*merged)[name] = std::move(value);
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

// The entries of the compact object at `at` in `json`: one per name whose
// value is not an object (those are walked in turn), flagged compound.
void AddCompoundEntries(const std::string& json, size_t at, uint8_t flags,
                        std::vector<LabelEntry>* out) {
  size_t pos = at + 1;  // past '{'
  while (pos < json.size() && json[pos] == '"') {
    const size_t name_end = ValueEnd(json, pos);  // past the closing quote
    const size_t value_at = name_end + 1;         // past ':'
    const size_t value_end = ValueEnd(json, value_at);
    if (json[value_at] == '{') {
      AddCompoundEntries(json, value_at, flags, out);
    } else {
      LabelEntry l;
      l.name_offset = static_cast<uint16_t>(pos + 1);
      l.name_length = static_cast<uint8_t>(name_end - pos - 2);
      l.flags = flags | kLabelCompound;
      l.value_offset = static_cast<uint16_t>(value_at);
      l.value_length = static_cast<uint16_t>(value_end - value_at);
      out->push_back(l);
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
                                      uint8_t flags) {
  // __pmAddLabels refuses input of PM_MAXLABELJSONLEN - 1 bytes or more.
  if (json.size() + 1 >= kMaxLabelJsonLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("label json of ", json.size(), " bytes is too long"));
  }
  std::map<std::string, std::string> labels;
  if (absl::Status s = ParseInto(json, &labels); !s.ok()) return s;
  if (labels.size() > kMaxLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat(labels.size(), " labels exceed ", kMaxLabels));
  }
  LabelSet set;
  set.inst = inst;
  set.json = CompactJson(labels);
  // __pmMergeLabelSets leaves room for the final '}', a NUL and one byte it
  // miscounts, so a merged set is at most 65531 bytes (PCP 6.0.3).
  if (set.json.size() > kMaxLabelJsonLength - 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("label json of ", set.json.size(), " bytes is too long"));
  }
  // Offsets as libpcp's stash_label computes them: the name starts after
  // its opening quote, the value after the name's closing quote and ':'.
  // A compound label (an object value) is no entry itself: each name inside
  // it with a value that is not an object is, flagged compound, as libpcp
  // records them; the entries sorted by name.
  size_t pos = 1;  // the opening quote of the first name
  for (const auto& [name, value] : labels) {
    const size_t value_at = pos + 1 + name.size() + 2;
    if (!value.empty() && value[0] == '{') {
      AddCompoundEntries(set.json, value_at, flags, &set.labels);
    } else {
      LabelEntry l;
      l.name_offset = static_cast<uint16_t>(pos + 1);
      l.name_length = static_cast<uint8_t>(name.size());
      l.flags = flags;
      l.value_offset = static_cast<uint16_t>(value_at);
      l.value_length = static_cast<uint16_t>(value.size());
      set.labels.push_back(l);
    }
    pos = value_at + value.size() + 1;  // past the ','
  }
  if (set.labels.size() > kMaxLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat(set.labels.size(), " labels exceed ", kMaxLabels));
  }
  const std::string& j = set.json;
  std::stable_sort(set.labels.begin(), set.labels.end(),
                   [&](const LabelEntry& a, const LabelEntry& b) {
                     return absl::string_view(j).substr(a.name_offset, a.name_length) <
                            absl::string_view(j).substr(b.name_offset, b.name_length);
                   });
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

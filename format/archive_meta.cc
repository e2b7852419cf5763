#include "format/archive_meta.h"

#include <algorithm>

#include <limits>
#include <map>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/archive_framing.h"
#include "format/byte_reader.h"
#include "format/byte_writer.h"
#include "format/endian.h"
#include "format/errors.h"

namespace mmvlog::format {
namespace {

constexpr uint32_t Tag(MetaType t) { return static_cast<uint32_t>(t); }

void PutBytes(absl::string_view s, std::vector<uint8_t>* out) {
  out->insert(out->end(), s.begin(), s.end());
}

absl::Status CheckVersion(int version) {
  if (version != kLogVersion2 && version != kLogVersion3) {
    return absl::InvalidArgumentError(
        absl::StrCat("archive version ", version, " is neither 2 nor 3"));
  }
  return absl::OkStatus();
}

absl::Status CheckTimestamp(bool v3, const Timestamp& t) {
  if (t.nsec >= kNsecPerSec) {
    return absl::InvalidArgumentError(
        absl::StrCat("timestamp nanoseconds ", t.nsec, " out of range"));
  }
  if (!v3 && (t.sec < std::numeric_limits<int32_t>::min() ||
              t.sec > std::numeric_limits<int32_t>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat("timestamp ", t.sec, " s does not fit a v2 archive"));
  }
  return absl::OkStatus();
}

void PutTimestamp(bool v3, const Timestamp& t, std::vector<uint8_t>* out) {
  if (v3) {
    AppendBig64(V3SecondsWordSwap(static_cast<uint64_t>(t.sec)), out);
    AppendBig32(t.nsec, out);
  } else {
    AppendBig32(static_cast<uint32_t>(static_cast<int32_t>(t.sec)), out);
    AppendBig32(t.nsec / 1000, out);
  }
}

// Reads a timestamp; on a sub-second field out of range returns false with
// `*error` set.
bool ReadTimestamp(bool v3, ByteReader& r, Timestamp* t, absl::Status* error) {
  const uint64_t at = r.offset();
  if (v3) {
    t->sec = static_cast<int64_t>(V3SecondsWordSwap(r.ReadBig64()));
    t->nsec = r.ReadBig32();
    if (r.ok() && t->nsec >= kNsecPerSec) {
      *error = DataLossAt(at + 8, absl::StrCat("timestamp nanoseconds ",
                                               t->nsec, " out of range"));
      return false;
    }
  } else {
    t->sec = r.ReadBigI32();
    const uint32_t usec = r.ReadBig32();
    if (r.ok() && usec >= kUsecPerSec) {
      *error = DataLossAt(at + 4, absl::StrCat("timestamp microseconds ", usec,
                                               " out of range"));
      return false;
    }
    t->nsec = usec * 1000;
  }
  return true;
}

bool HasNul(absl::string_view s) {
  return s.find('\0') != absl::string_view::npos;
}

bool IsLabelType(uint32_t type) {
  return type == kLabelContext || type == kLabelDomain || type == kLabelIndom ||
         type == kLabelCluster || type == kLabelItem || type == kLabelInstances;
}

absl::Status CheckLabelSet(size_t index, const LabelSet& set) {
  const std::string where = absl::StrCat("label set ", index, ": ");
  if (set.json.size() > kMaxLabelJsonLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "json of ", set.json.size(), " bytes exceeds ",
                     kMaxLabelJsonLength));
  }
  if (HasNul(set.json)) {
    return absl::InvalidArgumentError(absl::StrCat(where, "json contains NUL"));
  }
  if (set.labels.size() > kMaxLabels) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, set.labels.size(), " labels exceed ", kMaxLabels));
  }
  if (set.error > 0 || (set.error < 0 && !set.labels.empty())) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "error ", set.error, " must be negative and without labels"));
  }
  for (size_t i = 0; i < set.labels.size(); ++i) {
    const LabelEntry& l = set.labels[i];
    if (size_t{l.name_offset} + l.name_length > set.json.size() ||
        size_t{l.value_offset} + l.value_length > set.json.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "label ", i, " (name ", l.name_offset, "+", l.name_length,
          ", value ", l.value_offset, "+", l.value_length,
          ") lies outside the ", set.json.size(), "-byte json"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckTextType(uint32_t type) {
  const uint32_t kind = type & (kTextOneLine | kTextHelp);
  const uint32_t ident = type & (kTextPmid | kTextIndom);
  if ((kind != kTextOneLine && kind != kTextHelp) ||
      (ident != kTextPmid && ident != kTextIndom) ||
      (type & ~(kTextOneLine | kTextHelp | kTextPmid | kTextIndom)) != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "text type 0x%x is not one of one-line/help with PMID/indom", type));
  }
  return absl::OkStatus();
}

// ---- Decoding. Each Decode* reads the payload after its tag.

// The reader's "need N bytes" errors are OutOfRange (a torn tail) when they
// concern a file; inside a payload whose framing was intact they mean the
// record contradicts its own length.
absl::Status AsDataLoss(const absl::Status& s) {
  if (s.code() == absl::StatusCode::kOutOfRange) {
    return absl::DataLossError(s.message());
  }
  return s;
}

absl::StatusOr<MetaRecord> DecodeDesc(ByteReader& r) {
  Desc d;
  d.pmid = r.ReadBig32();
  d.type = r.ReadBigI32();
  d.indom = r.ReadBig32();
  d.sem = r.ReadBigI32();
  d.units = r.ReadBig32();
  const uint64_t count_at = r.offset();
  const int32_t numnames = r.ReadBigI32();
  if (!r.ok()) return r.status();
  if (numnames < 0 || static_cast<size_t>(numnames) > r.remaining() / 4) {
    return DataLossAt(
        count_at, absl::StrCat("name count ", numnames, " does not fit the ",
                               r.remaining(), " bytes left"));
  }
  for (int32_t i = 0; i < numnames; ++i) {
    const uint64_t at = r.offset();
    const int32_t len = r.ReadBigI32();
    if (!r.ok()) return r.status();
    if (len < 0 || static_cast<size_t>(len) > r.remaining()) {
      return DataLossAt(
          at, absl::StrCat("name ", i, ": length ", len, " does not fit the ",
                           r.remaining(), " bytes left"));
    }
    std::span<const uint8_t> name = r.ReadBytes(len);
    d.names.emplace_back(name.begin(), name.end());
    // libpcp keeps the name as a C string: a NUL inside ends it there, and
    // every PCP tool shows it so (pmdumplog included). Read it the same way.
    if (const size_t nul = d.names.back().find('\0'); nul != std::string::npos) {
      d.names.back().resize(nul);
    }
  }
  if (absl::Status s = r.Finish(); !s.ok()) return s;
  return d;
}

absl::StatusOr<MetaRecord> DecodeInDom(MetaType tag, ByteReader& r) {
  InDom d;
  d.delta = tag == MetaType::kInDomDelta;
  absl::Status error;
  if (!ReadTimestamp(tag != MetaType::kInDomV2, r, &d.timestamp, &error)) {
    return error;
  }
  d.indom = r.ReadBig32();
  const uint64_t count_at = r.offset();
  const int32_t numinst = r.ReadBigI32();
  if (!r.ok()) return r.status();
  if (numinst < 0 || static_cast<size_t>(numinst) > r.remaining() / 8) {
    return DataLossAt(
        count_at, absl::StrCat("instance count ", numinst, " does not fit the ",
                               r.remaining(), " bytes left"));
  }
  const uint64_t inst_at = r.offset();
  std::vector<int32_t> insts(numinst);
  for (int32_t& inst : insts) inst = r.ReadBigI32();
  const uint64_t index_at = r.offset();
  std::vector<int32_t> indexes(numinst);
  for (int32_t& index : indexes) index = r.ReadBigI32();
  // Whatever follows is the string table.
  std::span<const uint8_t> bytes = r.ReadBytes(r.remaining());
  if (!r.ok()) return r.status();
  const absl::string_view table(reinterpret_cast<const char*>(bytes.data()),
                                bytes.size());
  for (int32_t i = 0; i < numinst; ++i) {
    InDomInstance inst;
    inst.inst = insts[i];
    if (inst.inst < 0) {
      return DataLossAt(
          inst_at + 4 * i,
          absl::StrCat("instance ", i, ": negative id ", inst.inst));
    }
    const int32_t index = indexes[i];
    if (index == kInDomDeletedOffset && d.delta) {
      inst.deleted = true;
    } else if (index < 0 || static_cast<size_t>(index) >= table.size()) {
      return DataLossAt(
          index_at + 4 * i,
          absl::StrCat("instance ", i, ": string offset ", index,
                       " outside the ", table.size(), "-byte string table"));
    } else {
      const size_t end = table.find('\0', index);
      if (end == absl::string_view::npos) {
        return DataLossAt(index_at + 4 * i, absl::StrCat("instance ", i,
                                                         ": name at string "
                                                         "offset ",
                                                         index, " has no NUL"));
      }
      inst.name = std::string(table.substr(index, end - index));
    }
    d.instances.push_back(std::move(inst));
  }
  return d;
}

absl::StatusOr<MetaRecord> DecodeLabel(MetaType tag, ByteReader& r) {
  LabelRecord rec;
  absl::Status error;
  if (!ReadTimestamp(tag == MetaType::kLabel, r, &rec.timestamp, &error)) {
    return error;
  }
  const uint64_t type_at = r.offset();
  rec.type = r.ReadBig32();
  rec.ident = r.ReadBig32();
  const uint64_t count_at = r.offset();
  const int32_t nsets = r.ReadBigI32();
  if (!r.ok()) return r.status();
  if (!IsLabelType(rec.type)) {
    return DataLossAt(type_at, absl::StrFormat("label type 0x%x is not one of "
                                               "context..instances",
                                               rec.type));
  }
  if (nsets < 0 ||
      static_cast<size_t>(nsets) > r.remaining() / kLabelSetFixed) {
    return DataLossAt(
        count_at, absl::StrCat("label set count ", nsets, " does not fit the ",
                               r.remaining(), " bytes left"));
  }
  for (int32_t i = 0; i < nsets; ++i) {
    LabelSet set;
    set.inst = r.ReadBigI32();
    const uint64_t len_at = r.offset();
    const int32_t jsonlen = r.ReadBigI32();
    if (!r.ok()) return r.status();
    if (jsonlen < 0 || static_cast<size_t>(jsonlen) > kMaxLabelJsonLength ||
        static_cast<size_t>(jsonlen) > r.remaining()) {
      return DataLossAt(
          len_at, absl::StrCat("label set ", i, ": json length ", jsonlen,
                               " invalid with ", r.remaining(), " bytes left"));
    }
    std::span<const uint8_t> json = r.ReadBytes(jsonlen);
    set.json.assign(json.begin(), json.end());
    if (HasNul(set.json)) {
      return DataLossAt(len_at + 4,
                        absl::StrCat("label set ", i, ": json contains NUL"));
    }
    const uint64_t nlabels_at = r.offset();
    const int32_t nlabels = r.ReadBigI32();
    if (!r.ok()) return r.status();
    if (nlabels < 0) {
      set.error = nlabels;
    } else if (static_cast<size_t>(nlabels) > kMaxLabels ||
               static_cast<size_t>(nlabels) > r.remaining() / kLabelEntrySize) {
      return DataLossAt(
          nlabels_at,
          absl::StrCat("label set ", i, ": label count ", nlabels,
                       " invalid with ", r.remaining(), " bytes left"));
    }
    for (int32_t j = 0; j < nlabels; ++j) {
      const uint64_t at = r.offset();
      LabelEntry l;
      l.name_offset = r.ReadBig16();
      l.name_length = r.ReadU8();
      l.flags = r.ReadU8();
      l.value_offset = r.ReadBig16();
      l.value_length = r.ReadBig16();
      if (!r.ok()) return r.status();
      if (size_t{l.name_offset} + l.name_length > set.json.size() ||
          size_t{l.value_offset} + l.value_length > set.json.size()) {
        return DataLossAt(
            at,
            absl::StrCat("label set ", i, ": label ", j, " (name ",
                         l.name_offset, "+", l.name_length, ", value ",
                         l.value_offset, "+", l.value_length,
                         ") lies outside the ", set.json.size(), "-byte json"));
      }
      set.labels.push_back(l);
    }
    rec.sets.push_back(std::move(set));
  }
  if (absl::Status s = r.Finish(); !s.ok()) return s;
  return rec;
}

absl::StatusOr<MetaRecord> DecodeText(ByteReader& r) {
  HelpText t;
  const uint64_t type_at = r.offset();
  t.type = r.ReadBig32();
  t.ident = r.ReadBig32();
  const uint64_t text_at = r.offset();
  std::span<const uint8_t> bytes = r.ReadBytes(r.remaining());
  if (!r.ok()) return r.status();
  // libpcp needs a kind and an ident kind (it ignores the record otherwise,
  // without reading its trailer, so the next record is misread).
  if ((t.type & (kTextOneLine | kTextHelp)) == 0 ||
      (t.type & (kTextPmid | kTextIndom)) == 0) {
    return DataLossAt(type_at, absl::StrFormat("text type 0x%x lacks a kind "
                                               "or an ident kind",
                                               t.type));
  }
  const absl::string_view text(reinterpret_cast<const char*>(bytes.data()),
                               bytes.size());
  const size_t nul = text.find('\0');
  if (nul == absl::string_view::npos) {
    return DataLossAt(
        text_at, absl::StrCat("text of ", text.size(), " bytes has no NUL"));
  }
  if (nul + 1 != text.size()) {
    return DataLossAt(text_at + nul + 1,
                      absl::StrCat(text.size() - nul - 1,
                                   " unexpected bytes after the text's NUL"));
  }
  t.text = std::string(text.substr(0, nul));
  return t;
}

// ---- Label JSON.

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

absl::Status EncodeDesc(const Desc& desc, std::vector<uint8_t>* out) {
  for (size_t i = 0; i < desc.names.size(); ++i) {
    if (desc.names[i].empty() || HasNul(desc.names[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("desc name ", i, " is empty or contains NUL"));
    }
  }
  const size_t begin = BeginFrame(out);
  AppendBig32(Tag(MetaType::kDesc), out);
  AppendBig32(desc.pmid, out);
  AppendBig32(static_cast<uint32_t>(desc.type), out);
  AppendBig32(desc.indom, out);
  AppendBig32(static_cast<uint32_t>(desc.sem), out);
  AppendBig32(desc.units, out);
  AppendBig32(static_cast<uint32_t>(desc.names.size()), out);
  for (const std::string& name : desc.names) {
    AppendBig32(static_cast<uint32_t>(name.size()), out);
    PutBytes(name, out);
  }
  EndFrame(begin, out);
  return absl::OkStatus();
}

absl::Status EncodeInDom(int version, const InDom& indom,
                         std::vector<uint8_t>* out) {
  if (absl::Status s = CheckVersion(version); !s.ok()) return s;
  const bool v3 = version == kLogVersion3;
  if (indom.delta && !v3) {
    return absl::InvalidArgumentError(
        "a delta instance domain needs a v3 archive");
  }
  if (absl::Status s = CheckTimestamp(v3, indom.timestamp); !s.ok()) return s;
  size_t table = 0;
  for (size_t i = 0; i < indom.instances.size(); ++i) {
    const InDomInstance& inst = indom.instances[i];
    if (inst.inst < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("instance ", i, ": negative id ", inst.inst));
    }
    if (inst.deleted && (!indom.delta || !inst.name.empty())) {
      return absl::InvalidArgumentError(
          absl::StrCat("instance ", i,
                       ": deleted instances belong in delta records and "
                       "have no name"));
    }
    if (HasNul(inst.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("instance ", i, ": name contains NUL"));
    }
    if (!inst.deleted) table += inst.name.size() + 1;
  }
  if (indom.instances.size() > static_cast<size_t>(INT32_MAX / 8) ||
      table > static_cast<size_t>(INT32_MAX / 2)) {
    return absl::InvalidArgumentError("instance domain too large");
  }
  const size_t begin = BeginFrame(out);
  AppendBig32(Tag(indom.delta ? MetaType::kInDomDelta
               : v3        ? MetaType::kInDom
                           : MetaType::kInDomV2),
           out);
  PutTimestamp(v3, indom.timestamp, out);
  AppendBig32(indom.indom, out);
  AppendBig32(static_cast<uint32_t>(indom.instances.size()), out);
  for (const InDomInstance& inst : indom.instances) {
    AppendBig32(static_cast<uint32_t>(inst.inst), out);
  }
  int32_t offset = 0;
  for (const InDomInstance& inst : indom.instances) {
    if (inst.deleted) {
      AppendBig32(static_cast<uint32_t>(kInDomDeletedOffset), out);
    } else {
      AppendBig32(static_cast<uint32_t>(offset), out);
      offset += static_cast<int32_t>(inst.name.size() + 1);
    }
  }
  for (const InDomInstance& inst : indom.instances) {
    if (inst.deleted) continue;
    PutBytes(inst.name, out);
    out->push_back(0);
  }
  EndFrame(begin, out);
  return absl::OkStatus();
}

absl::Status EncodeLabelRecord(int version, const LabelRecord& record,
                               std::vector<uint8_t>* out) {
  if (absl::Status s = CheckVersion(version); !s.ok()) return s;
  const bool v3 = version == kLogVersion3;
  if (absl::Status s = CheckTimestamp(v3, record.timestamp); !s.ok()) return s;
  if (!IsLabelType(record.type)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "label type 0x%x is not one of context..instances", record.type));
  }
  if (record.sets.size() > static_cast<size_t>(INT32_MAX / kLabelSetFixed)) {
    return absl::InvalidArgumentError("too many label sets");
  }
  for (size_t i = 0; i < record.sets.size(); ++i) {
    if (absl::Status s = CheckLabelSet(i, record.sets[i]); !s.ok()) return s;
  }
  const size_t begin = BeginFrame(out);
  AppendBig32(Tag(v3 ? MetaType::kLabel : MetaType::kLabelV2), out);
  PutTimestamp(v3, record.timestamp, out);
  AppendBig32(record.type, out);
  AppendBig32(record.ident, out);
  AppendBig32(static_cast<uint32_t>(record.sets.size()), out);
  for (const LabelSet& set : record.sets) {
    AppendBig32(static_cast<uint32_t>(set.inst), out);
    AppendBig32(static_cast<uint32_t>(set.json.size()), out);
    PutBytes(set.json, out);
    AppendBig32(set.error < 0 ? static_cast<uint32_t>(set.error)
                           : static_cast<uint32_t>(set.labels.size()),
             out);
    for (const LabelEntry& l : set.labels) {
      AppendBig16(l.name_offset, out);
      out->push_back(l.name_length);
      out->push_back(l.flags);
      AppendBig16(l.value_offset, out);
      AppendBig16(l.value_length, out);
    }
  }
  EndFrame(begin, out);
  return absl::OkStatus();
}

absl::Status EncodeHelpText(const HelpText& text, std::vector<uint8_t>* out) {
  if (absl::Status s = CheckTextType(text.type); !s.ok()) return s;
  if (HasNul(text.text)) {
    return absl::InvalidArgumentError("help text contains NUL");
  }
  const size_t begin = BeginFrame(out);
  AppendBig32(Tag(MetaType::kText), out);
  AppendBig32(text.type, out);
  AppendBig32(text.ident, out);
  PutBytes(text.text, out);
  out->push_back(0);
  EndFrame(begin, out);
  return absl::OkStatus();
}

absl::StatusOr<MetaRecord> DecodeMetaRecord(int version,
                                            std::span<const uint8_t> payload,
                                            uint64_t record_offset) {
  if (absl::Status s = CheckVersion(version); !s.ok()) return s;
  // Offsets in messages are file offsets: the payload follows the leading
  // length field.
  ByteReader r(payload, record_offset + 4);
  const uint32_t tag = r.ReadBig32();
  absl::StatusOr<MetaRecord> rec;
  absl::string_view kind;
  switch (static_cast<MetaType>(tag)) {
    case MetaType::kDesc:
      kind = "desc";
      rec = DecodeDesc(r);
      break;
    case MetaType::kInDomV2:
    case MetaType::kInDom:
    case MetaType::kInDomDelta:
      kind = "indom";
      rec = DecodeInDom(static_cast<MetaType>(tag), r);
      break;
    case MetaType::kLabelV2:
    case MetaType::kLabel:
      kind = "label";
      rec = DecodeLabel(static_cast<MetaType>(tag), r);
      break;
    case MetaType::kText:
      kind = "text";
      rec = DecodeText(r);
      break;
    default:
      if (!r.ok()) {
        kind = "meta";
        rec = r.status();
      } else {
        return WithContext(
            DataLossAt(record_offset + 4,
                       absl::StrCat("unknown record type ", tag)),
            absl::StrCat("meta record at offset ", record_offset));
      }
  }
  if (!rec.ok()) {
    return WithContext(AsDataLoss(rec.status()),
                       absl::StrCat(kind, " record at offset ", record_offset));
  }
  return rec;
}

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

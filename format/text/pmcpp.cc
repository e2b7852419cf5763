#include "format/text/pmcpp.h"

#include <cctype>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace mmvlog::format {
namespace {

constexpr int kMaxDepth = 5;  // pmcpp's MAXLEVEL: the top file and 4 includes

struct Macro {
  std::string value;
  std::string where;  // FILE:LINE of its %define
};

struct Frame {
  std::string file;
  int line = 0;
};

class Preprocessor {
 public:
  explicit Preprocessor(const PmcppOptions& options) : options_(options) {
    for (const auto& [name, value] : options.defines) macros_[name] = {value, "-D"};
  }

  absl::Status Run(absl::string_view text, const std::string& file) {
    if (absl::Status s = Process(text, file); !s.ok()) return s;
    if (in_if_ != If::kNone) {
      return absl::InvalidArgumentError(
          absl::StrCat(if_where_, ": %", if_kind_, " has no matching %endif"));
    }
    return absl::OkStatus();
  }

  std::vector<SourceLine> Take() { return std::move(out_); }

 private:
  enum class If { kNone, kTrue, kFalse };

  absl::Status Error(const Frame& at, size_t col, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(at.file, ":", at.line, ":", col + 1, ": ", what));
  }

  absl::Status Process(absl::string_view text, const std::string& file) {
    stack_.push_back(file);
    Frame at{file, 0};
    // A file ending in a newline has no empty last line.
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    for (absl::string_view raw : absl::StrSplit(text, '\n')) {
      if (text.empty()) break;
      ++at.line;
      std::string line(raw);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty() && line[0] == '%') {
        absl::StatusOr<bool> handled = Directive(line, at);
        if (!handled.ok()) return handled.status();
        if (*handled) continue;
      }
      if (in_if_ == If::kFalse) continue;
      out_.push_back({Expand(line), at.file, at.line});
    }
    stack_.pop_back();
    return absl::OkStatus();
  }

  // The word after '%' when it is one of pmcpp's directives.
  static absl::string_view DirectiveWord(absl::string_view line) {
    size_t end = 1;
    while (end < line.size() && std::isalpha(static_cast<unsigned char>(line[end]))) ++end;
    absl::string_view word = line.substr(1, end - 1);
    if (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) return {};
    for (absl::string_view d : {"include", "shell", "define", "undef", "ifdef", "ifndef", "else",
                                "endif"}) {
      if (word == d) return word;
    }
    return {};
  }

  // True when `line` was a directive (consumed); false to treat it as text.
  // One piece: one switch over pmcpp's directives.
  absl::StatusOr<bool> Directive(const std::string& line, const Frame& at) {
    absl::string_view word = DirectiveWord(line);
    if (word.empty()) return false;
    size_t pos = 1 + word.size();
    auto skip_blanks = [&] {
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    };
    skip_blanks();
    if (word == "include" || word == "shell") {
      if (in_if_ == If::kFalse) return true;
      if (word == "shell") {
        return Error(at, 0, "%shell is not supported: mmvlog never runs commands named in its "
                            "configuration");
      }
      if (pos >= line.size() || (line[pos] != '"' && line[pos] != '<')) {
        return Error(at, pos, "expected \"file\" or <file> after %include");
      }
      const char close = line[pos] == '"' ? '"' : '>';
      const size_t name_start = pos + 1;
      const size_t name_end = line.find(close, name_start);
      if (name_end == std::string::npos) {
        return Error(at, pos, absl::StrCat("expected ", std::string(1, close),
                                           " after the file name"));
      }
      pos = name_end + 1;
      skip_blanks();
      if (pos < line.size()) return Error(at, pos, "unexpected extra text after %include");
      const std::string name = line.substr(name_start, name_end - name_start);
      if (name.empty()) return Error(at, name_start, "empty file name in %include");
      return Include(name, at, name_start);
    }
    // define, undef, ifdef, ifndef take a macro name; else, endif none.
    std::string name;
    if (word != "else" && word != "endif") {
      if (pos >= line.size()) return Error(at, pos, absl::StrCat("missing macro name after %", word));
      const size_t start = pos;
      while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') {
        const unsigned char c = static_cast<unsigned char>(line[pos]);
        if (!(std::isalpha(c) || c == '_' || (pos > start && std::isdigit(c)))) {
          return Error(at, pos, absl::StrCat("illegal character '", std::string(1, line[pos]),
                                             "' in macro name"));
        }
        ++pos;
      }
      name = line.substr(start, pos - start);
    }
    std::string value;
    if (word == "define") {
      skip_blanks();
      if (pos < line.size()) {
        const char quote = (line[pos] == '"' || line[pos] == '\'') ? line[pos] : '\0';
        const size_t qpos = pos;
        if (quote != '\0') ++pos;
        const size_t vstart = pos;
        while (pos < line.size() && (quote != '\0' ? line[pos] != quote
                                                   : !std::isspace(static_cast<unsigned char>(line[pos])))) {
          ++pos;
        }
        if (quote != '\0' && pos >= line.size()) {
          return Error(at, qpos, "unterminated value string in %define");
        }
        value = line.substr(vstart, pos - vstart);
        if (quote != '\0') ++pos;
      }
    }
    skip_blanks();
    if (pos < line.size()) {
      return Error(at, pos, absl::StrCat("unexpected extra text after %", word,
                                         word == "define" ? " (quote a value with spaces)" : ""));
    }
    const std::string here = absl::StrCat(at.file, ":", at.line);
    if (word == "endif") {
      if (in_if_ == If::kNone) return Error(at, 0, "%endif without %ifdef or %ifndef");
      in_if_ = If::kNone;
      return true;
    }
    if (word == "else") {
      if (in_if_ == If::kNone) return Error(at, 0, "%else without %ifdef or %ifndef");
      in_if_ = in_if_ == If::kTrue ? If::kFalse : If::kTrue;
      return true;
    }
    if (word == "ifdef" || word == "ifndef") {
      if (in_if_ != If::kNone) {
        return Error(at, 0, absl::StrCat("nested %", word, " (pmcpp allows no %ifdef or %ifndef "
                                         "inside another; the open one is at ", if_where_, ")"));
      }
      const bool defined = macros_.contains(name);
      in_if_ = (defined == (word == "ifdef")) ? If::kTrue : If::kFalse;
      if_where_ = here;
      if_kind_ = std::string(word);
      return true;
    }
    if (in_if_ == If::kFalse) return true;
    if (word == "undef") {
      macros_.erase(name);
      return true;
    }
    // define
    if (auto it = macros_.find(name); it != macros_.end()) {
      return Error(at, 0, absl::StrCat("macro ", name, " redefined (defined before at ",
                                       it->second.where, "; %undef it first)"));
    }
    macros_[name] = {value, here};
    return true;
  }

  absl::StatusOr<bool> Include(const std::string& name, const Frame& at, size_t col) {
    if (stack_.size() >= kMaxDepth) {
      return Error(at, col, absl::StrCat("%include nesting too deep (more than ", kMaxDepth - 1,
                                         " levels below ", stack_.front(), ")"));
    }
    std::vector<std::string> candidates;
    if (name[0] == '/') {
      candidates.push_back(name);
    } else {
      const size_t slash = at.file.rfind('/');
      candidates.push_back(slash == std::string::npos ? name
                                                      : at.file.substr(0, slash + 1) + name);
      for (const std::string& dir : options_.include_dirs) {
        candidates.push_back(absl::StrCat(dir, "/", name));
      }
    }
    for (const std::string& path : candidates) {
      absl::StatusOr<std::string> text = options_.load(path);
      if (absl::IsNotFound(text.status())) continue;
      if (!text.ok()) {
        return Error(at, col, absl::StrCat("cannot read %include file ", path, ": ",
                                           text.status().message()));
      }
      for (const std::string& open : stack_) {
        if (open == path) {
          return Error(at, col, absl::StrCat("%include loop: ",
                                             absl::StrJoin(stack_, " -> "), " -> ", path));
        }
      }
      if (absl::Status s = Process(*text, path); !s.ok()) return s;
      return true;
    }
    return Error(at, col, absl::StrCat("cannot find %include file \"", name, "\" (looked for ",
                                       absl::StrJoin(candidates, ", "), ")"));
  }

  // -r: only %NAME and %{NAME} are expanded; the value is not rescanned.
  std::string Expand(const std::string& line) const {
    if (macros_.empty() || line.find('%') == std::string::npos) return line;
    std::string out;
    size_t i = 0;
    while (i < line.size()) {
      if (line[i] != '%') {
        out.push_back(line[i++]);
        continue;
      }
      size_t start = i + 1;
      bool braced = start < line.size() && line[start] == '{';
      if (braced) ++start;
      size_t end = start;
      while (end < line.size() &&
             (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) {
        ++end;
      }
      const bool closed = !braced || (end < line.size() && line[end] == '}');
      auto it = end > start && closed ? macros_.find(line.substr(start, end - start))
                                      : macros_.end();
      if (it == macros_.end()) {
        out.push_back(line[i++]);
        continue;
      }
      out += it->second.value;
      i = braced ? end + 1 : end;
    }
    return out;
  }

  const PmcppOptions& options_;
  std::map<std::string, Macro> macros_;
  std::vector<std::string> stack_;  // files being read, outermost first
  If in_if_ = If::kNone;
  std::string if_where_;
  std::string if_kind_;
  std::vector<SourceLine> out_;
};

}  // namespace

absl::StatusOr<std::vector<SourceLine>> Pmcpp(absl::string_view text, const std::string& file,
                                             const PmcppOptions& options) {
  Preprocessor p(options);
  if (absl::Status s = p.Run(text, file); !s.ok()) return s;
  return p.Take();
}

}  // namespace mmvlog::format

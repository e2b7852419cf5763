#include "format/derive/derive_config.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace mmvlog::format {

absl::StatusOr<std::vector<DerivedDefinition>> ParseDerivedList(absl::string_view text) {
  std::vector<DerivedDefinition> out;
  for (absl::string_view piece : absl::StrSplit(text, ';', absl::SkipWhitespace())) {
    const size_t eq = piece.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "-e ", piece, ": Invalid syntax (expected metric=expression)"));
    }
    out.push_back({std::string(absl::StripAsciiWhitespace(piece.substr(0, eq))),
                   std::string(absl::StripAsciiWhitespace(piece.substr(eq + 1))), "-e"});
  }
  return out;
}

absl::StatusOr<std::vector<DerivedDefinition>> ParseDerivedConfig(absl::string_view text,
                                                                  absl::string_view file) {
  std::vector<DerivedDefinition> out;
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t first = i + 1;
    std::string line(lines[i]);
    // A '\' at the end: the next line goes on this one.
    while (!line.empty() && line.back() == '\\' && i + 1 < lines.size()) {
      line.pop_back();
      absl::StrAppend(&line, lines[++i]);
    }
    absl::string_view l = absl::StripAsciiWhitespace(line);
    if (l.empty() || l[0] == '#') continue;
    const size_t eq = l.find('=');
    const size_t paren = l.find('(');
    if (eq != absl::string_view::npos && paren != absl::string_view::npos && paren < eq) {
      // "name(oneline) = text", "name(helptext) = 'text'": a metric's help,
      // its quoted value may go on over lines. Read past it.
      const absl::string_view value = absl::StripAsciiWhitespace(l.substr(eq + 1));
      if (!value.empty() && (value[0] == '\'' || value[0] == '"')) {
        const char q = value[0];
        std::string held(value.substr(1));
        while (held.find(q) == std::string::npos && i + 1 < lines.size()) held = std::string(lines[++i]);
      }
      continue;
    }
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          file, ":", first, ": pmLoadDerivedConfig: missing '=' after name"));
    }
    absl::string_view name = absl::StripAsciiWhitespace(l.substr(0, eq));
    absl::string_view expr = absl::StripAsciiWhitespace(l.substr(eq + 1));
    if (expr.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", first, ": pmLoadDerivedConfig: expression missing"));
    }
    out.push_back({std::string(name), std::string(expr), absl::StrCat(file, ":", first)});
  }
  return out;
}

}  // namespace mmvlog::format

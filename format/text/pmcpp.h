// pmcpp's preprocessing as `pmcpp -rs` does it for pmlogger configurations
// (pmcpp(1); pmlogger(1) "CONFIGURATION FILE SYNTAX"):
//
//   %include "file" | <file>    nested up to 5 deep; relative names are
//                               looked up beside the including file, then
//                               in the include directories
//   %define NAME [value]        value: a word, or "quoted" / 'quoted' text
//   %undef NAME
//   %ifdef NAME / %ifndef NAME / %else / %endif     (not nested, as pmcpp)
//   %NAME and %{NAME}           expanded (-r: only these spellings);
//                               an unknown one is left as it is
//
// Directives start in the first column. `#` comments pass through to the
// configuration's own lexer. `%shell` is refused: mmvlog never runs commands
// named in a configuration file. A redefinition is an error, as in pmcpp.
//
// Pure: files come through the injected loader. Errors are InvalidArgument
// "FILE:LINE:COL: what is wrong", naming the file and line where the problem
// is, through includes.
#ifndef MMVLOG_FORMAT_TEXT_PMCPP_H_
#define MMVLOG_FORMAT_TEXT_PMCPP_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmvlog::format {

// One line of preprocessed text and where it came from.
struct SourceLine {
  std::string text;  // without the newline
  std::string file;  // as named (the top file, or the include as resolved)
  int line = 0;      // 1-based, in `file`
};

// Reads a whole file. NotFound when there is no such file (the next place
// is then tried); any other error stops preprocessing.
using FileLoader = std::function<absl::StatusOr<std::string>(const std::string& path)>;

struct PmcppOptions {
  FileLoader load;
  // Searched after the including file's directory (pmlogger passes
  // $PCP_VAR_DIR/config/pmlogger).
  std::vector<std::string> include_dirs;
  // Predefined macros (pmcpp -D NAME=VALUE).
  std::vector<std::pair<std::string, std::string>> defines;
};

// Preprocesses `text`, read from `file`. Lines skipped by a conditional or
// holding a directive are left out.
absl::StatusOr<std::vector<SourceLine>> Pmcpp(absl::string_view text, const std::string& file,
                                             const PmcppOptions& options);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_TEXT_PMCPP_H_

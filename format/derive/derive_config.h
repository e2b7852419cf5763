// Derived metric definitions as PCP's tools take them: pmrep's -e text
// ("name=expr" pieces separated by ';') and pmLoadDerivedConfig(3) files
// ("name = expr" lines; '#' starts a comment line, "#control" lines are
// settings; a line ending in '\' goes on at the next). Text in, definitions
// out; reading the file is the caller's.
#ifndef MMVLOG_FORMAT_DERIVE_DERIVE_CONFIG_H_
#define MMVLOG_FORMAT_DERIVE_DERIVE_CONFIG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmvlog::format {

struct DerivedDefinition {
  std::string name;
  std::string expr;
  std::string where;  // "-e" or "FILE:LINE", for messages
  // Shown only when named, and left out where it does not parse or bind:
  // PCP's global configuration ($PCP_DERIVED_CONFIG, else
  // $PCP_SYSCONF_DIR/derived), as libpcp leaves such definitions, and
  // pmrep's set formulas (pmrep then reports the metric as invalid).
  bool optional = false;
};

// pmrep -e's text: "name=expr;name=expr". InvalidArgument naming the
// piece for one without '=' ("Invalid syntax (expected metric=expression)",
// pmrep's words).
absl::StatusOr<std::vector<DerivedDefinition>> ParseDerivedList(absl::string_view text);

// A pmLoadDerivedConfig(3) file's text; `file` names it in `where`. Lines
// that are neither a comment nor "name = expr" are InvalidArgument with
// the file and line, as libpcp reports them.
absl::StatusOr<std::vector<DerivedDefinition>> ParseDerivedConfig(absl::string_view text,
                                                                  absl::string_view file);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_DERIVE_DERIVE_CONFIG_H_

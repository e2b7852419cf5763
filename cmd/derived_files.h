// Derived metric definitions read from where PCP's tools take them: a
// pmrep -e or `derived =` argument (a file when it starts with / or ., as
// pmrep tells them apart, else "name=expr;..." text) and libpcp's global
// configuration ($PCP_DERIVED_CONFIG, else the installed PCP's places).
// The parsing is format/derive/derive_config's; here, the files.
#ifndef MMVLOG_CMD_DERIVED_FILES_H_
#define MMVLOG_CMD_DERIVED_FILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/derive/derive_config.h"

namespace mmvlog::cmd {

// A pmLoadDerivedConfig(3) file's definitions. NotFound ("PATH: cannot
// read the file") when it cannot be read; InvalidArgument from the parser.
absl::StatusOr<std::vector<format::DerivedDefinition>> ReadDerivedFile(const std::string& path);

// One -e or `derived =` argument: a file (a path starting with / or .) or
// pmrep's "name=expr;name=expr" text.
absl::StatusOr<std::vector<format::DerivedDefinition>> DerivedFromArgument(absl::string_view arg);

// PCP's global derived metrics, as libpcp loads them for every context:
// its own event.flags and event.missed first, then $PCP_DERIVED_CONFIG's files and directories (':' between them; "" none),
// else $PCP_SYSCONF_DIR/derived (6.0.3's place) and
// $PCP_VAR_DIR/config/derived (7.2's), a directory's files in name order.
// Each is optional (DerivedDefinition::optional); a file that cannot be
// read or parsed is passed over, as libpcp passes over it.
std::vector<format::DerivedDefinition> GlobalDerivedDefinitions();

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_DERIVED_FILES_H_

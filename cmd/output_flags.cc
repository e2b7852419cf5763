// Flags shared by several subcommands (absl flag names are global to the
// binary): --json for inspect and replay.
#include "absl/flags/flag.h"

ABSL_FLAG(bool, json, false,
          "machine-readable JSON: inspect prints one object, replay one object per sample "
          "(JSON lines)");

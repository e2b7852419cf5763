// --interval, shared by record, capture and replay (absl flag names are
// global to the binary).
#include <string>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, interval, "",
          "PCP interval syntax (10sec, 1 min, 250msec, plain seconds): record and capture "
          "sample this often (empty: 1sec); replay resamples onto this grid, interpolating "
          "as pmval -t does (empty: the recorded samples)");

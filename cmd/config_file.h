// Reading a pmlogger configuration file for -c, as pmlogger finds one: the
// path as given, else $PCP_VAR_DIR/config/pmlogger/NAME; through pmcpp -rs
// with that directory on the include path.
#ifndef MMVLOG_CMD_CONFIG_FILE_H_
#define MMVLOG_CMD_CONFIG_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "format/text/logger_config.h"

namespace mmvlog::cmd {

// $PCP_VAR_DIR as PCP finds it: the environment, else /etc/pcp.conf (or
// $PCP_CONF), else /var/lib/pcp.
std::string PcpVarDir();

// Reads and parses CONFIG. InvalidArgument "FILE:LINE:COL: what is wrong"
// for a broken configuration; NotFound naming where it looked.
absl::StatusOr<format::LoggerConfig> LoadLoggerConfig(const std::string& path);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_CONFIG_FILE_H_

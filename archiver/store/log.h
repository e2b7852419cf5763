// How the archiver's long-running parts (the recorder, the background
// compressor, retention) report what they survive rather than return: a
// level and one line of text. The caller decides where lines go (stderr,
// pmlogger's -l file); nothing here writes anywhere.
#ifndef MMVLOG_ARCHIVER_STORE_LOG_H_
#define MMVLOG_ARCHIVER_STORE_LOG_H_

#include <functional>
#include <string>

namespace mmvlog::archiver {

enum class LogLevel { kInfo, kWarning, kError };
using LogFunction = std::function<void(LogLevel, const std::string&)>;

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_STORE_LOG_H_

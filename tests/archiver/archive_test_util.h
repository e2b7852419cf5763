// Set-up shared by the archive writer, reader and replay tests: a fresh base
// name under the test's temporary directory, and archive options that make
// the output the same on every machine (fixed host name, UTC).
#ifndef MMVLOG_TESTS_ARCHIVER_ARCHIVE_TEST_UTIL_H_
#define MMVLOG_TESTS_ARCHIVER_ARCHIVE_TEST_UTIL_H_

#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "archiver/store/archive_writer.h"

namespace mmvlog::testing {

// A base name no earlier call in this process returned.
inline std::string TempBase(const std::string& name) {
  static int n = 0;
  return absl::StrCat(::testing::TempDir(), "/", name, "_", ::getpid(), "_", n++);
}

inline archiver::ArchiveOptions TestArchiveOptions(int version) {
  archiver::ArchiveOptions o;
  o.version = version;
  o.hostname = "host";
  o.timezone = "UTC";
  o.zoneinfo = ":Etc/UTC";
  return o;
}

}  // namespace mmvlog::testing

#endif  // MMVLOG_TESTS_ARCHIVER_ARCHIVE_TEST_UTIL_H_

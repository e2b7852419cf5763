// libFuzzer target: the text people type: intervals, PCP times and time
// windows (fields separated by newlines: -S, -T, -A, -O), pmlogger sizes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "format/text/pcp_interval.h"
#include "format/text/pcp_time.h"
#include "format/text/size_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::Time start = absl::FromUnixSeconds(1700000000);
  const absl::Time end = start + absl::Hours(30);
  const absl::TimeZone utc = absl::UTCTimeZone();
  (void)mmvlog::format::ParsePcpInterval(text);
  (void)mmvlog::format::ParsePcpIntervalAllowZero(text);
  (void)mmvlog::format::ParseEndSize(text);
  (void)mmvlog::format::ParseByteSize(text);
  (void)mmvlog::format::ParsePcpTime(text, start, end, utc);
  (void)mmvlog::format::ParsePcpTime(text, start, absl::InfiniteFuture(), utc);
  std::vector<std::string> fields = absl::StrSplit(text, '\n');
  fields.resize(4);
  mmvlog::format::TimeWindowSpec spec{fields[0], fields[1], fields[2], fields[3]};
  (void)mmvlog::format::ResolveTimeWindow(spec, start, end, utc);
  return 0;
}

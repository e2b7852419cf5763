#include "archiver/replay/output.h"

namespace mmvlog::archiver {

std::string TimeText(format::Timestamp t, absl::TimeZone zone, int digits) {
  return absl::FormatTime(digits == 9 ? "%Y-%m-%d %H:%M:%E9S" : "%Y-%m-%d %H:%M:%E3S",
                          format::ToAbslTime(t), zone);
}

}  // namespace mmvlog::archiver

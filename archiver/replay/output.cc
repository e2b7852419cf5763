#include "archiver/replay/output.h"

#include <cerrno>

#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {

void OutputText::Flush() {
  if (error_ == 0 && !text_.empty() &&
      std::fwrite(text_.data(), 1, text_.size(), to_) != text_.size()) {
    error_ = errno != 0 ? errno : EIO;
  }
  text_.clear();
  if (error_ == 0 && std::fflush(to_) != 0) error_ = errno != 0 ? errno : EIO;
}

absl::Status OutputText::Finish() {
  Flush();
  return error_ == 0 ? absl::OkStatus() : WriteError(error_, name_);
}

absl::Status WriteError(int err, absl::string_view what) {
  if (err == EPIPE) return absl::CancelledError(absl::StrCat(what, ": the reader went away"));
  return absl::ErrnoToStatus(err, absl::StrCat("write ", what));
}

std::string TimeText(format::Timestamp t, absl::TimeZone zone, int digits) {
  return absl::FormatTime(digits == 9 ? "%Y-%m-%d %H:%M:%E9S" : "%Y-%m-%d %H:%M:%E3S",
                          format::ToAbslTime(t), zone);
}

}  // namespace mmvlog::archiver

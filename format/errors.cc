#include "format/errors.h"

#include "absl/strings/str_cat.h"

namespace mmvlog::format {

absl::Status ErrorAt(absl::StatusCode code, uint64_t offset,
                     absl::string_view message) {
  return absl::Status(code, absl::StrCat("offset ", offset, ": ", message));
}

absl::Status DataLossAt(uint64_t offset, absl::string_view message) {
  return ErrorAt(absl::StatusCode::kDataLoss, offset, message);
}

absl::Status WithContext(const absl::Status& status,
                         absl::string_view context) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(context, ": ", status.message()));
}

}  // namespace mmvlog::format

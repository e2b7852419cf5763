// PCP's error codes as a record stores them (a pmValueSet's negative
// numval): the symbolic names of pmapi.h, so a dump says which error an
// archive holds. Codes below PM_ERR_BASE (12345) are errno values.
#ifndef MMVLOG_FORMAT_ARCHIVE_PM_ERROR_H_
#define MMVLOG_FORMAT_ARCHIVE_PM_ERROR_H_

#include <cstdint>
#include <string>

namespace mmvlog::format {

// "PM_ERR_APPVERSION (-12350)", "errno 2 (-2)", or "unknown error -99999".
std::string PmErrorText(int32_t code);

}  // namespace mmvlog::format

#endif  // MMVLOG_FORMAT_ARCHIVE_PM_ERROR_H_

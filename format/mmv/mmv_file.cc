#include "format/mmv/mmv_file.h"

namespace mmvlog::format {

bool IsKnownMmvType(int32_t type) {
  return (type >= -1 && type <= 6) || type == 9;
}

const char* MmvTypeName(MmvType type) {
  switch (type) {
    case MmvType::kNoSupport: return "unsupported";
    case MmvType::kI32: return "32-bit int";
    case MmvType::kU32: return "32-bit unsigned int";
    case MmvType::kI64: return "64-bit int";
    case MmvType::kU64: return "64-bit unsigned int";
    case MmvType::kFloat: return "float";
    case MmvType::kDouble: return "double";
    case MmvType::kString: return "string";
    case MmvType::kElapsed: return "elapsed";
  }
  return "?";
}

const char* MmvSemanticsName(int32_t semantics) {
  switch (semantics) {
    case kMmvSemUnset: return "counter (unset)";
    case kMmvSemCounter: return "counter";
    case kMmvSemInstant: return "instant";
    case kMmvSemDiscrete: return "discrete";
  }
  return "?";
}

}  // namespace mmvlog::format

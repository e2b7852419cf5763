#include "archiver/push/openssl_api.h"

#include <dlfcn.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::archiver {
namespace {

constexpr char kLibssl[] = "libssl.so.3";

absl::StatusOr<const OpenSslApi*> Load() {
  // Never unloaded: the functions live as long as the process.
  void* lib = ::dlopen(kLibssl, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "TLS needs ", kLibssl, " (Debian's libssl3): ", why != nullptr ? why : "not found"));
  }
  static OpenSslApi api;
  // A handle's lookup covers its dependencies: libcrypto's functions too.
#define MMVLOG_OPENSSL_LOAD(name)                                                            \
  api.name = reinterpret_cast<decltype(api.name)>(::dlsym(lib, #name));                      \
  if (api.name == nullptr) {                                                                 \
    return absl::FailedPreconditionError(absl::StrCat(kLibssl, " has no " #name));          \
  }
  MMVLOG_OPENSSL_FUNCTIONS(MMVLOG_OPENSSL_LOAD)
#undef MMVLOG_OPENSSL_LOAD
  return &api;
}

}  // namespace

absl::StatusOr<const OpenSslApi*> LoadOpenSsl() {
  static const absl::StatusOr<const OpenSslApi*> loaded = Load();
  return loaded;
}

}  // namespace mmvlog::archiver

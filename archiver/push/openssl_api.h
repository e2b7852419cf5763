// The OpenSSL functions the push's TLS uses, found in libssl.so.3 (and the
// libcrypto.so.3 it loads) the first time an https:// push needs them.
//
// Why not link them: loading libssl and libcrypto costs every process start
// 0.6 ms of CPU (`perf stat -r 200 mmvlog --version`: 1.05-1.36 -> 1.67-1.71
// ms, bench/README.md), which a recorder that never pushes over TLS (almost
// all of them) would pay for nothing. The declarations are OpenSSL's own
// headers (libssl-dev), so a signature that changed would not compile; the
// package depends on libssl3 by name (bazel/build-deb.sh).
#ifndef MMVLOG_ARCHIVER_PUSH_OPENSSL_API_H_
#define MMVLOG_ARCHIVER_PUSH_OPENSSL_API_H_

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "absl/status/statusor.h"

namespace mmvlog::archiver {

// X(name): each function, by its name in OpenSSL 3.
#define MMVLOG_OPENSSL_FUNCTIONS(X)                                                         \
  X(TLS_client_method) X(SSL_CTX_new) X(SSL_CTX_free) X(SSL_CTX_ctrl) X(SSL_CTX_set_options) \
  X(SSL_CTX_set_verify) X(SSL_CTX_load_verify_locations) X(SSL_CTX_set_default_verify_paths) \
  X(SSL_CTX_use_certificate_chain_file) X(SSL_CTX_use_PrivateKey_file)                       \
  X(SSL_CTX_check_private_key) X(SSL_new) X(SSL_free) X(SSL_set_quiet_shutdown) X(SSL_set_fd) \
  X(SSL_ctrl) X(SSL_get0_param) X(SSL_set1_host) X(SSL_set_connect_state) X(SSL_get_error)   \
  X(SSL_do_handshake) X(SSL_get_verify_result) X(SSL_write_ex) X(SSL_read_ex)               \
  X(SSL_get_version) X(SSL_get_current_cipher) X(SSL_CIPHER_get_name)                        \
  X(ERR_peek_last_error) X(ERR_clear_error) X(ERR_reason_error_string) X(ERR_error_string_n) \
  X(X509_VERIFY_PARAM_set1_ip_asc) X(X509_verify_cert_error_string)

struct OpenSslApi {
#define MMVLOG_OPENSSL_MEMBER(name) decltype(&::name) name = nullptr;
  MMVLOG_OPENSSL_FUNCTIONS(MMVLOG_OPENSSL_MEMBER)
#undef MMVLOG_OPENSSL_MEMBER
};

// The functions, loaded once (thread-safe). Errors: FailedPrecondition when
// libssl.so.3 is not installed or lacks one of them (naming it).
absl::StatusOr<const OpenSslApi*> LoadOpenSsl();

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_OPENSSL_API_H_

// TLS for the push to pmproxy (https://): OpenSSL's libssl, as Debian ships
// it (libssl3, on every Debian system; its security updates reach mmvlog
// without a rebuild) and as pmproxy itself uses it, loaded at the first
// https:// push (archiver/push/openssl_api.h says why).
//
// Why OpenSSL and not GnuTLS or libcurl: it is the TLS of PCP's server side,
// so both ends agree on versions and ciphers; it checks a host name or an
// IP address against subjectAltName (X509_VERIFY_PARAM_set1_host and
// set1_ip_asc: an IP as an IP entry, as PCP's review of TLS for the push
// asks) and names why a certificate failed (expired, unknown issuer, name
// mismatch); and it works on the non-blocking socket HttpClient already
// owns, so the client keeps its own knowledge of whether a request may
// have reached the server. libcurl would take that away, and bring some
// forty shared libraries.
//
// TLS 1.2 or newer; the server's certificate verified by default against
// the system's trust store (or --ca-file); --insecure turns verification
// off (the caller logs that it did).
#ifndef MMVLOG_ARCHIVER_PUSH_TLS_STREAM_H_
#define MMVLOG_ARCHIVER_PUSH_TLS_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace mmvlog::archiver {

struct OpenSslApi;

struct TlsOptions {
  std::string ca_file;    // PEM CA certificates to trust instead of the system's
  std::string cert_file;  // a client certificate (chain) in PEM, for tls-verify-clients
  std::string key_file;   // its private key (default: cert_file)
  bool insecure = false;  // no verification of the server at all
};

// What every connection of a client shares: the trust store, the client
// certificate. Thread-compatible: one client (one thread) uses it.
class TlsContext {
 public:
  // Errors: InvalidArgument naming the file that cannot be loaded (a CA
  // file, a certificate, a key, or a key that does not match);
  // FailedPrecondition when libssl3 is not installed.
  static absl::StatusOr<std::shared_ptr<TlsContext>> Create(const TlsOptions& options);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* get() const { return ctx_; }
  const OpenSslApi& api() const { return *api_; }
  bool insecure() const { return insecure_; }

 private:
  TlsContext(const OpenSslApi* api, SSL_CTX* ctx, bool insecure)
      : api_(api), ctx_(ctx), insecure_(insecure) {}
  const OpenSslApi* api_;
  SSL_CTX* ctx_;
  bool insecure_;
};

// One TLS connection over a connected non-blocking socket it does not own.
class TlsStream {
 public:
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  // A TLS client on `fd` for `host` (a name, sent as SNI and checked
  // against the certificate; or an IPv4/IPv6 address, checked as an IP
  // entry), before its handshake.
  static absl::StatusOr<std::unique_ptr<TlsStream>> Start(const TlsContext& context, int fd,
                                                          const std::string& host);

  // One step of I/O. Moved: bytes (> 0) written or read; 0 with `wait` set
  // (POLLIN or POLLOUT): try again when the socket is ready for it; 0 with
  // `closed`: the peer ended the stream (reads); `error` says what failed.
  struct Io {
    size_t moved = 0;
    short wait = 0;
    bool closed = false;
    bool refused = false;  // the server's certificate (Handshake)
    std::string error;
  };
  // The handshake, a step at a time (moved is 1 when it is done). Its
  // `error` when the server's certificate is refused says why (the
  // certificate has expired, unable to get local issuer certificate,
  // hostname mismatch, IP address mismatch, ...) and sets `refused`.
  Io Handshake();
  Io Write(const uint8_t* data, size_t size);
  Io Read(uint8_t* data, size_t size);
  // Whether a connection idle since its last response can still carry a
  // request: records the server sent meanwhile that are no data (TLS 1.3
  // session tickets) are taken in; data or an end is not.
  bool IdleUsable();
  // "TLSv1.3 TLS_AES_256_GCM_SHA384", for messages and tests.
  std::string Describe() const;

 private:
  TlsStream(const OpenSslApi* api, SSL* ssl) : api_(api), ssl_(ssl) {}
  Io Step(int rc, bool reading);
  // One SSL_read_ex or SSL_write_ex.
  Io Transfer(bool reading, uint8_t* data, size_t size);
  // The newest error OpenSSL queued, as its reason, or `otherwise`.
  std::string Reason(const char* otherwise) const;
  const OpenSslApi* api_;
  SSL* ssl_;
};

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_PUSH_TLS_STREAM_H_

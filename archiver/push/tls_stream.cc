#include "archiver/push/tls_stream.h"

#include <arpa/inet.h>
#include <poll.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "archiver/push/openssl_api.h"

namespace mmvlog::archiver {
namespace {

// The newest error OpenSSL queued, as its reason ("certificate verify
// failed", "wrong version number", "no such file"), or `otherwise`.
std::string SslReason(const OpenSslApi& ssl, const char* otherwise) {
  const unsigned long e = ssl.ERR_peek_last_error();
  ssl.ERR_clear_error();
  if (e == 0) return otherwise;
  const char* reason = ssl.ERR_reason_error_string(e);
  if (reason != nullptr) return reason;
  char buf[256];
  ssl.ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

bool IsIpAddress(const std::string& host) {
  unsigned char buf[16];
  return ::inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

absl::StatusOr<std::shared_ptr<TlsContext>> TlsContext::Create(const TlsOptions& options) {
  absl::StatusOr<const OpenSslApi*> loaded = LoadOpenSsl();
  if (!loaded.ok()) return loaded.status();
  const OpenSslApi& ssl = **loaded;
  auto reason = [&ssl](const char* otherwise) { return SslReason(ssl, otherwise); };
  ssl.ERR_clear_error();
  SSL_CTX* ctx = ssl.SSL_CTX_new(ssl.TLS_client_method());
  if (ctx == nullptr) {
    return absl::InternalError(absl::StrCat("TLS: ", reason("cannot make a context")));
  }
  std::shared_ptr<TlsContext> out(new TlsContext(&ssl, ctx, options.insecure));
  // SSL_CTX_set_min_proto_version and SSL_CTX_set_mode are macros over
  // SSL_CTX_ctrl.
  ssl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, nullptr);
  // Writes may take part of a buffer (the client's loop goes on from
  // there), and a server that closes without close_notify reads as an end,
  // as over plain TCP: the HTTP framing says whether the answer was whole.
  ssl.SSL_CTX_ctrl(ctx, SSL_CTRL_MODE,
                   SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, nullptr);
  ssl.SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_COMPRESSION);
  ssl.SSL_CTX_set_verify(ctx, options.insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nullptr);
  if (!options.ca_file.empty()) {
    if (ssl.SSL_CTX_load_verify_locations(ctx, options.ca_file.c_str(), nullptr) != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--ca-file ", options.ca_file, ": ", reason("no CA certificate in it")));
    }
  } else if (ssl.SSL_CTX_set_default_verify_paths(ctx) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("TLS: the system's trust store: ", reason("cannot be read")));
  }
  if (!options.cert_file.empty()) {
    const std::string& key = options.key_file.empty() ? options.cert_file : options.key_file;
    if (ssl.SSL_CTX_use_certificate_chain_file(ctx, options.cert_file.c_str()) != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--cert-file ", options.cert_file, ": ", reason("no certificate in it")));
    }
    if (ssl.SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) != 1) {
      const std::string why = reason("no private key in it");
      if (why.find("mismatch") != std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat("--key-file ", key, ": not the key of ",
                                                       options.cert_file, " (", why, ")"));
      }
      return absl::InvalidArgumentError(absl::StrCat("--key-file ", key, ": ", why));
    }
    if (ssl.SSL_CTX_check_private_key(ctx) != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--key-file ", key, ": not the key of ", options.cert_file, " (",
          reason("key mismatch"), ")"));
    }
  } else if (!options.key_file.empty()) {
    return absl::InvalidArgumentError("--key-file without --cert-file");
  }
  return out;
}

TlsContext::~TlsContext() { api_->SSL_CTX_free(ctx_); }

absl::StatusOr<std::unique_ptr<TlsStream>> TlsStream::Start(const TlsContext& context, int fd,
                                                            const std::string& host) {
  const OpenSslApi& ssl = context.api();
  ssl.ERR_clear_error();
  SSL* s = ssl.SSL_new(context.get());
  if (s == nullptr) {
    return absl::InternalError(
        absl::StrCat("TLS: ", SslReason(ssl, "cannot make a connection")));
  }
  std::unique_ptr<TlsStream> out(new TlsStream(&ssl, s));
  // No close_notify from a destructor: it would write on a socket that may
  // be broken; HTTP's framing, not TLS's end, says a response is whole.
  ssl.SSL_set_quiet_shutdown(s, 1);
  if (ssl.SSL_set_fd(s, fd) != 1) {
    return absl::InternalError(absl::StrCat("TLS: ", SslReason(ssl, "cannot use the socket")));
  }
  const bool ip = IsIpAddress(host);
  // SNI carries names only (RFC 6066), never an address
  // (SSL_set_tlsext_host_name is a macro over SSL_ctrl).
  if (!ip && ssl.SSL_ctrl(s, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                          const_cast<char*>(host.c_str())) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("TLS: ", host, ": ", SslReason(ssl, "bad name")));
  }
  if (!context.insecure()) {
    const int ok = ip ? ssl.X509_VERIFY_PARAM_set1_ip_asc(ssl.SSL_get0_param(s), host.c_str())
                      : ssl.SSL_set1_host(s, host.c_str());
    if (ok != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("TLS: ", host, ": ", SslReason(ssl, "cannot be checked")));
    }
  }
  ssl.SSL_set_connect_state(s);
  return out;
}

TlsStream::~TlsStream() { api_->SSL_free(ssl_); }

std::string TlsStream::Reason(const char* otherwise) const { return SslReason(*api_, otherwise); }

TlsStream::Io TlsStream::Step(int rc, bool reading) {
  Io io;
  const int saved_errno = errno;
  switch (api_->SSL_get_error(ssl_, rc)) {
    case SSL_ERROR_WANT_READ:
      io.wait = POLLIN;
      return io;
    case SSL_ERROR_WANT_WRITE:
      io.wait = POLLOUT;
      return io;
    case SSL_ERROR_ZERO_RETURN:
      io.closed = true;
      return io;
    case SSL_ERROR_SYSCALL:
      if (api_->ERR_peek_last_error() == 0) {
        if (reading && saved_errno == 0) {
          io.closed = true;
        } else {
          io.error = saved_errno != 0 ? std::strerror(saved_errno) : "the connection closed";
        }
        return io;
      }
      break;
    default:
      break;
  }
  io.error = Reason("TLS failed");
  return io;
}

TlsStream::Io TlsStream::Handshake() {
  api_->ERR_clear_error();
  errno = 0;
  const int rc = api_->SSL_do_handshake(ssl_);
  if (rc == 1) {
    Io io;
    io.moved = 1;
    return io;
  }
  Io io = Step(rc, /*reading=*/false);
  if (io.wait != 0) return io;
  const long verify = api_->SSL_get_verify_result(ssl_);
  if (verify != X509_V_OK) {
    io.refused = true;
    io.error = absl::StrCat("the server's certificate is refused: ",
                            api_->X509_verify_cert_error_string(verify));
  } else if (io.closed || io.error.empty()) {
    io.closed = false;
    io.error = "the server closed the connection during the TLS handshake (does it speak TLS?)";
  } else {
    io.error = absl::StrCat("TLS handshake: ", io.error);
  }
  return io;
}

TlsStream::Io TlsStream::Write(const uint8_t* data, size_t size) {
  return Transfer(/*reading=*/false, const_cast<uint8_t*>(data), size);
}

TlsStream::Io TlsStream::Read(uint8_t* data, size_t size) {
  return Transfer(/*reading=*/true, data, size);
}

TlsStream::Io TlsStream::Transfer(bool reading, uint8_t* data, size_t size) {
  api_->ERR_clear_error();
  errno = 0;
  size_t moved = 0;
  const int rc = reading ? api_->SSL_read_ex(ssl_, data, size, &moved)
                         : api_->SSL_write_ex(ssl_, data, size, &moved);
  if (rc == 1) {
    Io io;
    io.moved = moved;
    return io;
  }
  return Step(rc, reading);
}

bool TlsStream::IdleUsable() {
  uint8_t byte;
  const Io io = Read(&byte, 1);
  // Only records that carry no data (a session ticket) were there.
  return io.moved == 0 && io.wait == POLLIN;
}

std::string TlsStream::Describe() const {
  const char* cipher = api_->SSL_CIPHER_get_name(api_->SSL_get_current_cipher(ssl_));
  return absl::StrCat(api_->SSL_get_version(ssl_), " ", cipher != nullptr ? cipher : "");
}

}  // namespace mmvlog::archiver

#include "archiver/push/http_url.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace mmvlog::archiver {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = absl::ascii_tolower(static_cast<unsigned char>(c));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string RedactUserinfo(absl::string_view url) {
  const size_t scheme = url.find("://");
  const size_t at = url.rfind('@');
  if (scheme == absl::string_view::npos || at == absl::string_view::npos || at < scheme) {
    return std::string(url);
  }
  return absl::StrCat(url.substr(0, scheme + 3), "***@", url.substr(at + 1));
}

absl::StatusOr<HttpUrl> ParseHttpUrl(absl::string_view url) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("bad URL '", RedactUserinfo(url), "': ", why));
  };
  HttpUrl out;
  absl::string_view rest = url;
  if (absl::StartsWithIgnoreCase(rest, "https://")) {
    out.tls = true;
    rest.remove_prefix(8);
  } else if (absl::StartsWithIgnoreCase(rest, "http://")) {
    rest.remove_prefix(7);
  } else {
    return bad("not http:// or https://");
  }
  // The user information ends at the last '@': a password may hold '/',
  // '?', '#' or '@' (RFC 3986 wants them percent-encoded; people paste them
  // as they are). A path of pmproxy's API has no '@'.
  const size_t at = rest.rfind('@');
  size_t host_from = 0;
  if (at != absl::string_view::npos) {
    out.userinfo = std::string(rest.substr(0, at));
    host_from = at + 1;
  }
  absl::string_view authority = rest.substr(host_from);
  const size_t end = authority.find_first_of("/?#");
  if (end != absl::string_view::npos) {
    absl::string_view target = authority.substr(end);
    target = target.substr(0, target.find('#'));  // a fragment is never sent
    out.target = absl::StartsWith(target, "?") ? absl::StrCat("/", target) : std::string(target);
    authority = authority.substr(0, end);
  }
  absl::string_view host = authority, port;
  if (absl::ConsumePrefix(&host, "[")) {
    const size_t close = host.find(']');
    if (close == absl::string_view::npos) return bad("no ']' after an IPv6 address");
    port = host.substr(close + 1);
    host = host.substr(0, close);
    if (!port.empty() && !absl::ConsumePrefix(&port, ":")) return bad("junk after ']'");
  } else {
    const size_t colon = host.rfind(':');
    if (colon != absl::string_view::npos) {
      port = host.substr(colon + 1);
      host = host.substr(0, colon);
    }
  }
  if (host.empty()) return bad("no host");
  out.host = std::string(host);
  if (!port.empty()) {
    if (!absl::SimpleAtoi(port, &out.port) || out.port < 1 || out.port > 65535) {
      return bad("port is not 1..65535");
    }
  }
  return out;
}

absl::StatusOr<std::string> PercentDecode(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    const int hi = i + 2 < s.size() ? HexDigit(s[i + 1]) : -1;
    const int lo = i + 2 < s.size() ? HexDigit(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("'%' at offset ", i, " is not followed by two hex digits"));
    }
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

}  // namespace mmvlog::archiver

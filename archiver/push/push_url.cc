#include "archiver/push/push_url.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace mmvlog::archiver {

bool IsPushUrl(absl::string_view arg) { return absl::StartsWith(arg, "http://"); }

absl::StatusOr<PushUrl> ParsePushUrl(absl::string_view url) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("bad pmproxy URL '", url, "': ", why));
  };
  absl::string_view rest = url;
  if (!absl::ConsumePrefix(&rest, "http://")) return bad("not http://HOST[:PORT]");
  absl::ConsumeSuffix(&rest, "/");
  if (rest.find_first_of("/?#") != absl::string_view::npos) {
    return bad("a path or query: pmproxy's API is at the server's root");
  }
  PushUrl out;
  const size_t at = rest.rfind('@');
  if (at != absl::string_view::npos) {
    out.userinfo = std::string(rest.substr(0, at));
    rest.remove_prefix(at + 1);
    if (out.userinfo.find(':') == std::string::npos) return bad("USER without :PASSWORD");
  }
  absl::string_view host = rest, port;
  if (absl::ConsumePrefix(&host, "[")) {
    const size_t close = host.find(']');
    if (close == absl::string_view::npos) return bad("no ']' after an IPv6 address");
    port = host.substr(close + 1);
    host = host.substr(0, close);
    if (!port.empty() && !absl::ConsumePrefix(&port, ":")) return bad("junk after ']'");
  } else {
    const size_t colon = host.find(':');
    if (colon != absl::string_view::npos) {
      port = host.substr(colon + 1);
      host = host.substr(0, colon);
    }
  }
  if (host.empty()) return bad("no host");
  out.endpoint.host = std::string(host);
  if (!port.empty()) {
    int p = 0;
    if (!absl::SimpleAtoi(port, &p) || p < 1 || p > 65535) return bad("port is not 1..65535");
    out.endpoint.port = p;
  }
  return out;
}

}  // namespace mmvlog::archiver

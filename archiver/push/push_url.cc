#include "archiver/push/push_url.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "archiver/push/http_url.h"

namespace mmvlog::archiver {

bool IsPushUrl(absl::string_view arg) {
  // A scheme is case-insensitive (RFC 3986).
  return absl::StartsWithIgnoreCase(arg, "http://") || absl::StartsWithIgnoreCase(arg, "https://");
}

absl::StatusOr<PushUrl> ParsePushUrl(absl::string_view url) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad pmproxy URL '", RedactUserinfo(url), "': ", why));
  };
  if (!IsPushUrl(url)) return bad("not http://HOST[:PORT] or https://HOST[:PORT]");
  absl::StatusOr<HttpUrl> u = ParseHttpUrl(url);
  if (!u.ok()) {
    // Said as a pmproxy URL: "bad URL '...': why" -> why.
    const std::string m(u.status().message());
    const size_t why = m.find("': ");
    return bad(why == std::string::npos ? m : m.substr(why + 3));
  }
  if (!u->target.empty() && u->target != "/") {
    return bad("a path or query: pmproxy's API is at the server's root");
  }
  PushUrl out;
  out.endpoint.host = u->host;
  out.endpoint.tls = u->tls;
  if (u->port != 0) out.endpoint.port = u->port;
  if (!u->userinfo.empty()) {
    absl::StatusOr<std::string> userinfo = PercentDecode(u->userinfo);
    if (!userinfo.ok()) return bad(absl::StrCat("user information: ", userinfo.status().message()));
    // Only the first ':' separates: a password may hold more.
    const size_t colon = u->userinfo.find(':');
    if (colon == std::string::npos) return bad("USER without :PASSWORD");
    absl::StatusOr<std::string> user = PercentDecode(u->userinfo.substr(0, colon));
    absl::StatusOr<std::string> password = PercentDecode(u->userinfo.substr(colon + 1));
    out.userinfo = absl::StrCat(*user, ":", *password);
  }
  return out;
}

}  // namespace mmvlog::archiver

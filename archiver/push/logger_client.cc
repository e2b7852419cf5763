#include "archiver/push/logger_client.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"

namespace mmvlog::archiver {
namespace {

// pmproxy's reply as JSON: an object, or null when it is not one (a JSON
// parser, so any spelling of the same JSON reads the same).
nlohmann::json ReplyObject(const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : nlohmann::json();
}

// The query value as it goes in a URL (RFC 3986 unreserved kept).
std::string QueryEscape(absl::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      absl::StrAppend(&out, "%", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

}  // namespace

LoggerClient::LoggerClient(HttpClient* http, std::string client_id, int poll_timeout)
    : http_(http), client_id_(std::move(client_id)), poll_timeout_(poll_timeout) {}

absl::StatusOr<std::string> LoggerClient::Call(const char* method, const std::string& target,
                                               std::span<const uint8_t> body) {
  const std::string what = absl::StrCat(http_->endpoint().ToString(), " ", method, " ", target);
  if (body.size() >= kMaxBody) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": a body of ", body.size(), " bytes is over pmproxy's limit"));
  }
  bool delivered = false;
  absl::StatusOr<HttpResponse> r =
      http_->Exchange(method, target, body.empty() ? "" : "application/octet-stream", body,
                      &delivered);
  if (!r.ok()) {
    // `what` names the endpoint and the request already.
    absl::string_view said =
        absl::StripPrefix(r.status().message(), absl::StrCat(method, " ", target, ": "));
    said = absl::StripPrefix(said, absl::StrCat(http_->endpoint().ToString(), ": "));
    const std::string msg(said);
    // A certificate refused, a redirect to clear text refused: said as
    // they are (nothing reached the server's logger; the push waits).
    if (absl::IsUnauthenticated(r.status()) || absl::IsPermissionDenied(r.status())) {
      return absl::Status(r.status().code(), absl::StrCat(what, ": ", msg));
    }
    return delivered ? absl::AbortedError(absl::StrCat(what, ": ", msg, " (outcome unknown)"))
                     : absl::UnavailableError(absl::StrCat(what, ": ", msg));
  }
  const int code = r->status;
  const std::string answer =
      absl::StrCat("HTTP ", code, r->reason.empty() ? "" : " ", r->reason,
                   r->body.empty() ? "" : ": ",
                   absl::StripAsciiWhitespace(r->body.substr(0, 200)));
  if (code >= 200 && code < 300) {
    const nlohmann::json reply = ReplyObject(r->body);
    const auto success = reply.is_object() ? reply.find("success") : reply.end();
    if (success == reply.end() || !success->is_boolean() || !success->get<bool>()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": not pmproxy's logger API: ", answer));
    }
    ++posts_;
    bytes_ += body.size();
    return std::move(r->body);
  }
  const std::string msg = absl::StrCat(what, ": ", answer);
  if (code == 410) return absl::NotFoundError(msg);
  if (code == 401 || code == 403) return absl::PermissionDeniedError(msg);
  if (code >= 500) return absl::AbortedError(msg);
  return absl::InvalidArgumentError(msg);
}

absl::Status LoggerClient::Ping() {
  return Call("GET", "/logger/ping", {}).status();
}

absl::StatusOr<uint32_t> LoggerClient::Label(std::span<const uint8_t> label) {
  std::string target = "/logger/label";
  const char* sep = "?";
  if (poll_timeout_ > 0) {
    absl::StrAppend(&target, sep, "polltimeout=", poll_timeout_);
    sep = "&";
  }
  if (!client_id_.empty()) absl::StrAppend(&target, sep, "client=", QueryEscape(client_id_));
  absl::StatusOr<std::string> body = Call("POST", target, label);
  if (!body.ok()) return body.status();
  // {"archive":N,"success":true}
  const nlohmann::json reply = ReplyObject(*body);
  const auto archive = reply.is_object() ? reply.find("archive") : reply.end();
  uint32_t logid = 0;
  if (archive != reply.end() && archive->is_number_unsigned() &&
      archive->get<uint64_t>() <= UINT32_MAX) {
    logid = static_cast<uint32_t>(archive->get<uint64_t>());
  }
  if (logid == 0) {
    return absl::InvalidArgumentError(absl::StrCat(http_->endpoint().ToString(), " POST ", target,
                                                   ": no archive id in \"", *body, "\""));
  }
  return logid;
}

absl::Status LoggerClient::Append(const std::string& target, std::span<const uint8_t> body) {
  const size_t piece = http_->endpoint().tls ? kTlsPiece : body.size();
  if (body.size() <= piece) return Call("POST", target, body).status();
  for (size_t at = 0; at < body.size(); at += piece) {
    absl::Status s = Call("POST", target, body.subspan(at, std::min(piece, body.size() - at))).status();
    if (s.ok()) continue;
    if (at == 0 || absl::IsAborted(s)) return s;
    return absl::AbortedError(
        absl::StrCat(s.message(), " (after ", at, " of ", body.size(), " bytes were taken)"));
  }
  return absl::OkStatus();
}

absl::Status LoggerClient::Meta(uint32_t logid, std::span<const uint8_t> records) {
  return Append(absl::StrCat("/logger/meta/", logid), records);
}

absl::Status LoggerClient::Index(uint32_t logid, std::span<const uint8_t> entries) {
  return Append(absl::StrCat("/logger/index/", logid), entries);
}

absl::Status LoggerClient::Volume(uint32_t volume, uint32_t logid,
                                  std::span<const uint8_t> records) {
  return Append(absl::StrCat("/logger/volume/", volume, "/", logid), records);
}

}  // namespace mmvlog::archiver

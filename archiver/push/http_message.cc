#include "archiver/push/http_message.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace mmvlog::archiver {

std::string EncodeRequestHead(const HttpRequestHead& head, size_t body_size) {
  std::string out = absl::StrCat(head.method, " ", head.target, " HTTP/1.1\r\nHost: ", head.host,
                                 "\r\nConnection: keep-alive\r\nAccept: application/json\r\n");
  if (!head.authorization.empty()) absl::StrAppend(&out, "Authorization: ", head.authorization, "\r\n");
  if (body_size > 0 || head.method == "POST") {
    if (!head.content_type.empty()) absl::StrAppend(&out, "Content-Type: ", head.content_type, "\r\n");
    absl::StrAppend(&out, "Content-Length: ", body_size, "\r\n");
  }
  out += "\r\n";
  return out;
}

absl::Status HttpResponseParser::Error(absl::string_view what) const {
  return absl::DataLossError(absl::StrCat("HTTP response, byte ", offset_, ": ", what));
}

bool HttpResponseParser::TakeLine(std::span<const uint8_t> in, size_t* used) {
  const auto nl = std::find(in.begin(), in.end(), '\n');
  const bool complete = nl != in.end();
  const size_t n = complete ? static_cast<size_t>(nl - in.begin()) + 1 : in.size();
  line_.append(reinterpret_cast<const char*>(in.data()), n);
  *used = n;
  if (!complete) return false;
  line_.pop_back();
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  return true;
}

absl::Status HttpResponseParser::ParseHead() {
  std::vector<absl::string_view> lines = absl::StrSplit(absl::string_view(head_), "\r\n");
  // "HTTP/1.1 200 OK"
  std::vector<absl::string_view> status = absl::StrSplit(lines[0], absl::MaxSplits(' ', 2));
  if (status.size() < 2 || !absl::StartsWith(status[0], "HTTP/1.") || status[1].size() != 3 ||
      !absl::SimpleAtoi(status[1], &response_.status) || response_.status < 100) {
    return Error(absl::StrCat("not an HTTP/1.x status line: \"", absl::CEscape(lines[0].substr(0, 80)),
                              "\""));
  }
  response_.reason = status.size() > 2 ? std::string(status[2]) : "";
  response_.keep_alive = status[0] != "HTTP/1.0";
  bool chunked = false, have_length = false;
  uint64_t length = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const size_t colon = lines[i].find(':');
    if (colon == absl::string_view::npos) {
      return Error(absl::StrCat("header without a colon: \"", absl::CEscape(lines[i].substr(0, 80)),
                                "\""));
    }
    const absl::string_view name = absl::StripAsciiWhitespace(lines[i].substr(0, colon));
    const absl::string_view value = absl::StripAsciiWhitespace(lines[i].substr(colon + 1));
    if (absl::EqualsIgnoreCase(name, "content-length")) {
      if (!absl::SimpleAtoi(value, &length)) return Error("bad Content-Length");
      have_length = true;
    } else if (absl::EqualsIgnoreCase(name, "transfer-encoding")) {
      chunked = absl::StrContains(absl::AsciiStrToLower(value), "chunked");
    } else if (absl::EqualsIgnoreCase(name, "connection")) {
      const std::string v = absl::AsciiStrToLower(value);
      if (absl::StrContains(v, "close")) response_.keep_alive = false;
      if (absl::StrContains(v, "keep-alive")) response_.keep_alive = true;
    } else if (absl::EqualsIgnoreCase(name, "location")) {
      response_.location = std::string(value);
    } else if (absl::EqualsIgnoreCase(name, "content-type")) {
      response_.content_type =
          absl::AsciiStrToLower(absl::StripAsciiWhitespace(value.substr(0, value.find(';'))));
    }
  }
  const int code = response_.status;
  if (code < 200) {  // interim: the real response follows
    head_.clear();
    response_ = HttpResponse();
    return absl::OkStatus();
  }
  if (code == 204 || code == 304) {
    state_ = State::kDone;
  } else if (chunked) {
    state_ = State::kChunkSize;
  } else if (have_length) {
    if (length > kMaxBody) return Error(absl::StrCat("body of ", length, " bytes is too large"));
    remaining_ = length;
    state_ = length == 0 ? State::kDone : State::kBody;
  } else {
    response_.keep_alive = false;
    state_ = State::kToClose;
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> HttpResponseParser::Feed(std::span<const uint8_t> in) {
  size_t used = 0;
  auto take_body = [&](uint64_t n) -> absl::Status {
    if (response_.body.size() + n > kMaxBody) return Error("body too large");
    response_.body.append(reinterpret_cast<const char*>(in.data() + used), n);
    used += n;
    offset_ += n;
    return absl::OkStatus();
  };
  while (used < in.size() && state_ != State::kDone) {
    const std::span<const uint8_t> rest = in.subspan(used);
    switch (state_) {
      case State::kHead: {
        const size_t before = head_.size();
        head_.append(reinterpret_cast<const char*>(rest.data()), rest.size());
        const size_t end = head_.find("\r\n\r\n", before < 3 ? 0 : before - 3);
        if (end == std::string::npos) {
          used += rest.size();
          offset_ += rest.size();
          if (head_.size() > kMaxHead) return Error("response head too large");
          break;
        }
        const size_t n = end + 4 - before;
        head_.resize(end);
        used += n;
        offset_ += n;
        if (absl::Status s = ParseHead(); !s.ok()) return s;
        break;
      }
      case State::kBody: {
        const uint64_t n = std::min<uint64_t>(remaining_, rest.size());
        if (absl::Status s = take_body(n); !s.ok()) return s;
        remaining_ -= n;
        if (remaining_ == 0) state_ = State::kDone;
        break;
      }
      case State::kToClose:
        if (absl::Status s = take_body(rest.size()); !s.ok()) return s;
        break;
      case State::kChunkData: {
        const uint64_t n = std::min<uint64_t>(remaining_, rest.size());
        if (absl::Status s = take_body(n); !s.ok()) return s;
        remaining_ -= n;
        if (remaining_ == 0) state_ = State::kChunkEnd;
        break;
      }
      case State::kChunkSize:
      case State::kChunkEnd:
      case State::kTrailer: {
        size_t n = 0;
        const bool complete = TakeLine(rest, &n);
        used += n;
        offset_ += n;
        if (line_.size() > 4096) return Error("chunk line too long");
        if (!complete) break;
        const std::string line = std::move(line_);
        line_.clear();
        if (state_ == State::kChunkEnd) {
          if (!line.empty()) return Error("chunk not followed by CRLF");
          state_ = State::kChunkSize;
        } else if (state_ == State::kTrailer) {
          if (line.empty()) state_ = State::kDone;
        } else {
          uint64_t size = 0;
          const absl::string_view hex =
              absl::StripAsciiWhitespace(absl::string_view(line).substr(0, line.find(';')));
          if (hex.empty() || hex.size() > 15 || !absl::SimpleHexAtoi(hex, &size)) {
            return Error(absl::StrCat("bad chunk size \"", absl::CEscape(line.substr(0, 40)), "\""));
          }
          remaining_ = size;
          state_ = size == 0 ? State::kTrailer : State::kChunkData;
        }
        break;
      }
      case State::kDone:
        break;
    }
  }
  return used;
}

absl::Status HttpResponseParser::Finish() {
  if (state_ == State::kToClose) state_ = State::kDone;
  if (state_ == State::kDone) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat("connection closed after ", offset_, " bytes of the response, before its end"));
}

}  // namespace mmvlog::archiver

#include "format/text/logger_config.h"

#include <cctype>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace mmvlog::format {

std::string ConfigPosition::ToString() const { return absl::StrCat(file, ":", line, ":", column); }

namespace {

constexpr int64_t kMaxDeltaMsec = 0x0fffffff;  // pmlogger's PMLC_MAX_DELTA

enum class Tok { kWord, kNumber, kString, kPunct, kOther, kEnd };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;
  ConfigPosition where;
};

// Lexes as pmlogger's lex.l does: names [A-Za-z][A-Za-z0-9_.]*, whole
// numbers, "strings" (not empty, on one line), the punctuation [ ] { } , : ;
// and `#` comments. Anything else is one kOther token (a syntax error where
// the grammar meets it).
std::vector<Token> Lex(const std::vector<SourceLine>& lines) {
  std::vector<Token> out;
  for (const SourceLine& l : lines) {
    const std::string& s = l.text;
    size_t i = 0;
    while (i < s.size()) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      ConfigPosition at{l.file, l.line, static_cast<int>(i) + 1};
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i;
      } else if (c == '#') {
        break;
      } else if (std::isalpha(c)) {
        size_t j = i + 1;
        while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' ||
                                s[j] == '.' || s[j] == '-')) {
          ++j;
        }
        const std::string word = s.substr(i, j - i);
        // A '-' makes it pmlogger's HOSTNAME token: only the [access]
        // section takes one.
        out.push_back({word.find('-') == std::string::npos ? Tok::kWord : Tok::kOther, word, at});
        i = j;
      } else if (std::isdigit(c)) {
        size_t j = i;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        if (j < s.size() && (s[j] == '.' || s[j] == ':' || s[j] == '*')) {
          // An address (192.168.1.*, ::1) or a decimal (1.5).
          while (j < s.size() && (std::isxdigit(static_cast<unsigned char>(s[j])) || s[j] == '.' ||
                                  s[j] == ':' || s[j] == '*')) {
            ++j;
          }
          out.push_back({Tok::kOther, s.substr(i, j - i), at});
        } else {
          out.push_back({Tok::kNumber, s.substr(i, j - i), at});
        }
        i = j;
      } else if (c == '"') {
        const size_t end = s.find('"', i + 1);
        if (end == std::string::npos || end == i + 1) {
          out.push_back({Tok::kOther, s.substr(i, end == std::string::npos ? std::string::npos
                                                                             : end + 1 - i),
                         at});
          i = end == std::string::npos ? s.size() : end + 1;
        } else {
          out.push_back({Tok::kString, s.substr(i + 1, end - i - 1), at});
          i = end + 1;
        }
      } else if (std::string_view("[]{},:;").find(static_cast<char>(c)) != std::string_view::npos) {
        out.push_back({Tok::kPunct, std::string(1, static_cast<char>(c)), at});
        ++i;
      } else {
        out.push_back({Tok::kOther, std::string(1, static_cast<char>(c)), at});
        ++i;
      }
    }
  }
  ConfigPosition end;
  if (!lines.empty()) {
    end = {lines.back().file, lines.back().line, static_cast<int>(lines.back().text.size()) + 1};
  }
  out.push_back({Tok::kEnd, "", end});
  return out;
}

bool IsKeyword(absl::string_view w) {
  for (absl::string_view k :
       {"log", "mandatory", "advisory", "on", "off", "maybe", "once", "default", "every", "msec",
        "msecs", "millisecond", "milliseconds", "sec", "secs", "second", "seconds", "min", "mins",
        "minute", "minutes", "hour", "hours", "access", "allow", "disallow", "all", "except",
        "enquire"}) {
    if (w == k) return true;
  }
  return false;
}

// Milliseconds per unit, 0 for a word that is not one.
int64_t UnitMsec(absl::string_view w) {
  if (w == "msec" || w == "msecs" || w == "millisecond" || w == "milliseconds") return 1;
  if (w == "sec" || w == "secs" || w == "second" || w == "seconds") return 1000;
  if (w == "min" || w == "mins" || w == "minute" || w == "minutes") return 60000;
  if (w == "hour" || w == "hours") return 3600000;
  return 0;
}

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd: return "the end of the file";
    case Tok::kString: return absl::StrCat("\"", t.text, "\"");
    default: return absl::StrCat("'", t.text, "'");
  }
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  absl::StatusOr<LoggerConfig> Parse() {
    LoggerConfig config;
    while (Peek().kind != Tok::kEnd) {
      if (IsPunct("[") && t_[pos_ + 1].kind == Tok::kWord && t_[pos_ + 1].text == "access") {
        config.access = Peek().where;
        if (absl::Status s = Access(); !s.ok()) return s;
        break;
      }
      absl::StatusOr<LogClause> clause = Clause();
      if (!clause.ok()) return clause.status();
      config.clauses.push_back(std::move(*clause));
    }
    return config;
  }

 private:
  const Token& Peek() const { return t_[pos_]; }
  const Token& Next() { return t_[pos_ < t_.size() - 1 ? pos_++ : pos_]; }
  bool IsWord(absl::string_view w) const { return Peek().kind == Tok::kWord && Peek().text == w; }
  bool IsPunct(absl::string_view p) const {
    return Peek().kind == Tok::kPunct && Peek().text == p;
  }

  absl::Status Error(const Token& at, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(at.where.ToString(), ": ", what));
  }
  absl::Status Expected(absl::string_view what) const {
    return Error(Peek(), absl::StrCat("expected ", what, ", found ", Describe(Peek())));
  }

  absl::StatusOr<LogClause> Clause() {
    LogClause c;
    c.where = Peek().where;
    if (IsWord("log")) Next();
    bool controller = false;
    if (IsWord("mandatory")) {
      c.control = LogControl::kMandatory;
      controller = true;
      Next();
    } else if (IsWord("advisory")) {
      c.control = LogControl::kAdvisory;
      controller = true;
      Next();
    }
    if (IsWord("on")) {
      Next();
      absl::Status s = Frequency(&c);
      if (!s.ok()) return s;
    } else if (IsWord("off")) {
      Next();
      c.state = LogState::kOff;
    } else if (IsWord("maybe") && c.control == LogControl::kMandatory && controller) {
      Next();
      c.state = LogState::kMaybe;
    } else if (IsWord("maybe")) {
      return Error(Peek(), "'maybe' needs 'mandatory' before it (log mandatory maybe ...)");
    } else if (controller) {
      return Expected(c.control == LogControl::kMandatory ? "'on', 'off' or 'maybe'"
                                                          : "'on' or 'off'");
    } else {
      return Expected("a logging specification ('log mandatory on ...', 'log advisory off ...')");
    }
    if (IsPunct("{")) {
      const Token& open = Next();
      for (;;) {
        if (IsPunct("}")) {
          if (c.metrics.empty()) return Expected("a metric name");
          Next();
          break;
        }
        if (Peek().kind == Tok::kEnd) {
          return Error(open, "'{' is never closed (expected '}')");
        }
        if (!c.metrics.empty() && IsPunct(",")) Next();
        absl::Status s = Metric(/*in_braces=*/true, &c);
        if (!s.ok()) return s;
      }
    } else {
      absl::Status s = Metric(/*in_braces=*/false, &c);
      if (!s.ok()) return s;
    }
    return c;
  }

  absl::Status Frequency(LogClause* c) {
    if (IsWord("once")) {
      Next();
      c->interval = absl::ZeroDuration();
      return absl::OkStatus();
    }
    if (IsWord("default")) {
      Next();
      return absl::OkStatus();
    }
    if (IsWord("every")) Next();
    if (Peek().kind == Tok::kOther && !Peek().text.empty() &&
        std::isdigit(static_cast<unsigned char>(Peek().text[0]))) {
      return Error(Peek(), absl::StrCat("interval ", Peek().text, " is not a whole number: write "
                                        "it in a smaller unit (every 1500 msec)"));
    }
    if (Peek().kind != Tok::kNumber) return Expected("an interval ('every 10 sec', 'once' or 'default')");
    const Token& number = Next();
    int64_t n = 0;
    for (char d : number.text) {
      n = n * 10 + (d - '0');
      if (n > kMaxDeltaMsec) break;
    }
    if (Peek().kind != Tok::kWord || UnitMsec(Peek().text) == 0) {
      return Expected(absl::StrCat("a time unit after ", number.text,
                                   " (msec, sec, min or hour)"));
    }
    const int64_t unit = UnitMsec(Next().text);
    if (n > kMaxDeltaMsec / unit) {
      return Error(number, absl::StrCat("interval too long: pmlogger's limit is ", kMaxDeltaMsec,
                                        " msec (about 74 hours)"));
    }
    c->interval = absl::Milliseconds(n * unit);
    return absl::OkStatus();
  }

  absl::Status Metric(bool in_braces, LogClause* c) {
    if (Peek().kind != Tok::kWord || (!in_braces && IsKeyword(Peek().text))) {
      if (Peek().kind == Tok::kWord) {
        return Error(Peek(), absl::StrCat("expected a metric name, found the keyword '",
                                          Peek().text, "' (a metric list needs '{' ... '}')"));
      }
      return Expected("a metric name");
    }
    MetricSpec m;
    m.where = Peek().where;
    m.name = Next().text;
    if (m.name.back() == '.' || m.name.find("..") != std::string::npos) {
      return Error(t_[pos_ - 1], absl::StrCat("'", m.name, "' is not a metric name"));
    }
    if (IsPunct("[") && !(t_[pos_ + 1].kind == Tok::kWord && t_[pos_ + 1].text == "access")) {
      const Token& open = Next();
      for (;;) {
        if (IsPunct("]")) {
          if (m.instances.empty()) return Expected("an instance name or number");
          Next();
          break;
        }
        if (!m.instances.empty() && IsPunct(",")) Next();
        const Token& t = Peek();
        if (t.kind == Tok::kNumber) {
          int64_t n = 0;
          for (char d : t.text) {
            n = n * 10 + (d - '0');
            if (n > INT32_MAX) return Error(t, absl::StrCat("instance number ", t.text, " is too large"));
          }
          m.instances.push_back({static_cast<int32_t>(n), ""});
        } else if (t.kind == Tok::kString ||
                   (t.kind == Tok::kWord && (in_braces || !IsKeyword(t.text)))) {
          m.instances.push_back({std::nullopt, t.text});
        } else if (t.kind == Tok::kEnd) {
          return Error(open, "'[' is never closed (expected ']')");
        } else {
          return Expected("an instance name (quote names with spaces or '-') or number, or ']'");
        }
        Next();
      }
    }
    c->metrics.push_back(std::move(m));
    return absl::OkStatus();
  }

  // [access] rules: parsed for their shape only (mmvlog has no pmlc).
  absl::Status Access() {
    Next();  // [
    Next();  // access
    if (!IsPunct("]")) return Expected("']' after '[access'");
    Next();
    if (Peek().kind == Tok::kEnd) return Expected("an access rule ('allow * : all;')");
    while (Peek().kind != Tok::kEnd) {
      if (!IsWord("allow") && !IsWord("disallow")) return Expected("'allow' or 'disallow'");
      Next();
      // Hosts, up to the last ':' before ';' (IPv6 addresses hold colons).
      size_t semi = pos_;
      while (t_[semi].kind != Tok::kEnd && !(t_[semi].kind == Tok::kPunct && t_[semi].text == ";")) {
        ++semi;
      }
      if (t_[semi].kind == Tok::kEnd) return Error(t_[semi], "expected ';' to end the access rule");
      size_t colon = semi;
      while (colon > pos_ && !(t_[colon].kind == Tok::kPunct && t_[colon].text == ":")) --colon;
      if (colon == pos_) {
        return Error(t_[pos_], "expected 'hosts : operations;' in the access rule");
      }
      bool any_op = false;
      for (size_t i = colon + 1; i < semi; ++i) {
        const Token& op = t_[i];
        if (op.kind == Tok::kPunct && op.text == ",") continue;
        if (op.kind != Tok::kWord || (op.text != "advisory" && op.text != "mandatory" &&
                                      op.text != "enquire" && op.text != "all" &&
                                      op.text != "except")) {
          return Error(op, absl::StrCat("unknown access operation ", Describe(op),
                                        " (advisory, mandatory, enquire, all, all except ...)"));
        }
        any_op = true;
      }
      if (!any_op) return Error(t_[semi], "expected an operation before ';'");
      pos_ = semi + 1;
    }
    return absl::OkStatus();
  }

  std::vector<Token> t_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<LoggerConfig> ParseLoggerConfig(const std::vector<SourceLine>& lines) {
  return Parser(Lex(lines)).Parse();
}

absl::StatusOr<LoggerConfig> ParseLoggerConfigText(absl::string_view text,
                                                   const std::string& file,
                                                   const PmcppOptions& options) {
  absl::StatusOr<std::vector<SourceLine>> lines = Pmcpp(text, file, options);
  if (!lines.ok()) return lines.status();
  return ParseLoggerConfig(*lines);
}

}  // namespace mmvlog::format

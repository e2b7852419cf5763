#include "cmd/cli.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <regex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace mmvlog::cmd {
namespace {

// Optimal string alignment distance (Levenshtein plus adjacent
// transpositions, the commonest typo).
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string Normalized(absl::string_view name) {
  std::string s(name);
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

}  // namespace

// Help lines are kept within this width.
constexpr size_t kHelpWidth = 100;

std::string HelpFormatter::make_usage(const CLI::App* app, std::string /*name*/) const {
  return absl::StrCat("usage: ", usage_, "\n\n", app->get_description(), "\n");
}

std::string HelpFormatter::make_description(const CLI::App* /*app*/) const {
  return "";  // make_usage puts it under the usage line
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  std::string left = absl::StrCat("  ", make_option_name(opt, is_positional), make_option_opts(opt));
  const size_t column = get_column_width();
  std::string out = left;
  if (left.size() + 1 > column) {
    out += "\n";
    left.clear();
  }
  out.append(column - left.size(), ' ');
  // The description, wrapped at word boundaries.
  size_t used = column;
  for (absl::string_view word : absl::StrSplit(make_option_desc(opt), ' ', absl::SkipEmpty())) {
    if (used > column && used + 1 + word.size() > kHelpWidth) {
      absl::StrAppend(&out, "\n", std::string(column, ' '));
      used = column;
    }
    if (used > column) {
      out += ' ';
      ++used;
    }
    absl::StrAppend(&out, word);
    used += word.size();
  }
  return out + "\n";
}

std::string HelpFormatter::make_option_name(const CLI::Option* opt, bool is_positional) const {
  if (is_positional) return opt->get_name(true, false);
  std::vector<std::string> names;
  for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
  // Long-only options line up under the long names of the others.
  return absl::StrCat(opt->get_snames().empty() ? "    " : "", absl::StrJoin(names, ", "));
}

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  std::string type = opt->get_type_name();
  type = type.substr(0, type.find(':'));  // CLI11 appends its validators' names
  if (opt->get_positional() || type.empty()) return "";
  return absl::StrCat("=", type);
}

std::string HelpFormatter::make_option_desc(const CLI::Option* opt) const {
  std::string desc = opt->get_description();
  if (!opt->get_default_str().empty() && !opt->get_type_name().empty()) {
    absl::StrAppend(&desc, " (default: ", opt->get_default_str(), ")");
  }
  return desc;
}

std::unique_ptr<CLI::App> NewCommandApp(const std::string& name, const std::string& description,
                                        const std::string& args_usage) {
  auto app = std::make_unique<CLI::App>(description, absl::StrCat("mmvlog ", name));
  auto fmt = std::make_shared<HelpFormatter>(absl::StrCat("mmvlog ", name, " ", args_usage));
  fmt->column_width(34);
  app->formatter(fmt);
  app->set_help_flag("-h,--help", "print this help and exit")->group("Other");
  app->allow_extras(false);
  app->positionals_at_end(false);
  return app;
}

void HiddenFlagAlias(CLI::App* app, const std::string& old_name, bool& target) {
  app->add_flag(old_name, target)->group("");
}

std::vector<std::string> VisibleOptionNames(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty() || opt->get_positional()) continue;
    for (const std::string& s : opt->get_snames()) out.push_back("-" + s);
    for (const std::string& l : opt->get_lnames()) out.push_back("--" + l);
  }
  return out;
}

std::string NearestName(absl::string_view wrong, const std::vector<std::string>& candidates) {
  const std::string w = Normalized(wrong);
  if (w.size() <= 2) return "";  // "-x": any other letter is one edit away
  std::string best;
  size_t best_distance = std::string::npos;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(w, Normalized(c));
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // Close enough to be a typo: one edit for short names, up to a third of
  // the name for long ones.
  const size_t allowed = std::max<size_t>(1, std::min<size_t>(3, w.size() / 3));
  if (best_distance <= allowed) return best;
  // A prefix of exactly one option ("--arch" for "--archive-dir").
  std::string prefix_match;
  for (const std::string& c : candidates) {
    if (w.size() >= 3 && absl::StartsWith(Normalized(c), w)) {
      if (!prefix_match.empty()) return "";
      prefix_match = c;
    }
  }
  return prefix_match;
}

int UsageError(const std::string& command, absl::string_view message) {
  std::fprintf(stderr, "mmvlog %s: %.*s\n", command.c_str(), static_cast<int>(message.size()),
               message.data());
  return kExitUsage;
}

int ReportParseError(const CLI::App& app, const std::string& command, const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::CallForHelp*>(&e) != nullptr ||
      dynamic_cast<const CLI::CallForAllHelp*>(&e) != nullptr) {
    std::cout << app.help() << std::flush;
    return kExitOk;
  }
  std::string what = e.what();
  std::smatch m;
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    std::vector<std::string> extras = app.remaining();
    std::string unknown;
    for (const std::string& x : extras) {
      if (x.size() > 1 && x[0] == '-') {
        unknown = x.substr(0, x.find('='));
        break;
      }
    }
    if (!unknown.empty()) {
      what = absl::StrCat("unknown option '", unknown, "'");
      const std::string near = NearestName(unknown, VisibleOptionNames(app));
      if (!near.empty()) absl::StrAppend(&what, "; did you mean '", near, "'?");
    } else if (!extras.empty()) {
      what = absl::StrCat("unexpected argument '", extras.front(), "'");
    }
  } else if (std::regex_match(what, m, std::regex("Could not convert: (\\S+) = (.*)"))) {
    what = absl::StrCat("bad value '", m[2].str(), "' for ", m[1].str());
  } else if (std::regex_match(what, m,
                              std::regex("(-\\S+): Value (\\S*) not in range (\\S+) to (\\S+)"))) {
    // CLI11's range checks: "--opt: Value V not in range 0.000000 to 1.79769e+308".
    const double low = std::strtod(m[3].str().c_str(), nullptr);
    const double high = std::strtod(m[4].str().c_str(), nullptr);
    what = absl::StrCat("bad value '", m[2].str(), "' for ", m[1].str(), ": a number, ",
                        high >= 1e300 ? absl::StrCat(low, " or more")
                                      : absl::StrCat("from ", low, " to ", high));
  } else if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr &&
             std::regex_match(what, m, std::regex("(-\\S+): (\\S*)( .+)?"))) {
    // CLI11's "--opt: VALUE not in {...}" or "--opt: VALUE".
    what = absl::StrCat("bad value '", m[2].str(), "' for ", m[1].str(),
                        m[3].matched ? absl::StrCat(":", m[3].str()) : "");
  } else if (std::regex_match(what, m, std::regex("(\\S+): \\d+ required (\\S+) missing"))) {
    what = absl::StrCat("option ", m[1].str(), " needs a value (", m[2].str(), ")");
  }
  // One line: what is wrong, and where to look.
  std::fprintf(stderr, "mmvlog %s: %s (mmvlog %s --help lists the options)\n", command.c_str(),
               what.c_str(), command.c_str());
  return kExitUsage;
}

}  // namespace mmvlog::cmd

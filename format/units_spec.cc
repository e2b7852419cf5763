#include "format/units_spec.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::format {
namespace {

struct Keyword {
  const char* text;
  int scale;
};

// Spellings pmParseUnitsStr takes (matched without regard to case, the
// first that fits; a keyword must end at a space, a '^' or the end).
constexpr Keyword kTimeWords[] = {
    {"nanoseconds", kTimeNsec}, {"nanosecond", kTimeNsec}, {"nanosec", kTimeNsec},
    {"ns", kTimeNsec},          {"microseconds", kTimeUsec}, {"microsecond", kTimeUsec},
    {"microsec", kTimeUsec},    {"us", kTimeUsec},          {"milliseconds", kTimeMsec},
    {"millisecond", kTimeMsec}, {"millisec", kTimeMsec},    {"ms", kTimeMsec},
    {"seconds", kTimeSec},      {"second", kTimeSec},       {"sec", kTimeSec},
    {"s", kTimeSec},            {"minutes", kTimeMin},      {"minute", kTimeMin},
    {"min", kTimeMin},          {"hours", kTimeHour},       {"hour", kTimeHour},
    {"hr", kTimeHour},          {"h", kTimeHour},
};

// Per space scale, its names; "KB", "KiB", "Kbyte(s)", "Kibibyte(s)" and
// "Kilobyte(s)" all mean 1024 bytes, as in libpcp.
constexpr const char* kSpacePrefixes[][4] = {
    {"K", "Ki", "Kibi", "Kilo"}, {"M", "Mi", "Mebi", "Mega"}, {"G", "Gi", "Gibi", "Giga"},
    {"T", "Ti", "Tebi", "Tera"}, {"P", "Pi", "Pebi", "Peta"}, {"E", "Ei", "Exbi", "Exa"},
};

constexpr int kMaxTimeScale = kTimeHour;

bool IsSpace(char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); }

class Part {
 public:
  explicit Part(absl::string_view text) : rest_(text) {}

  absl::Status Parse(PmUnits* out, double* multiplier) {
    *out = PmUnits();
    *multiplier = 1;
    bool extra_seen = false;
    while (true) {
      SkipSpaces();
      if (rest_.empty()) return absl::OkStatus();
      if (ExtraUnit(out)) {
        if (extra_seen) return absl::InvalidArgumentError("multiple extra units not allowed");
        extra_seen = true;
        continue;
      }
      const char c = rest_[0];
      if (c == '-' || c == '.' || absl::ascii_isdigit(static_cast<unsigned char>(c))) {
        const std::string copy(rest_);
        char* end = nullptr;
        errno = 0;
        const double m = std::strtod(copy.c_str(), &end);
        if (errno != 0 || end == copy.c_str()) {
          return absl::InvalidArgumentError("invalid floating point literal");
        }
        rest_.remove_prefix(end - copy.c_str());
        *multiplier *= m;
        continue;
      }
      int* dim = nullptr;
      int scale = 0;
      if (out->dim_time == 0 && (scale = TimeWord()) >= 0) {
        dim = &out->dim_time;
        out->scale_time = scale;
      } else if (out->dim_space == 0 && (scale = SpaceWord()) >= 0) {
        dim = &out->dim_space;
        out->scale_space = scale;
      } else if (out->dim_count == 0 && CountWord(&scale)) {
        dim = &out->dim_count;
        out->scale_count = scale;
      } else {
        return absl::InvalidArgumentError("unrecognized or duplicate base unit");
      }
      *dim = 1;
      if (!rest_.empty() && rest_[0] == '^') {
        int exponent = 0;
        if (!Exponent(&exponent)) return absl::InvalidArgumentError("bad exponent");
        *dim = exponent;
      }
    }
  }

 private:
  void SkipSpaces() {
    while (!rest_.empty() && IsSpace(rest_[0])) rest_.remove_prefix(1);
  }

  // Consumes `word` when the text starts with it (any case) and it ends
  // there.
  bool Take(absl::string_view word) {
    if (rest_.size() < word.size() || !absl::EqualsIgnoreCase(rest_.substr(0, word.size()), word)) {
      return false;
    }
    if (rest_.size() > word.size() && !IsSpace(rest_[word.size()]) && rest_[word.size()] != '^') {
      return false;
    }
    rest_.remove_prefix(word.size());
    return true;
  }

  int TimeWord() {
    for (const Keyword& k : kTimeWords) {
      if (Take(k.text)) return k.scale;
    }
    for (int s = 0; s <= 15; ++s) {
      if (Take(absl::StrCat("time-", s))) return s;
    }
    return -1;
  }

  int SpaceWord() {
    if (Take("bytes") || Take("byte")) return kSpaceByte;
    for (int i = 0; i < 6; ++i) {
      const char* const* p = kSpacePrefixes[i];
      for (absl::string_view w :
           {absl::StrCat(p[0], "B"), absl::StrCat(p[1], "B"), absl::StrCat(p[0], "bytes"),
            absl::StrCat(p[0], "byte"), absl::StrCat(p[2], "bytes"), absl::StrCat(p[2], "byte"),
            absl::StrCat(p[3], "bytes"), absl::StrCat(p[3], "byte")}) {
        if (Take(w)) return i + 1;
      }
    }
    for (int s = 0; s <= 15; ++s) {
      if (Take(absl::StrCat("space-", s))) return s;
    }
    return -1;
  }

  bool CountWord(int* scale) {
    if (Take("count x 10")) {
      // "count x 10" alone, or its "^S" scale (-8..7); a further "^P" is
      // the dimension's exponent.
      *scale = 1;
      if (!rest_.empty() && rest_[0] == '^') {
        const absl::string_view saved = rest_;
        int s = 0;
        if (Exponent(&s) && s != 1 && s >= -8 && s <= 7) {
          *scale = s;
        } else {
          rest_ = saved;  // "^1" and the like: the dimension's exponent
        }
      }
      return true;
    }
    if (Take("counts") || Take("count")) {
      *scale = 0;
      return true;
    }
    return false;
  }

  // "^N", N in -8..15.
  bool Exponent(int* out) {
    if (rest_.empty() || rest_[0] != '^') return false;
    size_t i = 1;
    if (i < rest_.size() && rest_[i] == '-') ++i;
    size_t digits = i;
    while (digits < rest_.size() && absl::ascii_isdigit(static_cast<unsigned char>(rest_[digits]))) {
      ++digits;
    }
    if (digits == i || (digits < rest_.size() && !IsSpace(rest_[digits]) && rest_[digits] != '^')) {
      return false;
    }
    const int n = std::atoi(std::string(rest_.substr(1, digits - 1)).c_str());
    if (n < -8 || n > 15) return false;
    *out = n;
    rest_.remove_prefix(digits);
    return true;
  }

  // PCP 7.2's "name (scale)".
  bool ExtraUnit(PmUnits* out) {
    const size_t open = rest_.find(" (");
    if (open == absl::string_view::npos) return false;
    const size_t close = rest_.find(')', open);
    if (close == absl::string_view::npos) return false;
    const absl::string_view name = rest_.substr(0, open);
    if (name.find(' ') != absl::string_view::npos) return false;
    std::optional<std::pair<int, int>> extra =
        ExtraUnitFromText(name, rest_.substr(open + 2, close - open - 2));
    if (!extra) return false;
    out->extra_unit = extra->first;
    out->extra_scale = extra->second;
    rest_.remove_prefix(close + 1);
    return true;
  }

  absl::string_view rest_;
};

// The scale of an axis present on both sides: the canonical one, the two
// scales folded into the multiplier (as libpcp folds them).
void Fold(int dividend_dim, int dividend_scale, int divisor_dim, int divisor_scale, int dim,
          int canonical, double (*size)(int), int* scale, double* multiplier) {
  if (dividend_dim == 0 && divisor_dim != 0) {
    *scale = divisor_scale;
  } else if (divisor_dim == 0 && dividend_dim != 0) {
    *scale = dividend_scale;
  } else {
    *scale = dim == 0 ? 0 : canonical;
    *multiplier *= std::pow(size(dividend_scale), -static_cast<double>(dividend_dim));
    *multiplier *= std::pow(size(divisor_scale), static_cast<double>(divisor_dim));
  }
}

double SpaceSize(int s) { return std::pow(1024.0, s); }
double CountSize(int s) { return std::pow(10.0, s); }
double TimeSize(int s) {
  static constexpr double kSeconds[] = {1e-9, 1e-6, 1e-3, 1, 60, 3600};
  return s >= 0 && s <= kMaxTimeScale ? kSeconds[s] : 1;
}

absl::Status SpecError(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("units \"", text, "\": ", why));
}

// pmConvScale's integer factors for one axis: what a value of scale `from`
// is multiplied (m) and divided (d) by to be in the canonical unit, and the
// same from the canonical unit to `to`.
bool SpaceFactors(int from, int to, int64_t* m, int64_t* d) {
  if (from < 0 || from > kSpaceEbyte || to < 0 || to > kSpaceEbyte) return false;
  // Canonical: Mbyte (scale 2).
  for (int s = from; s < kSpaceMbyte; ++s) *d *= 1024;
  for (int s = kSpaceMbyte; s < from; ++s) *m *= 1024;
  for (int s = to; s < kSpaceMbyte; ++s) *m *= 1024;
  for (int s = kSpaceMbyte; s < to; ++s) *d *= 1024;
  return true;
}

bool TimeFactors(int from, int to, int64_t* m, int64_t* d) {
  static constexpr int64_t kPerSecond[] = {1000000000, 1000000, 1000, 1};
  static constexpr int64_t kSeconds[] = {1, 1, 1, 1, 60, 3600};
  if (from < 0 || from > kMaxTimeScale || to < 0 || to > kMaxTimeScale) return false;
  if (from < kTimeSec) *d *= kPerSecond[from];
  *m *= kSeconds[from];
  if (to < kTimeSec) *m *= kPerSecond[to];
  *d *= kSeconds[to];
  return true;
}

void CountFactors(int from, int to, int64_t* m, int64_t* d) {
  for (int s = from; s < 0; ++s) *d *= 10;
  for (int s = 0; s < from; ++s) *m *= 10;
  for (int s = to; s < 0; ++s) *m *= 10;
  for (int s = 0; s < to; ++s) *d *= 10;
}

// Raises mult/div by one axis's factors to its dimension.
void Power(int dim, int64_t m, int64_t d, int64_t* mult, int64_t* div) {
  for (int k = 0; k < dim; ++k) *div *= d, *mult *= m;
  for (int k = dim; k < 0; ++k) *mult *= d, *div *= m;
}

}  // namespace

absl::StatusOr<UnitsSpec> ParseUnitsSpec(absl::string_view text) {
  const size_t slash = text.find('/');
  PmUnits dividend, divisor;
  double dividend_mult = 1, divisor_mult = 1;
  absl::Status s = Part(text.substr(0, slash)).Parse(&dividend, &dividend_mult);
  if (s.ok() && slash != absl::string_view::npos) {
    s = Part(text.substr(slash + 1)).Parse(&divisor, &divisor_mult);
  }
  if (!s.ok()) return SpecError(text, s.message());
  UnitsSpec out;
  PmUnits& u = out.units;
  u.dim_space = dividend.dim_space - divisor.dim_space;
  u.dim_time = dividend.dim_time - divisor.dim_time;
  u.dim_count = dividend.dim_count - divisor.dim_count;
  for (int d : {u.dim_space, u.dim_time, u.dim_count}) {
    if (d < -8 || d > 7) return SpecError(text, "dimension out of bounds");
  }
  out.multiplier = divisor_mult / dividend_mult;
  Fold(dividend.dim_space, dividend.scale_space, divisor.dim_space, divisor.scale_space,
       u.dim_space, kSpaceByte, SpaceSize, &u.scale_space, &out.multiplier);
  Fold(dividend.dim_count, dividend.scale_count, divisor.dim_count, divisor.scale_count,
       u.dim_count, 0, CountSize, &u.scale_count, &out.multiplier);
  Fold(dividend.dim_time, dividend.scale_time, divisor.dim_time, divisor.scale_time, u.dim_time,
       kTimeSec, TimeSize, &u.scale_time, &out.multiplier);
  if (dividend.extra_unit != 0 && divisor.extra_unit != 0) {
    return SpecError(text, "extra units cannot appear in both dividend and divisor");
  }
  if (dividend.extra_unit != 0) {
    u.extra_unit = dividend.extra_unit;
    u.extra_scale = dividend.extra_scale;
  } else {
    u.extra_unit = -divisor.extra_unit;
    u.extra_scale = divisor.extra_scale;
  }
  return out;
}

absl::StatusOr<double> ConvScaleFactor(const PmUnits& from_in, const PmUnits& to_in) {
  PmUnits from = from_in, to = to_in;
  auto dimensionless = [](const PmUnits& u) {
    return u.dim_space == 0 && u.dim_time == 0 && u.dim_count == 0 && u.extra_unit == 0;
  };
  if (dimensionless(from)) from.dim_count = 1;
  if (dimensionless(to)) to.dim_count = 1;
  if (from.dim_space != to.dim_space || from.dim_time != to.dim_time ||
      from.dim_count != to.dim_count || from.extra_unit != to.extra_unit) {
    return absl::InvalidArgumentError("incompatible dimensions");
  }
  if (from.extra_unit != 0 && from.extra_scale != to.extra_scale) {
    return absl::InvalidArgumentError("extra-unit scales differ");
  }
  int64_t mult = 1, div = 1;
  if (from.dim_space != 0) {
    int64_t m = 1, d = 1;
    if (!SpaceFactors(from.scale_space, to.scale_space, &m, &d)) {
      return absl::InvalidArgumentError("space scale out of range");
    }
    Power(from.dim_space, m, d, &mult, &div);
  }
  if (from.dim_time != 0) {
    int64_t m = 1, d = 1;
    if (!TimeFactors(from.scale_time, to.scale_time, &m, &d)) {
      return absl::InvalidArgumentError("time scale out of range");
    }
    Power(from.dim_time, m, d, &mult, &div);
  }
  if (from.dim_count != 0 || (from.dim_space == 0 && from.dim_time == 0)) {
    int64_t m = 1, d = 1;
    CountFactors(from.scale_count, to.scale_count, &m, &d);
    if (from.dim_count != 0) {
      Power(from.dim_count, m, d, &mult, &div);
    } else {
      mult = m, div = d;
    }
  }
  if (mult % div == 0) {
    mult /= div;
    div = 1;
  }
  return static_cast<double>(mult) / static_cast<double>(div);
}

absl::StatusOr<ScaleConversion> ConvertToSpec(const PmUnits& metric, absl::string_view spec) {
  absl::StatusOr<UnitsSpec> parsed = ParseUnitsSpec(spec);
  if (!parsed.ok()) return parsed.status();
  PmUnits to = parsed->units;
  double multiplier = parsed->multiplier;
  ScaleConversion out;
  const bool same = metric.dim_space == to.dim_space && metric.dim_count == to.dim_count &&
                    metric.dim_time == to.dim_time && metric.extra_unit == to.extra_unit;
  if (!same) {
    if (metric.dim_space != to.dim_space || metric.dim_count != to.dim_count ||
        metric.dim_time != to.dim_time + 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("units \"", spec, "\" do not fit the metric's (", UnitsToString(metric), ")"));
    }
    // Per second to per the typed time unit (the fetchgroup's rule: the
    // typed time scale, 0 (nanoseconds) where it cancelled out).
    static constexpr double kPer[] = {1e-9, 1e-6, 1e-3, 1, 60, 3600};
    if (to.scale_time < 0 || to.scale_time > kMaxTimeScale) {
      return absl::InvalidArgumentError(absl::StrCat("units \"", spec, "\": bad time scale"));
    }
    multiplier *= kPer[to.scale_time];
    ++to.dim_time;
    out.rate = true;
  }
  absl::StatusOr<double> k = ConvScaleFactor(metric, to);
  if (!k.ok()) return absl::InvalidArgumentError(absl::StrCat("units \"", spec, "\": ", k.status().message()));
  out.scale = *k;
  out.multiplier = multiplier;
  return out;
}

}  // namespace mmvlog::format

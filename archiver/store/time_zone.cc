#include "archiver/store/time_zone.h"

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/internal/cctz/include/cctz/zone_info_source.h"

namespace mmvlog::archiver {
namespace {

namespace cctz = absl::time_internal::cctz;

// The span compiled from glibc: from the first 32-bit time_t (1901-12-13)
// to 2100-01-01. Steps of two days find every transition of a POSIX rule
// (at most two a year); each is then placed to the second by bisection.
constexpr int64_t kScanFirst = INT32_MIN;
constexpr int64_t kScanEnd = 4102444800;
constexpr int64_t kScanStep = 2 * 86400;

// $TZ is process-wide: one compilation at a time.
absl::Mutex tz_mutex;

struct LocalType {
  int32_t offset;
  bool dst;
  std::string abbr;
  bool operator==(const LocalType& o) const {
    return offset == o.offset && dst == o.dst && abbr == o.abbr;
  }
};

LocalType TypeAt(int64_t t) {
  const time_t secs = static_cast<time_t>(t);
  struct tm tm {};
  ::localtime_r(&secs, &tm);
  return {static_cast<int32_t>(tm.tm_gmtoff), tm.tm_isdst > 0, tm.tm_zone ? tm.tm_zone : ""};
}

// Sets $TZ for the scope (tzset as libpcp's pmNewZone does), then restores it.
class ScopedTz {
 public:
  explicit ScopedTz(const std::string& tz) {
    if (const char* old = std::getenv("TZ")) saved_ = old;
    ::setenv("TZ", tz.c_str(), 1);
    ::tzset();
  }
  ~ScopedTz() {
    if (saved_) {
      ::setenv("TZ", saved_->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }

 private:
  std::optional<std::string> saved_;
};

void AppendBig32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}
void AppendBig64(std::string* out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}

// A TZif header (RFC 8536 section 3.1): magic, version, 15 reserved bytes,
// then isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt.
void AppendHeader(std::string* out, uint32_t timecnt, uint32_t typecnt, uint32_t charcnt) {
  out->append("TZif2");
  out->append(15, '\0');
  for (uint32_t n : {0u, 0u, 0u, timecnt, typecnt, charcnt}) AppendBig32(out, n);
}

// A local time type (ttinfo): utoff, isdst, desigidx.
void AppendType(std::string* out, const LocalType& type, uint8_t abbr_index) {
  AppendBig32(out, static_cast<uint32_t>(type.offset));
  out->push_back(type.dst ? 1 : 0);
  out->push_back(static_cast<char>(abbr_index));
}

// ZoneInfoSource over bytes in memory.
class MemorySource : public cctz::ZoneInfoSource {
 public:
  explicit MemorySource(std::string bytes) : bytes_(std::move(bytes)) {}
  std::size_t Read(void* ptr, std::size_t size) override {
    size = std::min(size, bytes_.size() - at_);
    std::memcpy(ptr, bytes_.data() + at_, size);
    at_ += size;
    return size;
  }
  int Skip(std::size_t offset) override {
    at_ += std::min(offset, bytes_.size() - at_);
    return 0;
  }
  std::string Version() const override { return "glibc"; }

 private:
  std::string bytes_;
  std::size_t at_ = 0;
};

// cctz asks this for every zone it loads: the zoneinfo database first (as
// glibc looks there first), then a POSIX TZ string compiled from glibc.
std::unique_ptr<cctz::ZoneInfoSource> PcpZoneFactory(
    const std::string& name,
    const std::function<std::unique_ptr<cctz::ZoneInfoSource>(const std::string&)>& fallback) {
  if (std::unique_ptr<cctz::ZoneInfoSource> file = fallback(name)) return file;
  if (!IsPosixTz(name)) return nullptr;
  return std::make_unique<MemorySource>(CompileTzWithGlibc(name));
}

// POSIX TZ grammar pieces; each advances `*i` past what it read.
bool Name(absl::string_view s, size_t* i) {
  if (*i < s.size() && s[*i] == '<') {
    const size_t close = s.find('>', *i);
    if (close == absl::string_view::npos || close - *i - 1 < 3) return false;
    for (size_t k = *i + 1; k < close; ++k) {
      if (!absl::ascii_isalnum(s[k]) && s[k] != '+' && s[k] != '-') return false;
    }
    *i = close + 1;
    return true;
  }
  size_t n = 0;
  while (*i + n < s.size() && absl::ascii_isalpha(s[*i + n])) ++n;
  *i += n;
  return n >= 3;
}

bool Number(absl::string_view s, size_t* i, int max, int* out) {
  const size_t from = *i;
  int v = 0;
  while (*i < s.size() && absl::ascii_isdigit(s[*i]) && *i - from < 3) v = v * 10 + (s[(*i)++] - '0');
  *out = v;
  return *i > from && v <= max;
}

// [+-]hh[:mm[:ss]], hours at most `max_hours`.
bool Offset(absl::string_view s, size_t* i, int max_hours) {
  if (*i < s.size() && (s[*i] == '+' || s[*i] == '-')) ++*i;
  int v;
  if (!Number(s, i, max_hours, &v)) return false;
  for (int part = 0; part < 2 && *i < s.size() && s[*i] == ':'; ++part) {
    ++*i;
    if (!Number(s, i, 59, &v)) return false;
  }
  return true;
}

// Jn, n or Mm.w.d, then an optional /time.
bool Rule(absl::string_view s, size_t* i) {
  int v;
  if (*i < s.size() && s[*i] == 'J') {
    ++*i;
    if (!Number(s, i, 365, &v) || v < 1) return false;
  } else if (*i < s.size() && s[*i] == 'M') {
    ++*i;
    if (!Number(s, i, 12, &v) || v < 1) return false;
    if (*i >= s.size() || s[(*i)++] != '.' || !Number(s, i, 5, &v) || v < 1) return false;
    if (*i >= s.size() || s[(*i)++] != '.' || !Number(s, i, 6, &v)) return false;
  } else if (!Number(s, i, 365, &v)) {
    return false;
  }
  if (*i < s.size() && s[*i] == '/') {
    ++*i;
    return Offset(s, i, 167);
  }
  return true;
}

}  // namespace

bool IsPosixTz(absl::string_view s) {
  size_t i = 0;
  if (!Name(s, &i) || !Offset(s, &i, 24)) return false;
  if (i == s.size()) return true;
  if (!Name(s, &i)) return false;
  if (i < s.size() && s[i] != ',' && !Offset(s, &i, 24)) return false;
  if (i == s.size()) return true;
  if (s[i++] != ',' || !Rule(s, &i)) return false;
  if (i >= s.size() || s[i++] != ',' || !Rule(s, &i)) return false;
  return i == s.size();
}

std::string CompileTzWithGlibc(const std::string& tz) {
  std::vector<LocalType> types;
  std::vector<std::pair<int64_t, uint8_t>> transitions;  // time, type index
  {
    absl::MutexLock lock(&tz_mutex);
    ScopedTz scoped(tz);
    auto index_of = [&types](const LocalType& type) {
      auto it = std::find(types.begin(), types.end(), type);
      if (it != types.end()) return static_cast<uint8_t>(it - types.begin());
      types.push_back(type);
      return static_cast<uint8_t>(types.size() - 1);
    };
    LocalType prev = TypeAt(kScanFirst);
    index_of(prev);
    for (int64_t t = kScanFirst + kScanStep; t < kScanEnd + kScanStep; t += kScanStep) {
      LocalType cur = TypeAt(t);
      if (cur == prev) continue;
      int64_t lo = t - kScanStep, hi = t;  // prev at lo, cur at hi
      while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        (TypeAt(mid) == prev ? lo : hi) = mid;
      }
      // cctz holds at most 256 types: a zone past that keeps its last one.
      if (types.size() < 255 || std::find(types.begin(), types.end(), cur) != types.end()) {
        transitions.emplace_back(hi, index_of(cur));
      }
      prev = std::move(cur);
    }
  }
  std::string chars;
  std::vector<uint8_t> abbr_index;
  for (const LocalType& type : types) {
    const size_t at = chars.find(type.abbr + '\0');
    abbr_index.push_back(static_cast<uint8_t>(std::min<size_t>(at == std::string::npos ? chars.size() : at, 255)));
    if (at == std::string::npos) chars += type.abbr + '\0';
  }
  std::string out;
  // Version 1 block: the first type alone (readers of version 2 skip it).
  AppendHeader(&out, 0, 1, static_cast<uint32_t>(types[0].abbr.size() + 1));
  AppendType(&out, types[0], 0);
  out.append(types[0].abbr);
  out.push_back('\0');
  // Version 2 block: 64-bit transition times.
  AppendHeader(&out, static_cast<uint32_t>(transitions.size()), static_cast<uint32_t>(types.size()),
               static_cast<uint32_t>(chars.size()));
  for (const auto& [time, type] : transitions) AppendBig64(&out, static_cast<uint64_t>(time));
  for (const auto& [time, type] : transitions) out.push_back(static_cast<char>(type));
  for (size_t k = 0; k < types.size(); ++k) AppendType(&out, types[k], abbr_index[k]);
  out.append(chars);
  // No footer rule: after 2100 the last type stays.
  out.append("\n\n");
  return out;
}

absl::StatusOr<absl::TimeZone> LoadPcpTimeZone(absl::string_view tz) {
  absl::string_view name = tz;
  if (!name.empty() && name[0] == ':') name.remove_prefix(1);
  absl::TimeZone zone;
  if (!name.empty() && absl::LoadTimeZone(std::string(name), &zone)) return zone;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown time zone '", tz, "': use a zoneinfo name such as Europe/Berlin, UTC, "
                   "or a POSIX TZ such as AEST-10AEDT-11,M10.5.0/3,M3.5.0/2"));
}

absl::TimeZone LocalPcpTimeZone() { return absl::LocalTimeZone(); }

}  // namespace mmvlog::archiver

// cctz's extension point (zone_info_source.h): every absl::TimeZone the
// program loads, absl::LocalTimeZone() included, goes through the factory.
namespace absl {
ABSL_NAMESPACE_BEGIN
namespace time_internal {
namespace cctz_extension {
ZoneInfoSourceFactory zone_info_source_factory = mmvlog::archiver::PcpZoneFactory;
}  // namespace cctz_extension
}  // namespace time_internal
ABSL_NAMESPACE_END
}  // namespace absl

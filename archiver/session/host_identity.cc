#include "archiver/session/host_identity.h"

#include <optional>
#include <utility>

#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "archiver/file/posix_file.h"
#include "format/json.h"

namespace mmvlog::archiver {

namespace {

std::string Labels(const HostIdentity& h, const std::optional<std::pair<uint32_t, uint32_t>>& ids) {
  std::vector<std::string> parts;
  if (!h.domainname.empty()) {
    parts.push_back(absl::StrCat("\"domainname\":", format::JsonString(h.domainname)));
  }
  if (ids) parts.push_back(absl::StrCat("\"groupid\":", ids->second));
  parts.push_back(absl::StrCat("\"hostname\":", format::JsonString(h.hostname)));
  if (!h.machineid.empty()) {
    parts.push_back(absl::StrCat("\"machineid\":", format::JsonString(h.machineid)));
  }
  if (ids) parts.push_back(absl::StrCat("\"userid\":", ids->first));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

}  // namespace

std::string HostIdentity::ContextLabels() const { return Labels(*this, std::nullopt); }

std::string HostIdentity::ContextLabels(uint32_t userid, uint32_t groupid) const {
  return Labels(*this, std::make_pair(userid, groupid));
}

HostIdentity LocalHostIdentity() {
  HostIdentity h;
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof(buf) - 1) == 0) h.hostname = buf;
  if (h.hostname.empty()) h.hostname = "localhost";
  const size_t dot = h.hostname.find('.');
  if (dot != std::string::npos) h.domainname = h.hostname.substr(dot + 1);
  char dom[256] = {};
  if (h.domainname.empty() && ::getdomainname(dom, sizeof(dom) - 1) == 0 &&
      dom[0] != '\0' && std::string(dom) != "(none)") {
    h.domainname = dom;
  }
  if (h.domainname.empty()) h.domainname = "localdomain";
  absl::StatusOr<std::string> id = ReadWholeFile("/etc/machine-id");
  if (id.ok()) h.machineid = std::string(absl::StripAsciiWhitespace(*id));

  ::tzset();
  const char* tz = ::getenv("TZ");
  if (tz != nullptr && *tz != '\0') {
    h.timezone = tz;
  } else {
    // PCP's form: standard-time name and the offset west of UTC in hours.
    const long west_hours = ::timezone / 3600;
    h.timezone = west_hours == 0 ? std::string(::tzname[0])
                                 : absl::StrCat(::tzname[0], west_hours > 0 ? "+" : "", west_hours);
  }
  char link[PATH_MAX] = {};
  ssize_t n = ::readlink("/etc/localtime", link, sizeof(link) - 1);
  if (n > 0) {
    std::string target(link, n);
    const size_t at = target.find("zoneinfo/");
    if (at != std::string::npos) h.zoneinfo = ":" + target.substr(at + 9);
  }
  if (tz != nullptr && *tz == ':') h.zoneinfo = tz;
  return h;
}

}  // namespace mmvlog::archiver

#include "cmd/privileges.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace mmvlog::cmd {

absl::StatusOr<UserIdentity> LookUpUser(const std::string& user) {
  std::vector<char> buf(16384);
  struct passwd pw;
  struct passwd* found = nullptr;
  int rc = ::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found);
  uid_t numeric;
  if (found == nullptr && absl::SimpleAtoi(user, &numeric)) {
    rc = ::getpwuid_r(numeric, &pw, buf.data(), buf.size(), &found);
  }
  if (found == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("-U ", user, ": no such user", rc != 0 ? absl::StrCat(" (", std::strerror(rc), ")") : ""));
  }
  return UserIdentity{pw.pw_name, pw.pw_uid, pw.pw_gid};
}

absl::Status DropPrivileges(const UserIdentity& user) {
  auto failed = [&](const char* step) {
    return absl::ErrnoToStatus(errno, absl::StrCat("-U ", user.name, ": ", step));
  };
  if (::geteuid() != 0) {
    if (::geteuid() == user.uid && ::getegid() == user.gid) return absl::OkStatus();
    return absl::PermissionDeniedError(
        absl::StrCat("-U ", user.name, ": only root can change user"));
  }
  // USER's groups, as login would give them, but never root's group.
  int n = 64;
  std::vector<gid_t> groups(n);
  if (::getgrouplist(user.name.c_str(), user.gid, groups.data(), &n) < 0) {
    groups.resize(n);
    if (::getgrouplist(user.name.c_str(), user.gid, groups.data(), &n) < 0) n = 0;
  }
  groups.resize(n);
  std::erase(groups, gid_t{0});
  if (groups.empty()) groups.push_back(user.gid);
  if (::setgroups(groups.size(), groups.data()) != 0) return failed("setgroups");
  if (::setgid(user.gid) != 0) return failed("setgid");
  if (::setuid(user.uid) != 0) return failed("setuid");
  // Root must be gone for good (setuid from root sets all three uids).
  if (user.uid != 0 && (::setuid(0) == 0 || ::seteuid(0) == 0)) {
    return absl::InternalError(absl::StrCat("-U ", user.name, ": root could be regained"));
  }
  return absl::OkStatus();
}

}  // namespace mmvlog::cmd

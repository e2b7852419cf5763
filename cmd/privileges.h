// Dropping root as pmlogger does (-U USER): what needs root is opened first,
// then the process becomes USER for good.
#ifndef MMVLOG_CMD_PRIVILEGES_H_
#define MMVLOG_CMD_PRIVILEGES_H_

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"

namespace mmvlog::cmd {

struct UserIdentity {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
};

// Looks `user` up (a name or a numeric uid). InvalidArgument naming it when
// there is no such user.
absl::StatusOr<UserIdentity> LookUpUser(const std::string& user);

// setgroups (USER's supplementary groups without group 0), setgid, setuid,
// then checks that root cannot be regained (setuid(0) must fail). Only
// when running as root; for anyone else it is an error unless they are USER
// already. Errors name the step and errno.
absl::Status DropPrivileges(const UserIdentity& user);

}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_PRIVILEGES_H_

// What the archive says about the host, as pmcd would report it: the label's
// host name and time zone, and the context labels pmcd adds (hostname,
// domainname, machineid) so pmseries and grafana-pcp see the same identity.
#ifndef MMVLOG_ARCHIVER_SESSION_HOST_IDENTITY_H_
#define MMVLOG_ARCHIVER_SESSION_HOST_IDENTITY_H_

#include <string>

namespace mmvlog::archiver {

struct HostIdentity {
  std::string hostname;    // gethostname(2)
  std::string domainname;  // the DNS domain, "" if none
  std::string machineid;   // /etc/machine-id, "" if unreadable
  std::string timezone;    // PCP style, e.g. "UTC" or "AEST-10"
  std::string zoneinfo;    // e.g. ":Etc/UTC", "" if unknown

  // The context label JSON pmcd sends, e.g.
  // {"domainname":"localdomain","hostname":"x","machineid":"..."}.
  std::string ContextLabels() const;
  // The same with the optional "groupid" and "userid" a local PCP context
  // adds (the logger's own ids), names sorted as PCP stores them.
  std::string ContextLabels(uint32_t userid, uint32_t groupid) const;
};

// Reads the identity of this machine (reads /etc/machine-id, /etc/localtime).
HostIdentity LocalHostIdentity();

}  // namespace mmvlog::archiver

#endif  // MMVLOG_ARCHIVER_SESSION_HOST_IDENTITY_H_

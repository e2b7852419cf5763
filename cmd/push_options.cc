#include "cmd/push_options.h"

#include <signal.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "archiver/push/credentials.h"
#include "archiver/push/push_url.h"
#include "cmd/common.h"
#include "format/text/size_spec.h"

namespace mmvlog::cmd {

constexpr char kDefaultSpoolSize[] = "64MB";

void AddAuthOptions(CLI::App* app, PushFlags* f, const char* group) {
  app->add_option("--user", f->user,
                  "USER:PASSWORD, HTTP Basic credentials for pmproxy's [pmlogger] authenticate "
                  "(seen in ps: prefer --credentials)")
      ->type_name("USER")
      ->group(group);
  app->add_option("--credentials", f->credentials,
                  "read USER:PASSWORD from this file (mode 600)")
      ->type_name("FILE")
      ->group(group);
  app->add_option("--client", f->client, "a name pmproxy echoes in its answers (?client=)")
      ->type_name("ID")
      ->group("");
}

void AddRecordPushOptions(CLI::App* app, PushFlags* f) {
  const char* kPush = "Push to pmproxy (ARCHIVE is http://HOST[:PORT], as pmlogger 7's)";
  app->add_option("--local", f->local,
                  "also keep the archive here (a name as ARCHIVE takes); else it is recorded "
                  "under --spool and removed once pushed")
      ->type_name("ARCHIVE")
      ->group(kPush);
  app->add_option("--spool", f->spool,
                  "directory for the push's state (and the archive without --local) (default: "
                  "--local's directory, else $PCP_TMP_DIR/mmvlog-push)")
      ->type_name("DIR")
      ->group(kPush);
  app->add_option("--spool-size", f->spool_size,
                  "records kept for pmproxy while it is away; past this the oldest are given up "
                  "and a <mark> stands at the gap")
      ->type_name("SIZE")
      ->default_str(kDefaultSpoolSize)
      ->group(kPush);
  app->add_option("--unix", f->unix_socket, "reach pmproxy through its Unix socket (pmproxy -s)")
      ->type_name("PATH")
      ->group(kPush);
  AddAuthOptions(app, f, kPush);
}

bool AnyPushFlag(const PushFlags& f) {
  return !f.local.empty() || !f.spool.empty() || !f.spool_size.empty() ||
         !f.unix_socket.empty() || !f.user.empty() || !f.credentials.empty() || !f.client.empty();
}

std::string DefaultSpoolDir() {
  return absl::StrCat(PcpConfValue("PCP_TMP_DIR", "/var/lib/pcp/tmp"), "/mmvlog-push");
}

absl::StatusOr<std::string> AuthorizationFromFlags(const PushFlags& f,
                                                   const std::string& url_userinfo) {
  const int given = !f.user.empty() + !f.credentials.empty() + !url_userinfo.empty();
  if (given > 1) {
    return absl::InvalidArgumentError(
        "credentials given more than once (--user, --credentials, USER:PASSWORD@ in the URL)");
  }
  std::string userinfo = !f.user.empty() ? f.user : url_userinfo;
  if (!f.credentials.empty()) {
    absl::StatusOr<std::string> c = archiver::ReadCredentialsFile(f.credentials);
    if (!c.ok()) return absl::InvalidArgumentError(absl::StrCat("--credentials: ", c.status().message()));
    userinfo = *c;
  }
  if (userinfo.empty()) return std::string();
  if (userinfo.find(':') == std::string::npos || userinfo[0] == ':') {
    return absl::InvalidArgumentError("--user: USER:PASSWORD wanted");
  }
  return archiver::BasicAuthorization(userinfo);
}

absl::StatusOr<RecordPush> RecordPushFromFlags(const PushFlags& f, const std::string& url) {
  absl::StatusOr<archiver::PushUrl> u = archiver::ParsePushUrl(url);
  if (!u.ok()) return u.status();
  RecordPush out;
  archiver::PusherOptions& o = out.pusher;
  o.endpoint = u->endpoint;
  o.endpoint.unix_socket = f.unix_socket;
  absl::StatusOr<std::string> auth = AuthorizationFromFlags(f, u->userinfo);
  if (!auth.ok()) return auth.status();
  o.http.authorization = *auth;
  o.client_id = f.client;
  absl::StatusOr<uint64_t> size =
      format::ParseByteSize(f.spool_size.empty() ? kDefaultSpoolSize : f.spool_size);
  if (!size.ok()) return absl::InvalidArgumentError(absl::StrCat("--spool-size: ", size.status().message()));
  if (*size == 0) return absl::InvalidArgumentError("--spool-size: 0 would keep nothing");
  o.push.spool_limit = *size;
  std::string spool = f.spool;
  if (!f.local.empty()) {
    out.local_archive = f.local;
    if (spool.empty()) {
      const size_t slash = f.local.rfind('/');
      spool = slash == std::string::npos ? "." : f.local.substr(0, std::max<size_t>(slash, 1));
    }
  } else {
    if (spool.empty()) spool = DefaultSpoolDir();
    out.local_archive = absl::StrCat(spool, "/%Y%m%d.%H.%M");
    out.spool_only = true;
    o.remove_pushed = true;
    o.push.remove_sent_volumes = true;
  }
  o.state_path = absl::StrCat(spool, "/mmvlog-push.state");
  return out;
}

absl::Status StartPusher(archiver::LivePusher& pusher) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  absl::Status s = pusher.Start();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return s;
}

}  // namespace mmvlog::cmd

#include "cmd/push_options.h"

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

void AddTlsOptions(CLI::App* app, PushFlags* f, const char* group) {
  app->add_option("--ca-file", f->ca_file,
                  "trust the CA certificates in this PEM file instead of the system's (https)")
      ->type_name("FILE")
      ->group(group);
  app->add_option("--cert-file", f->cert_file,
                  "present this client certificate (PEM), for pmproxy's tls-verify-clients")
      ->type_name("FILE")
      ->group(group);
  app->add_option("--key-file", f->key_file, "the client certificate's private key (PEM)")
      ->type_name("FILE")
      ->group(group);
  app->add_flag("--insecure", f->insecure,
                "do not verify pmproxy's certificate (logged; for tests, never in production)")
      ->group(group);
  app->add_flag("--allow-plaintext-auth", f->allow_plaintext_auth,
                "send credentials over plain http:// anyway (they cross the network in clear)")
      ->group(group);
}

absl::Status SetTransport(const PushFlags& f, bool password_on_command_line, archiver::PusherOptions* o,
                          std::vector<std::string>* warnings) {
  const bool tls = o->endpoint.tls;
  if (!tls && (!f.ca_file.empty() || !f.cert_file.empty() || !f.key_file.empty() || f.insecure)) {
    return absl::InvalidArgumentError(
        "--ca-file, --cert-file, --key-file and --insecure are for https:// (or push --tls)");
  }
  if (tls) {
    archiver::TlsOptions t;
    t.ca_file = f.ca_file;
    t.cert_file = f.cert_file;
    t.key_file = f.key_file;
    t.insecure = f.insecure;
    absl::StatusOr<std::shared_ptr<archiver::TlsContext>> context = archiver::TlsContext::Create(t);
    if (!context.ok()) return absl::InvalidArgumentError(context.status().message());
    o->http.tls = *std::move(context);
    if (f.insecure) {
      warnings->push_back(absl::StrCat("--insecure: the certificate of ", o->endpoint.ToString(),
                                       " is not verified; anyone in between can read and change "
                                       "the push"));
    }
  }
  if (!o->http.authorization.empty()) {
    if (password_on_command_line) {
      warnings->push_back("a password on the command line (the URL, --user) is seen by anyone "
                          "on this host (ps): prefer --credentials FILE");
    }
    // A Unix socket stays on this host: nothing crosses a network there.
    if (!tls && o->endpoint.unix_socket.empty()) {
      if (!f.allow_plaintext_auth) {
        return absl::InvalidArgumentError(absl::StrCat(
            "credentials over http:// would cross the network in clear to ",
            o->endpoint.ToString(), ": use https:// (push: --tls), or --allow-plaintext-auth"));
      }
      warnings->push_back(absl::StrCat("--allow-plaintext-auth: the credentials go to ",
                                       o->endpoint.ToString(), " in clear"));
    }
  }
  return absl::OkStatus();
}

void AddRecordPushOptions(CLI::App* app, PushFlags* f) {
  const char* kPush = "Push to pmproxy (ARCHIVE is http[s]://HOST[:PORT], as pmlogger 7's)";
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
  AddTlsOptions(app, f, kPush);
}

bool AnyPushFlag(const PushFlags& f) {
  return !f.local.empty() || !f.spool.empty() || !f.spool_size.empty() ||
         !f.unix_socket.empty() || !f.user.empty() || !f.credentials.empty() ||
         !f.client.empty() || !f.ca_file.empty() || !f.cert_file.empty() || !f.key_file.empty() ||
         f.insecure || f.allow_plaintext_auth;
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
  if (absl::Status s = SetTransport(f, !u->userinfo.empty() || !f.user.empty(), &o, &out.warnings); !s.ok()) return s;
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

}  // namespace mmvlog::cmd

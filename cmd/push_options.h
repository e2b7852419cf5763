// Options for pushing to pmproxy (PCP >= 7), shared by `mmvlog push` (as
// pmlogpush(1) spells them: -h HOST, -p PORT, -s UNIXSOCKET) and by
// `mmvlog record ... http://HOST[:PORT]` (as pmlogger 7 takes its archive
// name; there -h, -p and -s are pmlogger's, so the socket is --unix), and
// their translation into archiver::PusherOptions.
#ifndef MMVLOG_CMD_PUSH_OPTIONS_H_
#define MMVLOG_CMD_PUSH_OPTIONS_H_

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "archiver/push/live_pusher.h"
#include "archiver/push/pusher.h"

namespace mmvlog::cmd {

struct PushFlags {
  std::string unix_socket;   // -s (push) / --unix (record)
  std::string user;          // --user USER:PASSWORD
  std::string credentials;   // --credentials FILE
  std::string spool;         // --spool DIR
  std::string spool_size;    // --spool-size SIZE (record)
  std::string local;         // --local ARCHIVE (record)
  std::string client;        // --client ID
  // TLS (https://, or push --tls) and the rules for credentials.
  bool tls = false;          // --tls (push: -h/-p over https)
  std::string ca_file;       // --ca-file FILE
  std::string cert_file;     // --cert-file FILE
  std::string key_file;      // --key-file FILE
  bool insecure = false;     // --insecure
  bool allow_plaintext_auth = false;  // --allow-plaintext-auth
};

// record's: --local, --spool, --spool-size, --unix, --user, --credentials,
// --client. push declares its own -h/-p/-s and calls AddAuthOptions.
void AddRecordPushOptions(CLI::App* app, PushFlags* f);
void AddAuthOptions(CLI::App* app, PushFlags* f, const char* group);
// --ca-file, --cert-file, --key-file, --insecure, --allow-plaintext-auth.
void AddTlsOptions(CLI::App* app, PushFlags* f, const char* group);

// How the push reaches `endpoint` (its tls already set from the URL or
// --tls): the TLS context from --ca-file, --cert-file, --key-file and
// --insecure, and the credentials' rule: over plain http:// to a host they
// are refused unless --allow-plaintext-auth. `warnings` gets what the user
// should read (--insecure, --allow-plaintext-auth, a password on the
// command line).
// InvalidArgument naming the option for anything wrong.
absl::Status SetTransport(const PushFlags& f, bool password_on_command_line, archiver::PusherOptions* o,
                          std::vector<std::string>* warnings);

// The spool directory when --spool is not given and there is no --local
// archive: $PCP_TMP_DIR/mmvlog-push (PCP_TMP_DIR as PCP finds it).
std::string DefaultSpoolDir();

// The Authorization header for --user, --credentials or the URL's
// USER:PASSWORD@ ("" for none). Errors: both given, a bad --user, the
// credentials file's (ReadCredentialsFile).
absl::StatusOr<std::string> AuthorizationFromFlags(const PushFlags& f,
                                                   const std::string& url_userinfo);

// For `mmvlog record ... URL`: what to record into and how to push it.
struct RecordPush {
  archiver::PusherOptions pusher;
  // The local archive (a name template, as record's ARCHIVE): --local's,
  // else one under the spool directory, which is then only a spool.
  std::string local_archive;
  bool spool_only = false;
  std::vector<std::string> warnings;  // to log (SetTransport)
};
// InvalidArgument naming the option for anything wrong.
absl::StatusOr<RecordPush> RecordPushFromFlags(const PushFlags& f, const std::string& url);

// Whether any push option was given (they need an http:// archive).
bool AnyPushFlag(const PushFlags& f);


}  // namespace mmvlog::cmd

#endif  // MMVLOG_CMD_PUSH_OPTIONS_H_

// mmvlog push [URL] ARCHIVE: pushes a finished archive to pmproxy (PCP >=
// 7), as pmlogpush(1) does and with its options (-h HOST, -p PORT, -s
// UNIXSOCKET), reading any compression mmvlog reads, in bodies under
// pmproxy's limit. Over TLS with --tls (or a https:// URL in place of -h
// and -p), which pmlogpush cannot.
// Unlike pmlogpush it can go on after a failure: what was acknowledged is
// saved in the spool directory, the failure says what was sent, and the
// same command run again goes on from there (in the same remote archive
// while pmproxy still knows it, else in a new one).
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "archiver/push/push_url.h"
#include "archiver/push/pusher.h"
#include "archiver/store/archive_reader.h"
#include "cmd/cli.h"
#include "cmd/common.h"
#include "cmd/push_options.h"
#include "cmd/subcommand.h"

namespace mmvlog::cmd {
namespace {

struct PushCommandFlags {
  PushFlags push;
  std::string host = "localhost";
  int port = 44322;
  bool verbose = false;
  bool restart = false;
  std::vector<std::string> args;  // [URL] ARCHIVE
};

// A stable name for the state of pushing `base` to `server` (FNV-1a: the
// same in every run, unlike std::hash).
std::string StateName(const std::string& base, const std::string& server) {
  uint64_t h = 0xcbf29ce484222325u;
  for (unsigned char c : absl::StrCat(base, "\n", server)) h = (h ^ c) * 0x100000001b3u;
  const size_t slash = base.rfind('/');
  return absl::StrFormat("%s.%016x.state", base.substr(slash == std::string::npos ? 0 : slash + 1), h);
}

std::string AbsolutePath(const std::string& p) {
  if (!p.empty() && p[0] == '/') return p;
  char cwd[4096];
  return ::getcwd(cwd, sizeof(cwd)) != nullptr ? absl::StrCat(cwd, "/", p) : p;
}

std::string Sent(const archiver::PushState& s) {
  if (s.bytes == 0) return "nothing";
  return absl::StrCat(".meta to byte ", s.meta, ", .index to byte ", s.index, ", volume ", s.volume,
                      " to byte ", s.data, " (", s.records, " records, ", s.bytes, " bytes)",
                      s.logid != 0 ? absl::StrCat(" in remote archive ", s.logid) : "");
}

int RunPush(PushCommandFlags& f) {
  const std::string& archive = f.args.back();
  archiver::PusherOptions o;
  o.endpoint.host = f.host;
  o.endpoint.port = f.port;
  o.endpoint.tls = f.push.tls;
  std::string userinfo;
  if (f.args.size() == 2) {
    if (!archiver::IsPushUrl(f.args[0])) {
      return UsageError("push", absl::StrCat("'", f.args[0], "': a pmproxy URL "
                                             "(http[s]://HOST[:PORT]) wanted before the archive"));
    }
    absl::StatusOr<archiver::PushUrl> u = archiver::ParsePushUrl(f.args[0]);
    if (!u.ok()) return UsageError("push", u.status().message());
    o.endpoint = u->endpoint;
    o.endpoint.tls = u->endpoint.tls || f.push.tls;
    userinfo = u->userinfo;
  }
  o.endpoint.unix_socket = f.push.unix_socket;
  const std::string base = AbsolutePath(archiver::ArchiveBaseName(archive));
  if (!archiver::ArchiveFileExists(base, ".meta")) {
    std::fprintf(stderr, "mmvlog push: %s: no such archive (no .meta)\n", archive.c_str());
    return kExitFailure;
  }
  absl::StatusOr<std::string> auth = AuthorizationFromFlags(f.push, userinfo);
  if (!auth.ok()) return UsageError("push", auth.status().message());
  o.http.authorization = *auth;
  std::vector<std::string> warnings;
  if (absl::Status s = SetTransport(f.push, !userinfo.empty() || !f.push.user.empty(), &o,
                                    &warnings);
      !s.ok()) {
    return UsageError("push", s.message());
  }
  for (const std::string& w : warnings) LogLine(archiver::LogLevel::kWarning, w);
  o.client_id = f.push.client;
  o.keep_trying = false;
  o.push.stop = [] { return g_stop.load(); };
  const std::string spool = f.push.spool.empty() ? DefaultSpoolDir() : f.push.spool;
  for (size_t at = spool.find('/', 1); at != std::string::npos; at = spool.find('/', at + 1)) {
    (void)::mkdir(spool.substr(0, at).c_str(), 0755);
  }
  (void)::mkdir(spool.c_str(), 0755);
  o.state_path = absl::StrCat(spool, "/", StateName(base, o.endpoint.ToString()));
  if (f.restart) (void)::unlink(o.state_path.c_str());
  const bool verbose = f.verbose;
  archiver::Pusher pusher(o, [verbose](archiver::LogLevel level, const std::string& line) {
    if (verbose || level != archiver::LogLevel::kInfo) LogLine(level, line);
  });
  if (absl::Status s = pusher.Resume(); !s.ok()) {
    std::fprintf(stderr, "mmvlog push: %s (--restart ignores it)\n", std::string(s.message()).c_str());
    return kExitFailure;
  }
  pusher.Add(base);
  pusher.FinishAll();
  InstallStopSignals();
  while (!pusher.done() && pusher.error().ok() && !g_stop.load()) (void)pusher.Step(absl::Now());
  const archiver::ArchivePush* left = pusher.current();
  const archiver::Pusher::Totals t = pusher.totals();
  if (pusher.done()) {
    (void)pusher.SaveState(true);
    std::printf("pushed %s to %s: %llu records, %llu bytes\n", base.c_str(),
                o.endpoint.ToString().c_str(), static_cast<unsigned long long>(t.records),
                static_cast<unsigned long long>(t.bytes));
    return kExitOk;
  }
  const absl::Status saved = pusher.SaveState(true);
  const std::string why = g_stop.load() ? "interrupted" : std::string(pusher.error().message());
  std::fprintf(stderr, "mmvlog push: %s\nmmvlog push: sent %s; %s\n", why.c_str(),
               left != nullptr ? Sent(left->state()).c_str() : "nothing",
               saved.ok() ? absl::StrCat("run the same command again to go on from there (state "
                                         "in ", o.state_path, ")").c_str()
                          : absl::StrCat("the state could not be saved: ", saved.message()).c_str());
  return kExitFailure;
}

}  // namespace

Runner DefinePush(CLI::App* app) {
  auto f = std::make_shared<PushCommandFlags>();
  app->set_help_flag("--help", "print this help and exit");  // -h is the host, as pmlogpush's
  const char* kServer = "pmproxy (as pmlogpush)";
  app->add_option("-h,--host", f->host, "pmproxy's host")
      ->type_name("HOST")
      ->capture_default_str()
      ->group(kServer);
  app->add_option("-p,--port", f->port, "pmproxy's HTTP port")
      ->type_name("PORT")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535))
      ->group(kServer);
  app->add_option("-s,--unix", f->push.unix_socket, "pmproxy's Unix socket instead of HOST:PORT")
      ->type_name("PATH")
      ->group(kServer);
  app->add_flag("--tls", f->push.tls, "speak HTTPS to pmproxy (as a https:// URL does)")
      ->group(kServer);
  AddAuthOptions(app, &f->push, kServer);
  AddTlsOptions(app, &f->push, kServer);
  const char* kResume = "Resuming";
  app->add_option("--spool", f->push.spool,
                  "keep the push's state here, to go on after a failure (default: "
                  "$PCP_TMP_DIR/mmvlog-push)")
      ->type_name("DIR")
      ->group(kResume);
  app->add_flag("--restart", f->restart, "push from the start, ignoring a saved state")
      ->group(kResume);
  app->add_flag("-v,--verbose", f->verbose, "say what is pushed where")->group("Other");
  app->add_option("archive", f->args, "[URL] ARCHIVE: the archive to push (URL: "
                                      "http[s]://[USER:PASSWORD@]HOST[:PORT] in place of -h and -p)")
      ->required()
      ->expected(1, 2)
      ->type_name("")
      ->group("");
  return [f](const Invocation&) { return RunPush(*f); };
}

}  // namespace mmvlog::cmd

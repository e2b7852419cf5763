"""Pushing over TLS to PCP 7.2's pmproxy (built with secure sockets): the
certificate verified, credentials only over TLS, redirects, nothing lost.

PCP 7.2 (tests/pcp/pcp7.py), private redis-servers and pmproxy 7.2s are
started, restarted and stopped here; a CA, a second CA and certificates are
made with openssl(1) for each run. MMV files from the real libpcp_mmv.
Shown:
- `record -t 100msec -s 30 --ca-file CA https://127.0.0.1:PORT`: every
  sample in pmproxy's copy (the local archive, byte for byte), clean to
  7.2's pmlogcheck, a series in the key server for every metric with values;
- a server certificate from another CA, an expired one and one for another
  name (by IP address and by host name) are each refused with the reason;
  nothing reaches pmproxy, what was being pushed stays in the spool and goes
  once the certificate is fixed, by `push` run again and by a `record` that
  kept recording meanwhile;
- `tls-verify-clients`: refused without a client certificate, pushed with
  one; `[pmlogger] authenticate = true` over TLS: refused without
  credentials, pushed with them; credentials over plain http:// refused
  unless --allow-plaintext-auth (which warns); --insecure warns;
- records and metadata larger than a TLS record (16 KiB) arrive whole, by
  `push` and by `record` (pmproxy 7.2 decrypts one TLS record per read of
  its socket, so mmvlog sends each request as one record);
- a redirect to another pmproxy is followed; one from https to http is not;
- the bytes on the wire (a relay in between) hold no credential and no
  metric name in clear over https://, and hold both over http:// (so the
  capture would see them).
"""

import base64
import os
import signal
import socket
import ssl
import subprocess
import threading
import time
import unittest

import cmdtest
import keyserver
import pcp7
import pushtest

MAKE_MMV_FILE = cmdtest.runfile("bench/make_mmv_file")
SECRET_USER = "wireuser"
SECRET_PASSWORD = "wire-Pa55-7f3a9c"
METRIC_WORD = b"requests.total"


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Certificates:
    """Two CAs and certificates signed by them, as PEM files in `root`."""

    def __init__(self, root):
        self.root = root
        os.makedirs(root, exist_ok=True)
        for ca in ("ca", "other_ca"):
            openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", ca + ".key", "-out", ca + ".crt", "-subj", "/CN=" + ca,
                    "-days", "2", cwd=root)
        self.ca = self.path("ca.crt")
        local = "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
        self.good = self.make("good", "ca", local)
        self.from_other_ca = self.make("from_other_ca", "other_ca", local)
        self.expired = self.make("expired", "ca", local, days=-1)
        self.other_name = self.make("other_name", "ca",
                                    "subjectAltName=IP:10.9.8.7,DNS:elsewhere.example\n")
        self.client = self.make("client", "ca", "extendedKeyUsage=clientAuth\n")

    def path(self, name):
        return os.path.join(self.root, name)

    def make(self, name, ca, extensions, days=2):
        with open(self.path(name + ".ext"), "w") as f:
            f.write(extensions)
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + name,
                cwd=self.root)
        openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
                "-CAcreateserial", "-out", name + ".crt", "-days", str(days),
                "-extfile", name + ".ext", cwd=self.root)
        return {"cert": self.path(name + ".crt"), "key": self.path(name + ".key")}


class Relay:
    """A TCP relay on 127.0.0.1 to `port` keeping every byte it carries."""

    def __init__(self, port):
        self.target = port
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.seen = bytearray()
        self.lock = threading.Lock()
        self.stopped = False
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while not self.stopped:
            try:
                a, _ = self.listener.accept()
            except OSError:
                return
            b = socket.create_connection(("127.0.0.1", self.target))
            for src, dst in ((a, b), (b, a)):
                threading.Thread(target=self.pipe, args=(src, dst), daemon=True).start()

    def pipe(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                with self.lock:
                    self.seen += data
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def stop(self):
        self.stopped = True
        self.listener.close()


class Redirector:
    """An HTTPS (or HTTP) server answering every request with 307 to
    `location` + the request's target."""

    def __init__(self, location, tls=None):
        self.location = location
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.context = None
        if tls:
            self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.context.load_cert_chain(tls["cert"], tls["key"])
        self.requests = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                c, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.answer, args=(c,), daemon=True).start()

    def answer(self, c):
        try:
            if self.context:
                c = self.context.wrap_socket(c, server_side=True)
            buf = b""
            while True:
                while b"\r\n\r\n" not in buf:
                    data = c.recv(65536)
                    if not data:
                        return
                    buf += data
                head, _, rest = buf.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(rest) < length:
                    rest += c.recv(65536)
                buf = rest[length:]
                target = head.split(b" ")[1].decode()
                self.requests += 1
                c.sendall(("HTTP/1.1 307 Temporary Redirect\r\nLocation: %s%s\r\n"
                           "Content-Length: 0\r\n\r\n" % (self.location, target)).encode())
        except (OSError, ssl.SSLError):
            pass
        finally:
            c.close()

    def stop(self):
        self.listener.close()


class PushTlsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        pcp7.require()
        cls.root = cmdtest.fresh_dir("push_tls")
        cls.certs = Certificates(os.path.join(cls.root, "certs"))
        cls.files = cmdtest.MmvFiles(cls.root, files=(("bravo", "v3", 11, 0),))
        cls.archive = os.path.join(cls.root, "captured", "a")
        os.makedirs(os.path.dirname(cls.archive))
        p = cmdtest.run([cmdtest.MMVLOG, "capture", "-t", "50msec", "-s", "5",
                         "--mmv-dir", cls.files.mmv_dir, "--no-progress", cls.archive],
                        env=cls.files.env)
        if p.returncode != 0:
            raise AssertionError(cmdtest.describe(p))
        cls.creds = os.path.join(cls.root, "creds")
        with open(cls.creds, "w") as f:
            f.write("%s:%s\n" % (SECRET_USER, SECRET_PASSWORD))
        os.chmod(cls.creds, 0o600)
        cls.servers = []
        cls.count = 0

    @classmethod
    def tearDownClass(cls):
        for s in cls.servers:
            s.stop()

    def server(self, name, tls, **kw):
        s = pushtest.Server(os.path.join(self.root, name), tls=tls, **kw)
        self.servers.append(s)
        return s

    def fresh(self, name):
        PushTlsTest.count += 1
        return os.path.join(self.root, "%s_%d" % (name, self.count))

    def push(self, *args, spool=None):
        spool = spool or self.fresh("spool")
        return cmdtest.run([cmdtest.MMVLOG, "push", "--spool", spool] + list(args),
                           env=dict(os.environ, PCP_TMP_DIR=self.root))

    def record(self, url, local, log, *args):
        return subprocess.Popen(
            [cmdtest.MMVLOG, "record", "--mmv-dir", self.files.mmv_dir, "--local", local,
             "-l", log, "-t", "100msec"] + list(args) + [url],
            env=self.files.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def read(self, path):
        try:
            with open(path) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def test_record_over_https_every_sample(self):
        server = self.server("every", self.certs.good)
        local = os.path.join(self.fresh("every_local"), "a")
        log = self.fresh("every.log")
        p = self.record(server.https, local, log, "-s", "30", "--ca-file", self.certs.ca)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err + self.read(log))
        self.assertIn("30 samples", err + self.read(log))
        (remote,) = server.archives()
        pushtest.same_files(self, remote, local)
        self.assertEqual(len([r for r in pushtest.records(remote) if "<mark>" not in r[1]]),
                         30 + 2)  # and the prologue and epilogue
        pushtest.check(self, remote)
        names = pushtest.metrics_with_values(local)
        self.assertTrue(names)
        keyserver.wait_for("a series for every metric with values",
                           lambda: all(server.series(n) for n in names), 20)

    def test_records_and_metadata_larger_than_a_tls_record(self):
        root = self.fresh("large")
        mmv = os.path.join(root, "mmv")
        os.makedirs(mmv)
        # 100,000 U64 counters in 1,000 metrics: a record of about 2 MB and a
        # .meta of about 55 KB, each over many TLS records.
        subprocess.run([MAKE_MMV_FILE, mmv, "100000"], check=True, stdout=subprocess.DEVNULL)
        env = dict(os.environ, PCP_TMP_DIR=root)
        archive = os.path.join(root, "captured", "a")
        os.makedirs(os.path.dirname(archive))
        p = cmdtest.run([cmdtest.MMVLOG, "capture", "-t", "50msec", "-s", "3", "--mmv-dir", mmv,
                         "--no-progress", archive], env=env)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        self.assertGreater(os.path.getsize(archive + ".meta"), 3 * 16384)
        self.assertGreater(os.path.getsize(archive + ".0"), 3 * 100000 * 8)
        server = self.server("large", self.certs.good)
        p = self.push(server.https, archive, "--ca-file", self.certs.ca)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        (remote,) = server.archives()
        pushtest.same_files(self, remote, archive)
        pushtest.check(self, remote)
        # Live: 5,000 values (a 100 KB record) every 100 ms.
        mmv = os.path.join(root, "mmv5k")
        os.makedirs(mmv)
        subprocess.run([MAKE_MMV_FILE, mmv, "5000"], check=True, stdout=subprocess.DEVNULL)
        local = os.path.join(root, "live", "a")
        log = os.path.join(root, "live.log")
        p = subprocess.Popen(
            [cmdtest.MMVLOG, "record", "--mmv-dir", mmv, "--local", local, "-l", log, "-t",
             "100msec", "-s", "20", "--ca-file", self.certs.ca, server.https],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err + self.read(log))
        self.assertNotIn("warning", err + self.read(log))
        live = [r for r in server.archives() if r != remote]
        self.assertEqual(len(live), 1, server.archives())
        pushtest.same_files(self, live[0], local)
        pushtest.check(self, live[0])

    def test_push_by_host_name_and_by_url(self):
        server = self.server("names", self.certs.good)
        p = self.push("--tls", "-h", "localhost", "-p", str(server.port),
                      "--ca-file", self.certs.ca, self.archive)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        self.assertIn("https://localhost:%d" % server.port, p.stdout)
        p = self.push(server.https, self.archive, "--ca-file", self.certs.ca)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        for remote in server.archives():
            pushtest.same_files(self, remote, self.archive)
        self.assertEqual(len(server.archives()), 2)

    def test_refused_certificates_keep_the_push_until_fixed(self):
        server = self.server("refused", self.certs.from_other_ca)
        spool = self.fresh("refused_spool")
        cases = [
            (self.certs.from_other_ca, "127.0.0.1", "unable to get local issuer certificate"),
            (self.certs.expired, "127.0.0.1", "certificate has expired"),
            (self.certs.other_name, "127.0.0.1", "IP address mismatch"),
            (self.certs.other_name, "localhost", "hostname mismatch"),
        ]
        for cert, host, why in cases:
            server.restart(tls=cert)
            p = self.push("--tls", "-h", host, "-p", str(server.port), "--ca-file", self.certs.ca,
                          self.archive, spool=spool)
            self.assertEqual(p.returncode, 1, cmdtest.describe(p))
            self.assertIn("the server's certificate is refused: " + why, p.stderr)
            self.assertEqual(server.archives(), [], why)
        # Without --ca-file the system's trust store does not know the CA.
        p = self.push(server.https, self.archive, spool=spool)
        self.assertIn("unable to get local issuer certificate", p.stderr)
        server.restart(tls=self.certs.good)
        p = self.push(server.https, "--ca-file", self.certs.ca, self.archive, spool=spool)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        (remote,) = server.archives()
        pushtest.same_files(self, remote, self.archive)

    def test_record_keeps_recording_while_the_certificate_is_wrong(self):
        server = self.server("recording", self.certs.other_name)
        local = os.path.join(self.fresh("recording_local"), "a")
        log = self.fresh("recording.log")
        p = self.record(server.https, local, log, "--ca-file", self.certs.ca)
        try:
            keyserver.wait_for("the refusal in the log",
                               lambda: "IP address mismatch" in self.read(log), 20)
            time.sleep(1.0)
            self.assertEqual(server.archives(), [])
            server.restart(tls=self.certs.good)
            keyserver.wait_for("the archive at pmproxy", lambda: server.archives(), 30)
            time.sleep(1.5)
        finally:
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        (remote,) = server.archives()
        pushtest.same_files(self, remote, local)
        pushtest.check(self, remote)
        self.assertNotIn(SECRET_PASSWORD, self.read(log))

    def test_client_certificates(self):
        tls = dict(self.certs.good, ca=self.certs.ca, verify_clients=True)
        server = self.server("clients", tls)
        p = self.push(server.https, "--ca-file", self.certs.ca, self.archive)
        self.assertEqual(p.returncode, 1, cmdtest.describe(p))
        self.assertEqual(server.archives(), [])
        p = self.push(server.https, "--ca-file", self.certs.ca,
                      "--cert-file", self.certs.client["cert"],
                      "--key-file", self.certs.client["key"], self.archive)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        (remote,) = server.archives()
        pushtest.same_files(self, remote, self.archive)
        # A key that is not the certificate's is a usage error, said at once.
        p = self.push(server.https, "--ca-file", self.certs.ca,
                      "--cert-file", self.certs.client["cert"],
                      "--key-file", self.certs.good["key"], self.archive)
        self.assertEqual(p.returncode, 2, cmdtest.describe(p))
        self.assertIn("not the key of " + self.certs.client["cert"], p.stderr)

    def test_credentials(self):
        server = self.server("auth", self.certs.good, authenticate=True)
        p = self.push(server.https, "--ca-file", self.certs.ca, self.archive)
        self.assertEqual(p.returncode, 1, cmdtest.describe(p))
        self.assertIn("HTTP 403", p.stderr)
        p = self.push(server.https, "--ca-file", self.certs.ca, "--credentials", self.creds,
                      self.archive)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        self.assertNotIn(SECRET_PASSWORD, p.stdout + p.stderr)
        # In clear: refused, unless asked for (then a warning).
        p = self.push(server.url, "--credentials", self.creds, self.archive)
        self.assertEqual(p.returncode, 2, cmdtest.describe(p))
        self.assertIn("would cross the network in clear", p.stderr)
        p = self.push(server.url, "--credentials", self.creds, "--allow-plaintext-auth",
                      self.archive)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        self.assertIn("in clear", p.stderr)
        # In the URL, percent-encoded: taken, with a warning about ps(1).
        url = "https://%s:%s@127.0.0.1:%d" % (SECRET_USER, "wire%2DPa55-7f3a9c", server.port)
        p = self.push(url, "--ca-file", self.certs.ca, self.archive)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        self.assertIn("(ps)", p.stderr)
        self.assertEqual(len(server.archives()), 3)
        # --insecure: no verification (the CA is not given), said.
        p = self.push(server.https, "--insecure", "--credentials", self.creds, self.archive)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        self.assertIn("--insecure", p.stderr)

    def test_redirects(self):
        server = self.server("target", self.certs.good)
        there = Redirector("https://127.0.0.1:%d" % server.port, tls=self.certs.good)
        try:
            p = self.push("https://127.0.0.1:%d" % there.port, "--ca-file", self.certs.ca,
                          self.archive)
            self.assertEqual(p.returncode, 0, cmdtest.describe(p))
            self.assertGreaterEqual(there.requests, 4)  # label, meta, index, volume
            (remote,) = server.archives()
            pushtest.same_files(self, remote, self.archive)
        finally:
            there.stop()
        clear = Redirector("http://127.0.0.1:%d" % server.port, tls=self.certs.good)
        try:
            p = self.push("https://127.0.0.1:%d" % clear.port, "--ca-file", self.certs.ca,
                          self.archive)
            self.assertEqual(p.returncode, 1, cmdtest.describe(p))
            self.assertIn("a redirect from https to http://127.0.0.1", p.stderr)
            self.assertIn("refused", p.stderr)
            self.assertEqual(len(server.archives()), 1)
        finally:
            clear.stop()

    def test_nothing_in_clear_on_the_wire(self):
        server = self.server("wire", self.certs.good, authenticate=True)
        basic = base64.b64encode(("%s:%s" % (SECRET_USER, SECRET_PASSWORD)).encode())
        secrets = [basic, METRIC_WORD, b"mmv.bravo", b"Authorization: Basic"]
        seen = {}
        for scheme in ("https", "http"):
            relay = Relay(server.port)
            try:
                local = os.path.join(self.fresh("wire_local"), "a")
                log = self.fresh("wire.log")
                extra = ["--ca-file", self.certs.ca] if scheme == "https" else \
                    ["--allow-plaintext-auth"]
                p = subprocess.Popen(
                    [cmdtest.MMVLOG, "record", "--mmv-dir", self.files.mmv_dir, "--local", local,
                     "-l", log, "-t", "100msec", "-s", "10", "--credentials", self.creds]
                    + extra + ["%s://localhost:%d" % (scheme, relay.port)],
                    env=self.files.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                    text=True)
                _, err = p.communicate(timeout=60)
                self.assertEqual(p.returncode, 0, err)
            finally:
                relay.stop()
            with relay.lock:
                seen[scheme] = bytes(relay.seen)
            self.assertGreater(len(seen[scheme]), 1000, scheme)
        for s in secrets:
            self.assertTrue(s in seen["http"], "the capture would see %r in clear" % s)
            self.assertFalse(s in seen["https"], "%r crossed the wire in clear" % s)
        for s in (SECRET_PASSWORD.encode(), SECRET_USER.encode(), b"POST /logger", b"HTTP/1.1"):
            self.assertFalse(s in seen["https"], "%r crossed the wire in clear" % s)
        self.assertEqual(len(server.archives()), 2)


if __name__ == "__main__":
    unittest.main()

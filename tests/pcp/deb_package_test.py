"""The Debian package and its service, as a PCP user installs and runs them.

bazel/build-deb.sh packages the mmvlog binary; the package is installed with
dpkg on this machine, its files and maintainer scripts checked (the pcp user
and group, the archive folder), its unit verified by `systemd-analyze
verify` and rated by `systemd-analyze security` (at most 2.0, beside
Debian's pmlogger.service), lintian finds no error, and the unit's ExecStart
line runs as the unit would run it: as its user, with its environment
(Environment=, then /etc/default/mmvlog, then a drop-in's overrides) and
NOTIFY_SOCKET pointed at a socket this test reads. What must arrive: READY=1
first; WATCHDOG=1 at least every half of WATCHDOG_USEC although samples are
ten minutes apart; RELOADING=1 and READY=1 on SIGHUP; STOPPING=1 on SIGTERM,
then exit 0. PCP 6.0.3 (pmlogcheck, pmval, pmrep) must read every archive and
volume left, compressed as the PCP here reads (xz for 6.0.3). The package is
then removed (the archives stay) and purged (/etc/default/mmvlog goes); the
test never leaves it installed.

Runs as root, unsandboxed and alone (it installs a package).
"""

import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
import unittest


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
WRITER = runfile("tests/pcp/pcp_mmv_writer")
BUILD_DEB = runfile("bazel/build-deb.sh")
UNIT = "/lib/systemd/system/mmvlog.service"
PY = "/usr/bin/python3"


def run(args, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 300)
    return subprocess.run(args, **kw)


def unit_environment(unit_text, defaults_path, overrides):
    """The environment systemd gives ExecStart: Environment= lines, then
    EnvironmentFile=, then `overrides` (a drop-in's Environment=)."""
    env = {}
    for line in unit_text.splitlines():
        if line.startswith("Environment="):
            for word in line[len("Environment="):].split():
                k, _, v = word.partition("=")
                env[k] = v
    for line in open(defaults_path).read().splitlines():
        m = re.match(r"^([A-Z_][A-Z0-9_]*)=(.*)$", line.strip())
        if m:
            env[m.group(1)] = m.group(2).strip('"')
    env.update(overrides)
    return env


def exec_start(unit_text, env):
    """ExecStart's words as systemd expands them: ${VAR} in place, a bare
    $VAR split into words."""
    line = next(l for l in unit_text.splitlines() if l.startswith("ExecStart="))
    words = []
    for word in line[len("ExecStart="):].split():
        if re.fullmatch(r"\$[A-Z_][A-Z0-9_]*", word):
            words.extend(env.get(word[1:], "").split())
        else:
            words.append(re.sub(r"\$\{([A-Z_][A-Z0-9_]*)\}", lambda m: env.get(m.group(1), ""), word))
    return words


def installed():
    p = run(["dpkg-query", "-W", "-f=${Status}", "mmvlog"])
    return p.returncode == 0 and "installed" in p.stdout


class DebPackageTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("installs a package: needs root")
        # dpkg and the maintainer scripts need root's PATH (ldconfig, useradd).
        os.environ["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        if installed():
            raise AssertionError("mmvlog is installed already: this test would remove it")
        cls.out = tempfile.mkdtemp(prefix="mmvlog-deb-")
        p = run(["bash", BUILD_DEB, "--binary", MMVLOG, cls.out])
        if p.returncode != 0:
            raise AssertionError("build-deb.sh: %s" % p.stderr)
        cls.deb = p.stdout.strip().splitlines()[-1]
        # What the test records, where the pcp user can reach it.
        cls.root = tempfile.mkdtemp(prefix="mmvlog-svc-")
        os.chmod(cls.root, 0o755)

    @classmethod
    def tearDownClass(cls):
        if installed():
            run(["dpkg", "--purge", "mmvlog"])
        shutil.rmtree(getattr(cls, "root", "/nonexistent"), ignore_errors=True)
        shutil.rmtree(getattr(cls, "out", "/nonexistent"), ignore_errors=True)

    def test_package_lifecycle_and_service(self):
        # lintian: no error (warnings and notes are printed for the record).
        p = run(["lintian", "--no-tag-display-limit", self.deb])
        self.assertNotRegex(p.stdout, r"(?m)^E: ", p.stdout)

        p = run(["dpkg", "-i", self.deb])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        try:
            self.check_installed()
            self.check_unit()
            self.check_service_run()
        finally:
            p = run(["dpkg", "--remove", "mmvlog"])
            self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists("/usr/bin/mmvlog"))
        self.assertTrue(os.path.exists("/etc/default/mmvlog"), "remove keeps the settings")
        self.assertTrue(os.listdir(os.path.join(self.root, "archives")), "remove keeps archives")
        p = run(["dpkg", "--purge", "mmvlog"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists("/etc/default/mmvlog"), "purge removes the settings")
        self.assertTrue(os.listdir(os.path.join(self.root, "archives")), "purge keeps archives")
        self.assertFalse(installed())

    def check_installed(self):
        for path in ("/usr/bin/mmvlog", "/usr/share/man/man1/mmvlog.1.gz", UNIT,
                     "/usr/share/bash-completion/completions/mmvlog", "/etc/default/mmvlog",
                     "/usr/share/doc/mmvlog/copyright"):
            self.assertTrue(os.path.exists(path), path)
        conffiles = run(["dpkg-query", "-W", "-f=${Conffiles}", "mmvlog"]).stdout
        self.assertIn("/etc/default/mmvlog", conffiles)
        pcp = pwd.getpwnam("pcp")
        st = os.stat("/var/log/pcp/mmvlog")
        self.assertEqual((st.st_uid, st.st_gid), (pcp.pw_uid, pcp.pw_gid))
        self.assertEqual(run(["/usr/bin/mmvlog", "--version"]).returncode, 0)

    def check_unit(self):
        p = run(["systemd-analyze", "verify", UNIT])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        rating = {}
        for unit in (UNIT, "/lib/systemd/system/pmlogger.service"):
            if not os.path.exists(unit):
                continue
            p = run(["systemd-analyze", "security", "--offline=true", unit])
            m = re.search(r"Overall exposure level for \S+: ([\d.]+)", p.stdout)
            self.assertTrue(m, p.stdout + p.stderr)
            rating[os.path.basename(unit)] = float(m.group(1))
        print("systemd-analyze security:", rating)
        self.assertLessEqual(rating["mmvlog.service"], 2.0)

    def run_service(self, overrides, seconds, hup_at=None):
        """Runs the unit's ExecStart as the unit would, for `seconds`
        (SIGHUP after `hup_at`), then SIGTERM; (returncode, stderr,
        [(time, notification)])."""
        unit = open(UNIT).read()
        argv = exec_start(unit, unit_environment(unit, "/etc/default/mmvlog", overrides))
        self.assertEqual(argv[:2], ["/usr/bin/mmvlog", "record"])
        sock_path = os.path.join(self.root, "notify.sock")
        if os.path.exists(sock_path):
            os.unlink(sock_path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(sock_path)
        os.chmod(sock_path, 0o777)
        sock.settimeout(0.1)
        child_env = {"PATH": "/usr/bin:/bin", "NOTIFY_SOCKET": sock_path,
                     "WATCHDOG_USEC": "1000000", "PCP_TMP_DIR": self.tmp, "LANG": "C.UTF-8"}
        proc = subprocess.Popen(["setpriv", "--reuid", "pcp", "--regid", "pcp", "--init-groups",
                                 "--"] + argv, env=child_env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        messages = []
        start = time.monotonic()

        def collect(until):  # seconds after the start
            while time.monotonic() < start + until:
                try:
                    messages.append((time.monotonic(), sock.recv(4096).decode()))
                except socket.timeout:
                    pass

        try:
            if hup_at is not None:
                collect(hup_at)
                proc.send_signal(1)  # SIGHUP: systemctl reload
            collect(seconds)
            proc.terminate()  # SIGTERM: systemctl stop
            _, err = proc.communicate(timeout=30)
            collect(time.monotonic() - start + 0.3)  # what it sent on the way out
        finally:
            if proc.poll() is None:
                proc.kill()
            sock.close()
        return proc.returncode, err, messages

    def check_service_run(self):
        self.tmp = os.path.join(self.root, "tmp")
        os.makedirs(os.path.join(self.tmp, "mmv"))
        os.chmod(self.tmp, 0o755)
        os.chmod(os.path.join(self.tmp, "mmv"), 0o755)
        w = run([WRITER, "app", "v2"], env=dict(os.environ, PCP_TMP_DIR=self.tmp))
        self.assertEqual(w.returncode, 0, w.stderr)
        os.chmod(os.path.join(self.tmp, "mmv", "app"), 0o644)
        pcp = pwd.getpwnam("pcp")
        mmv_dir = os.path.join(self.tmp, "mmv")
        # A drop-in's overrides: the test's directories, and samples ten
        # minutes apart, so that only the watchdog's own wake-ups ping.
        slow = os.path.join(self.root, "archives")
        os.makedirs(slow)
        os.chown(slow, pcp.pw_uid, pcp.pw_gid)
        rc, err, messages = self.run_service(
            {"MMVLOG_INTERVAL": "10min",
             "MMVLOG_OPTIONS": "--archive-dir=%s --mmv-dir=%s" % (slow, mmv_dir)}, 4.5, hup_at=3)
        self.assertEqual(rc, 0, err)
        texts = [m for _, m in messages]
        self.assertTrue(texts and texts[0].startswith("READY=1"), texts[:3])
        pings = [t for t, m in messages if "WATCHDOG=1" in m]
        self.assertGreaterEqual(len(pings), 7, texts)
        gaps = [b - a for a, b in zip(pings, pings[1:])]
        self.assertLessEqual(max(gaps), 0.75, gaps)  # half of WATCHDOG_USEC, and slack
        self.assertTrue(any("RELOADING=1" in m for m in texts), texts)
        after = texts[[i for i, m in enumerate(texts) if "RELOADING=1" in m][0]:]
        self.assertTrue(any(m.startswith("READY=1") for m in after), after)
        self.assertTrue(any("STATUS=" in m and "samples into" in m for m in texts), texts)
        self.assertIn("STOPPING=1", texts[-1])
        # Volumes switched often: every one left compressed as the PCP here
        # reads them (xz for 6.0.3), and read by PCP 6.0.3.
        fast = os.path.join(self.root, "volumes")
        os.makedirs(fast)
        os.chown(fast, pcp.pw_uid, pcp.pw_gid)
        rc, err, _ = self.run_service(
            {"MMVLOG_INTERVAL": "200msec",
             "MMVLOG_OPTIONS": "--archive-dir=%s --mmv-dir=%s -v 3" % (fast, mmv_dir)}, 2.5)
        self.assertEqual(rc, 0, err)
        files = sorted(os.listdir(fast))
        metas = [f for f in files if f.endswith(".meta")]
        self.assertEqual(len(metas), 1, files)
        base = os.path.join(fast, metas[0][:-5])
        self.assertGreaterEqual(len([f for f in files if re.match(r".*\.\d+\.xz$", f)]), 2, files)
        self.assertFalse([f for f in files if re.match(r".*\.\d+$", f)], files)
        pcp6 = dict(os.environ, TZ="UTC")
        pcp6.pop("PCP_CONF", None)
        p = run(["pmlogcheck", base], env=pcp6)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        p = run(["pmval", "-U", base, "mmv.app.requests.total"], env=pcp6)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreaterEqual(len(re.findall(r"(?m)^\d\d:\d\d:", p.stdout)), 5, p.stdout)
        p = run([PY, "/usr/bin/pmrep", "-a", base, "-o", "csv", "-u", "mmv.app"], env=pcp6)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreaterEqual(len(p.stdout.splitlines()), 5)

if __name__ == "__main__":
    unittest.main()

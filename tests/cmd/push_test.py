"""mmvlog push: a finished archive into PCP 7.2's pmproxy, against PCP's own
pmlogpush as the oracle.

A 3-volume archive is recorded by `mmvlog capture` from MMV files written by
the real libpcp_mmv; PCP 7.2 (tests/pcp/pcp7.py), private redis-servers and
pmproxy 7.2s are started and stopped here. Shown:
- `mmvlog push` of its .xz copy (volumes and .meta compressed) and
  `pmlogpush` of the plain one leave the same files on pmproxy's side (byte
  for byte, and pmlogdump 7.2 alike) and the same values in pmseries 7.2;
- a push stopped by a failure says what it sent, and the same command run
  again goes on: into the same remote archive while pmproxy knows it (then
  the remote copy is the local archive, byte for byte), into a new one when
  pmproxy was restarted (then the two remote archives hold every record
  once);
- [pmlogger] authenticate: refused without credentials, pushed with a
  credentials file (and never with one others can read); the Unix socket.
"""

import os
import shutil
import subprocess
import unittest

import cmdtest
import keyserver
import pcp7
import pushtest


class PushTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        pcp7.require()
        cls.root = cmdtest.fresh_dir("push")
        cls.files = cmdtest.MmvFiles(cls.root)
        cls.plain = os.path.join(cls.root, "plain", "a")
        os.makedirs(os.path.dirname(cls.plain))
        p = cmdtest.run([cmdtest.MMVLOG, "capture", "-t", "50msec", "-s", "30", "-v", "10",
                         "--mmv-dir", cls.files.mmv_dir, "--no-progress", cls.plain],
                        env=cls.files.env)
        if p.returncode != 0:
            raise AssertionError(cmdtest.describe(p))
        if pushtest.archive_files(cls.plain) != [".0", ".1", ".2", ".index", ".meta"]:
            raise AssertionError(pushtest.archive_files(cls.plain))
        cls.servers = []

    @classmethod
    def tearDownClass(cls):
        for s in cls.servers:
            s.stop()

    def server(self, name, **kw):
        s = pushtest.Server(os.path.join(self.root, name), **kw)
        self.servers.append(s)
        return s

    def copy(self, name):
        d = os.path.join(self.root, name)
        os.makedirs(d)
        for ext in pushtest.archive_files(self.plain):
            shutil.copy(self.plain + ext, os.path.join(d, "a" + ext))
        return os.path.join(d, "a")

    def push(self, base, *args):
        return cmdtest.run([cmdtest.MMVLOG, "push"] + list(args) + [base], env=self.env())

    def env(self):
        return dict(os.environ, PCP_TMP_DIR=os.path.join(self.root, "pcp_tmp"))

    def test_xz_push_equals_pmlogpush_of_the_plain_copy(self):
        xz = self.copy("xz")
        subprocess.run(["xz", xz + ".0", xz + ".1", xz + ".2", xz + ".meta"], check=True)
        self.assertEqual(pushtest.archive_files(xz),
                         [".0.xz", ".1.xz", ".2.xz", ".index", ".meta.xz"])
        ours, theirs = self.server("ours"), self.server("theirs")
        p = self.push(xz, "-p", str(ours.port))
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        q = pcp7.run(["pmlogpush", "-p", str(theirs.port), self.plain])
        self.assertEqual(q.returncode, 0, q.stderr)
        (a,), (b,) = ours.archives(), theirs.archives()
        pushtest.same_files(self, a, b)
        self.assertEqual(pushtest.dump(a), pushtest.dump(b))
        pushtest.check(self, a)
        names = pushtest.metrics_with_values(self.plain)
        self.assertGreater(len(names), 20)
        for s in (ours, theirs):
            keyserver.wait_for("series in both", lambda: all(s.series(n) for n in names), 20)
        for n in names:
            self.assertEqual(ours.values(n), theirs.values(n), n)

    def damage(self, base):
        """Breaks the trailer of the second record of volume 1; returns the
        way to mend it."""
        path = base + ".1"
        with open(path, "rb") as f:
            data = f.read()
        label = int.from_bytes(data[0:4], "big")
        first = int.from_bytes(data[label:label + 4], "big")
        second = label + first
        length = int.from_bytes(data[second:second + 4], "big")
        at = second + length - 1
        with open(path, "r+b") as f:
            f.seek(at)
            f.write(bytes([data[at] ^ 0xff]))

        def mend():
            with open(path, "wb") as f:
                f.write(data)
        return mend, second

    def test_a_failed_push_goes_on_in_the_same_remote_archive(self):
        base = self.copy("resume")
        mend, at = self.damage(base)
        server = self.server("resume_server")
        spool = os.path.join(self.root, "resume_spool")
        p = self.push(base, "-p", str(server.port), "--spool", spool)
        self.assertEqual(p.returncode, 1, cmdtest.describe(p))
        self.assertIn("%s.1: record at offset %d" % (base, at), p.stderr)
        # What was acknowledged: volume 1 up to the damaged record.
        self.assertIn("volume 1 to byte %d" % at, p.stderr)
        self.assertIn("run the same command again", p.stderr)
        self.assertEqual(len(os.listdir(spool)), 1)
        mend()
        p = self.push(base, "-p", str(server.port), "--spool", spool)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        self.assertEqual(os.listdir(spool), [], "the state is gone once all is pushed")
        (remote,) = server.archives()
        pushtest.same_files(self, remote, self.plain)
        pushtest.check(self, remote)

    def test_a_forgotten_remote_archive_goes_on_in_a_new_one(self):
        base = self.copy("restart")
        mend, at = self.damage(base)
        server = self.server("restart_server")
        spool = os.path.join(self.root, "restart_spool")
        p = self.push(base, "-p", str(server.port), "--spool", spool)
        self.assertEqual(p.returncode, 1, cmdtest.describe(p))
        server.proxy.stop()
        server.proxy.start()  # it forgets every LOGID
        mend()
        p = self.push(base, "-v", "-p", str(server.port), "--spool", spool)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        self.assertIn("410", p.stderr)
        first, second = server.archives()
        for r in (first, second):
            pushtest.check(self, r)
        # Every record once, in order, over the two.
        self.assertEqual(pushtest.records(first) + pushtest.records(second),
                         pushtest.records(self.plain))
        self.assertEqual(pushtest.records(second)[0][1],
                         [r for r in pushtest.records(self.plain)
                          if r not in pushtest.records(first)][0][1])

    def test_credentials_and_the_unix_socket(self):
        base = self.copy("auth")
        server = self.server("auth_server", authenticate=True)
        p = self.push(base, "-p", str(server.port))
        self.assertEqual(p.returncode, 1, cmdtest.describe(p))
        self.assertIn("HTTP 403", p.stderr)
        creds = os.path.join(self.root, "creds")
        with open(creds, "w") as f:
            f.write("# pmproxy\nmmvlog:secret\n")
        os.chmod(creds, 0o644)
        p = self.push(base, "-p", str(server.port), "--credentials", creds)
        self.assertEqual(p.returncode, 2, cmdtest.describe(p))
        self.assertIn("readable by others", p.stderr)
        os.chmod(creds, 0o600)
        p = self.push(base, "-s", server.proxy.socket, "--credentials", creds)
        self.assertEqual(p.returncode, 0, cmdtest.describe(p))
        (remote,) = server.archives()
        pushtest.same_files(self, remote, self.plain)


if __name__ == "__main__":
    unittest.main()

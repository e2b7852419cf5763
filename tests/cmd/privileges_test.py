"""-U USER: mmvlog drops root as pmlogger does, once what needs root is open.

Run as root (CI is): `capture -U nobody` must, while it runs, show nobody's
uid and gid in /proc/PID/status with no group 0, and still write its archive
(the MMV directory, under the test's private directory that nobody cannot
reach by path, was opened before the switch). `record -U nobody` gives the
archive directory it creates to nobody. A user that does not exist is a
usage error (exit 2, nothing created). Without -U, running as root is said
once. An MMV file owned by another user and group is recorded all the same,
as PCP's MMV agent does.
"""

import os
import pwd
import shutil
import subprocess
import tempfile
import time
import unittest

import cmdtest
from cmdtest import MMVLOG, describe, lines


def status_of(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            out[key] = value.split()
    return out


@unittest.skipUnless(os.geteuid() == 0, "needs root")
class PrivilegesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.nobody = pwd.getpwnam("nobody")
        cls.root = cmdtest.fresh_dir("privileges")
        cls.files = cmdtest.MmvFiles(os.path.join(cls.root, "pcp"))
        # A file of another owner is recorded, as PCP's MMV agent does.
        os.chown(cls.files.path("bravo"), 4321, 4321)
        # Somewhere nobody can write: /tmp (the test's own directory is under
        # /root, which nobody cannot enter).
        cls.out = tempfile.mkdtemp(prefix="mmvlog-privileges-", dir="/tmp")
        os.chmod(cls.out, 0o755)
        os.chown(cls.out, cls.nobody.pw_uid, cls.nobody.pw_gid)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out, ignore_errors=True)

    def test_capture_runs_as_nobody_and_writes_the_archive(self):
        base = os.path.join(self.out, "asnobody")
        proc = subprocess.Popen([MMVLOG, "capture", "-U", "nobody", "-t", "100msec", "-s", "30",
                                 base], env=self.files.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, universal_newlines=True)
        seen = None
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and proc.poll() is None:
                st = status_of(proc.pid)
                if st["Uid"][0] == str(self.nobody.pw_uid):
                    seen = st
                    break
                time.sleep(0.02)
        finally:
            out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, "rc=%s\n%s\n%s" % (proc.returncode, out, err))
        self.assertIsNotNone(seen, "never saw the process as nobody:\n" + err)
        self.assertEqual(set(seen["Uid"]), {str(self.nobody.pw_uid)})  # real, effective, saved, fs
        self.assertEqual(set(seen["Gid"]), {str(self.nobody.pw_gid)})
        self.assertNotIn("0", seen.get("Groups", []))
        self.assertIn("running as nobody", err)
        rc, check = cmdtest.pmlogcheck(base)
        self.assertEqual(rc, 0, check)
        self.assertEqual(cmdtest.sample_results(base, check), 30)
        self.assertEqual(os.stat(base + ".0").st_uid, self.nobody.pw_uid)
        # Both files: bravo, owned by another user, too.
        dump = cmdtest.pmdumplog("-m", base)
        self.assertIn("mmv.alpha.", dump)
        self.assertIn("mmv.bravo.", dump)

    def test_record_gives_the_directory_it_creates_to_the_user(self):
        d = os.path.join(self.out, "records", "daily")
        p = cmdtest.run([MMVLOG, "record", "-U", "nobody", "-t", "50msec", "-s", "3",
                         "--archive-dir", d], env=self.files.env)
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertEqual(os.stat(d).st_uid, self.nobody.pw_uid)
        bases = cmdtest.archive_bases(d)
        self.assertEqual(len(bases), 1)
        self.assertEqual(os.stat(bases[0] + ".meta").st_uid, self.nobody.pw_uid)

    def test_unknown_user_is_a_usage_error(self):
        base = os.path.join(self.out, "never")
        p = cmdtest.run([MMVLOG, "capture", "-U", "no-such-user-xyz", base], env=self.files.env)
        self.assertEqual(p.returncode, 2, describe(p))
        self.assertIn("no-such-user-xyz", p.stderr)
        self.assertEqual(len(lines(p.stderr)), 1)
        self.assertFalse(os.path.exists(base + ".meta"))

    def test_root_without_u_is_told_once(self):
        base = os.path.join(self.out, "asroot")
        p = cmdtest.run([MMVLOG, "capture", "-s", "2", "-t", "50msec", base], env=self.files.env)
        self.assertEqual(p.returncode, 0, describe(p))
        said = [l for l in lines(p.stderr) if "running as root" in l]
        self.assertEqual(len(said), 1, p.stderr)
        self.assertIn("-U pcp", said[0])


if __name__ == "__main__":
    unittest.main()

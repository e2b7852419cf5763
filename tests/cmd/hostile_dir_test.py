"""`mmvlog capture` over a hostile MMV directory, as root would run it.

The directory holds two good MMV files (written by the real libpcp_mmv) and:
a symlink to a valid MMV file elsewhere, a symlink to a secret file, a
regular file that is not an MMV file, a FIFO (no writer: opening it without
O_NONBLOCK would hang), a unix socket, a symlink to /dev/zero and a
subdirectory. capture must neither hang nor fail, record exactly the two good
files, name each skipped entry once, and print no byte of the secret or of
the non-MMV file in any form (text, hex, numbers) on stdout, stderr, in
`inspect` or `inspect --json` output, or in the archive. strace must show
the MMV files opened with openat(..., O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC).
"""

import os
import re
import shutil
import socket
import struct
import unittest

import cmdtest
from cmdtest import MMVLOG, describe, lines

SECRET = b"root:$6$SuperSecretHash/xyz:19000:0:99999:7:::\n\x01\x02\xfe\xff"
NOT_MMV = b"PK\x03\x04 this is a zip, not an MMV file \x7f\x80\x81\x82" * 8


def forms_of(data):
    """Ways the first bytes of `data` could leak: text, hex, decimal words."""
    out = {data[:12].decode("latin-1")}
    out.add(data[:4].hex())
    out.add(" ".join("%02x" % b for b in data[:4]))
    out.add(" ".join("%02X" % b for b in data[:4]))
    for fmt in ("<I", ">I", "<i"):
        out.add(str(struct.unpack(fmt, data[:4])[0]))
    out.add(str(struct.unpack("<Q", data[:8])[0]))
    return {f for f in out if len(f) >= 4}


class HostileDirTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = cmdtest.fresh_dir("hostile")
        cls.files = cmdtest.MmvFiles(os.path.join(cls.root, "pcp"))
        d = cls.files.mmv_dir
        elsewhere = os.path.join(cls.root, "elsewhere")
        os.makedirs(elsewhere)
        shutil.copy(cls.files.path("alpha"), os.path.join(elsewhere, "valid"))
        cls.secret = os.path.join(elsewhere, "secret")
        with open(cls.secret, "wb") as f:
            f.write(SECRET)
        os.chmod(cls.secret, 0o600)
        os.symlink(os.path.join(elsewhere, "valid"), os.path.join(d, "linked"))
        os.symlink(cls.secret, os.path.join(d, "shadow"))
        os.symlink("/dev/zero", os.path.join(d, "zero"))
        with open(os.path.join(d, "notmmv"), "wb") as f:
            f.write(NOT_MMV)
        os.mkfifo(os.path.join(d, "fifo"))
        os.mkdir(os.path.join(d, "subdir"))
        cls.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        cwd = os.getcwd()
        os.chdir(d)  # a relative name: the full path is too long for a socket
        try:
            cls.sock.bind("sock")
        finally:
            os.chdir(cwd)
        cls.skipped = {"linked": "symbolic link", "shadow": "symbolic link",
                       "zero": "symbolic link", "fifo": "FIFO", "subdir": "directory",
                       "sock": "socket"}

    @classmethod
    def tearDownClass(cls):
        cls.sock.close()

    def assert_no_leak(self, text, what):
        for data in (SECRET, NOT_MMV):
            for form in forms_of(data):
                self.assertNotIn(form, text, "%s shows %r of a stranger's bytes" % (what, form))

    def capture(self, base, *extra, prefix=()):
        env = dict(self.files.env)
        if prefix:
            # Under a tracer (strace), LeakSanitizer cannot run (ASan builds).
            env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
        return cmdtest.run(list(prefix) + [MMVLOG, "capture", "-s", "3", "-t", "100msec"] +
                           list(extra) + [base], env=env, timeout=30)

    def test_records_exactly_the_good_files_and_names_the_rest_once(self):
        base = os.path.join(self.root, "arch")
        p = self.capture(base)
        self.assertEqual(p.returncode, 0, describe(p))
        rc, out = cmdtest.pmlogcheck(base)
        self.assertEqual(rc, 0, out)
        names = set(re.findall(r"\bmmv\.(\w+)\.", cmdtest.pmdumplog("-m", base)))
        self.assertEqual(names, {"alpha", "bravo"})
        for name, kind in self.skipped.items():
            said = [l for l in lines(p.stderr) if "/%s:" % name in l]
            self.assertEqual(len(said), 1, "%s named %d times:\n%s" % (name, len(said), p.stderr))
            self.assertIn("a %s, skipped" % kind, said[0])
        # The non-MMV regular file is tried and refused by its rule, once.
        said = [l for l in lines(p.stderr) if "notmmv" in l]
        self.assertEqual(len(said), 1, p.stderr)
        self.assertIn("offset 0: bad magic", said[0])
        self.assert_no_leak(p.stdout + p.stderr, "capture")
        with open(base + ".meta", "rb") as f:
            meta = f.read()
        with open(base + ".0", "rb") as f:
            vol = f.read()
        for data in (SECRET, NOT_MMV):
            self.assertNotIn(data[:12], meta + vol)

    def test_inspect_of_strangers_neither_follows_nor_echoes(self):
        d = self.files.mmv_dir
        for name in ("shadow", "notmmv", "fifo", "zero", "linked"):
            for json_flag in ([], ["--json"]):
                with self.subTest(name=name, json=json_flag):
                    p = cmdtest.run([MMVLOG, "inspect"] + json_flag + [os.path.join(d, name)],
                                    timeout=10)
                    self.assertEqual(p.returncode, 1, describe(p))
                    self.assertEqual(len(lines(p.stderr)), 1, describe(p))
                    self.assert_no_leak(p.stdout + p.stderr, "inspect " + name)

    def test_huge_claims_cost_only_what_the_file_holds(self):
        # A 10 GB sparse MMV file (a valid file with a hole after it) and a
        # header claiming 0x7fffffff TOC entries: refused or read from the
        # sizes alone: few bytes read (rchar: read(2) and pread(2) of every
        # thread) and a small peak RSS (the pages of a mapping that were
        # touched), not a time.
        root = cmdtest.fresh_dir("hostile_sizes")
        files = cmdtest.MmvFiles(os.path.join(root, "pcp"), files=(("alpha", "v3", 0, 0),))
        sparse = files.path("sparse")
        shutil.copy(files.path("alpha"), sparse)
        os.truncate(sparse, 10 << 30)
        with open(files.path("alpha"), "rb") as f:
            header = bytearray(f.read(4096))
        struct.pack_into("<i", header, 24, 0x7fffffff)
        with open(files.path("hugetoc"), "wb") as f:
            f.write(header)
        base = os.path.join(root, "arch")
        # The child's /proc/PID/io is read while it is a zombie (WNOWAIT).
        script = ("import os, re, resource, subprocess, sys\n"
                  "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL,\n"
                  "                     stderr=subprocess.PIPE)\n"
                  "err = p.stderr.read()\n"
                  "os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)\n"
                  "rchar = re.search(r'rchar: (\\d+)', open('/proc/%d/io' % p.pid).read())\n"
                  "p.wait()\n"
                  "print(p.returncode, rchar.group(1),\n"
                  "      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
                  "sys.stderr.write(err.decode())\n")
        p = cmdtest.run(["/usr/bin/python3", "-c", script, MMVLOG, "capture", "-s", "3", "-t",
                         "100msec", base], env=files.env, timeout=120)
        rc, read_bytes, max_rss_kb = p.stdout.split()
        self.assertEqual(int(rc), 0, describe(p))
        self.assertLess(int(read_bytes), 64 << 20, describe(p))
        self.assertLess(int(max_rss_kb), 100 * 1024, describe(p))
        said = [l for l in lines(p.stderr) if "hugetoc" in l]
        self.assertEqual(len(said), 1, p.stderr)
        self.assertIn("TOC count 2147483647 (ending at 34359738392) exceeds the file's 4096 bytes",
                      said[0])
        names = set(re.findall(r"\bmmv\.(\w+)\.", cmdtest.pmdumplog("-m", base)))
        self.assertEqual(names, {"alpha", "sparse"})

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def test_strace_shows_nofollow_nonblock_cloexec(self):
        base = os.path.join(self.root, "traced")
        trace = os.path.join(self.root, "strace.out")
        p = self.capture(base, prefix=["strace", "-f", "-e", "trace=openat,open", "-o", trace])
        self.assertEqual(p.returncode, 0, describe(p))
        with open(trace) as f:
            calls = f.read()
        opened = {}
        for m in re.finditer(r'openat\((\w+|-?\d+), "([^"]+)", ([A-Z_|]+)', calls):
            opened.setdefault(os.path.basename(m.group(2)), set()).add(m.group(3))
        for name in ("alpha", "bravo", "notmmv"):
            self.assertIn(name, opened, "no openat of %s in:\n%s" % (name, calls[:3000]))
            for flags in opened[name]:
                for flag in ("O_NOFOLLOW", "O_NONBLOCK", "O_CLOEXEC"):
                    self.assertIn(flag, flags.split("|"), "%s opened with %s" % (name, flags))
        # Nothing behind a link, nor the FIFO or socket, was ever opened.
        for name in ("secret", "valid", "zero", "fifo", "sock", "shadow", "linked"):
            self.assertNotIn(name, opened, "%s was opened" % name)


if __name__ == "__main__":
    unittest.main()

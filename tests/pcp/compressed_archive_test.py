"""Archives compressed as PCP's tools leave them, read by mmvlog replay.

An archive is recorded by PCP's own `pmlogger -o` (the MMV agent as a local
DSO) from libpcp_mmv files, in three volumes. Copies of it are compressed
the way pmlogcompress and people do (`xz -2 --block-size=10MiB`, `xz
--format=lzma`, bzip2, gzip, zstd, compress(1)'s .Z), under every suffix
libpcp reads (.xz .lzma .bz2 .bz .gz .z .Z .zst), volumes and .meta, and
mixed with plain volumes in one archive. For each, `mmvlog replay --dump`
and `--csv` must equal what replay shows for the plain archive (which
tests/pcp:archive_reader_oracle_test holds to pmdumplog), and pmdumplog (PCP
6.0.3 reads .xz, .gz, .bz2 itself) must agree that the copy holds the same
records. `-a` takes the base name or any one of its compressed files.

Damage: a truncated xz volume, a bzip2 volume with a flipped byte and a
zstd frame of garbage each give exit status 1, an error naming the file and
the offset, and every record of the volumes before it.
"""

import os
import re
import shutil
import subprocess
import unittest


def runfile(path):
    return os.path.join(os.environ["TEST_SRCDIR"], "mmvlog", path)


MMVLOG = runfile("cmd/mmvlog")
WRITER = runfile("tests/pcp/pcp_mmv_writer")

# (name, command compressing one file in place, suffix it leaves, rename to)
CODECS = (
    ("xz", ["xz", "-2", "--block-size=10MiB"], ".xz", None),
    ("lzma", ["xz", "--format=lzma"], ".lzma", None),
    ("bzip2", ["bzip2"], ".bz2", None),
    ("bz", ["bzip2"], ".bz2", ".bz"),
    ("gzip", ["gzip"], ".gz", None),
    ("z", ["gzip"], ".gz", ".z"),
    ("zstd", ["zstd", "-q", "--rm"], ".zst", None),
    ("Z", ["compress", "-f"], ".Z", None),
)


def run(args, **kw):
    return subprocess.run([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, errors="replace", timeout=120, **kw)


def records(dump):
    return [l for l in dump.splitlines() if re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ ", l)]


class CompressedArchiveTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not os.path.exists("/var/lib/pcp/pmns/root"):
            raise AssertionError("PCP's namespace is missing: run bazel/setup.sh")
        cls.root = os.path.join(os.environ["TEST_TMPDIR"], "compressed")
        shutil.rmtree(cls.root, ignore_errors=True)
        os.makedirs(os.path.join(cls.root, "mmv"))
        env = dict(os.environ, PCP_TMP_DIR=cls.root)
        for name, mode, cluster in (("alpha", "v1", "0"), ("bravo", "v3", "11")):
            subprocess.run([WRITER, name, mode, cluster], env=env, check=True,
                           stdout=subprocess.DEVNULL)
        cfg = os.path.join(cls.root, "cfg")
        with open(cfg, "w") as f:
            f.write("log mandatory on 100 msec { mmv.alpha mmv.bravo.cpu mmv.bravo.version }\n")
        cls.plain = os.path.join(cls.root, "plain", "a")
        os.makedirs(os.path.dirname(cls.plain))
        p = run(["pmlogger", "-o", "-c", cfg, "-s", "30", "-v", "10", "-l", cls.plain + ".log",
                 cls.plain], env=env, cwd=os.path.dirname(cls.plain))
        assert p.returncode == 0, p.stdout + p.stderr
        cls.volumes = sorted(n for n in os.listdir(os.path.dirname(cls.plain))
                             if re.match(r"^a\.\d+$", n))
        assert len(cls.volumes) >= 3, cls.volumes
        cls.want_dump = cls.replay("--dump", "-a", cls.plain)
        cls.want_csv = cls.replay("--csv", "-a", cls.plain, "mmv.alpha.cpu.busy",
                                  "mmv.bravo.version")
        cls.want_pmdumplog = run(["pmdumplog", "-a", cls.plain]).stdout
        # Records in the volumes before the last one.
        d = os.path.join(cls.root, "without-last")
        shutil.copytree(os.path.dirname(cls.plain), d)
        os.unlink(os.path.join(d, cls.volumes[-1]))
        cls.before_last = len(records(cls.replay("--dump", "-a", os.path.join(d, "a"))))
        assert 0 < cls.before_last < len(records(cls.want_dump))

    @classmethod
    def replay(cls, *args):
        p = run([MMVLOG, "replay"] + list(args))
        assert p.returncode == 0, p.stdout + p.stderr
        return p.stdout

    def copy(self, name, compress):
        """A copy of the archive; `compress(file name)` says what to compress."""
        d = os.path.join(self.root, name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(os.path.dirname(self.plain), d)
        return d, os.path.join(d, "a")

    def compress(self, d, files, codec):
        _, cmd, suffix, rename = codec
        for f in files:
            path = os.path.join(d, f)
            p = run(cmd + [path])
            self.assertEqual(p.returncode, 0, p.stderr)
            if rename:
                os.rename(path + suffix, path + rename)
        return rename or suffix

    def same_as_plain(self, base, d, args=None):
        dump = run([MMVLOG, "replay", "--dump", "-a", args or base])
        self.assertEqual(dump.returncode, 0, dump.stderr)
        self.assertEqual(dump.stderr, "")
        self.assertEqual(dump.stdout.replace(d, os.path.dirname(self.plain)), self.want_dump)
        csv = run([MMVLOG, "replay", "--csv", "-a", args or base, "mmv.alpha.cpu.busy",
                   "mmv.bravo.version"])
        self.assertEqual(csv.returncode, 0, csv.stderr)
        self.assertEqual(csv.stdout, self.want_csv)

    def test_every_suffix_libpcp_reads(self):
        for codec in CODECS:
            with self.subTest(codec=codec[0]):
                if shutil.which(codec[1][0]) is None:
                    self.fail("%s is not installed: run bazel/setup.sh" % codec[1][0])
                d, base = self.copy(codec[0], None)
                suffix = self.compress(d, self.volumes + ["a.meta"], codec)
                self.assertTrue(os.path.exists(base + ".0" + suffix))
                self.same_as_plain(base, d)
                # -a takes any one of the archive's files, compressed or not.
                self.same_as_plain(base, d, args=base + ".1" + suffix)
                self.same_as_plain(base, d, args=base + ".meta" + suffix)
                if codec[0] in ("xz", "gzip", "bzip2"):
                    # PCP 6.0.3 reads these itself: the same records.
                    p = run(["pmdumplog", "-a", base])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(p.stdout.replace(d, os.path.dirname(self.plain)),
                                     self.want_pmdumplog)

    def test_mixed_in_one_archive(self):
        d, base = self.copy("mixed", None)
        self.compress(d, [self.volumes[0]], CODECS[0])        # .0.xz
        self.compress(d, [self.volumes[2]], CODECS[4])        # .2.gz, .1 plain
        self.compress(d, ["a.meta"], CODECS[2])               # .meta.bz2
        self.assertEqual(sorted(os.listdir(d))[:5],
                         ["a.0.xz", "a.1", "a.2.gz", "a.index", "a.log"])
        self.same_as_plain(base, d)

    def test_damage_is_an_error_after_the_records_before_it(self):
        before = len(records(self.want_dump))
        cases = (
            ("truncated-xz", CODECS[0], lambda b: b[:len(b) * 2 // 3]),
            ("bad-bzip2-crc", CODECS[2], lambda b: b[:len(b) // 2] + bytes([b[len(b) // 2] ^ 0x55])
             + b[len(b) // 2 + 1:]),
            ("garbage-zstd", CODECS[6], lambda b: b[:12] + b"garbage!" * 8 + b[76:]),
        )
        for name, codec, damage in cases:
            with self.subTest(damage=name):
                d, base = self.copy(name, None)
                last = self.volumes[-1]
                suffix = self.compress(d, [last], codec)
                path = os.path.join(d, last + suffix)
                with open(path, "rb") as f:
                    data = f.read()
                with open(path, "wb") as f:
                    f.write(damage(data))
                p = run([MMVLOG, "replay", "--dump", "-a", base])
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertRegex(p.stderr, re.escape(path) + r": offset \d+")
                got = records(p.stdout)
                # Every record of the volumes before the damaged one, and
                # only records the archive holds, in order.
                self.assertGreaterEqual(len(got), self.before_last)
                self.assertLess(len(got), before)
                self.assertEqual(got, records(self.want_dump)[:len(got)])


if __name__ == "__main__":
    unittest.main()
